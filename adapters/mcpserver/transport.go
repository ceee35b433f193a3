package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageSize bounds one inbound message on a [NewStreamTransport]
// connection; a longer line gets an error response and is skipped.
const MaxMessageSize = 16 << 20

// NewStreamTransport returns a transport that reads newline-delimited
// JSON-RPC messages from r and writes them to w, one per line, as MCP's
// stdio transport does, and that keeps serving through bad input: a line
// that is not JSON gets a parse error (-32700, id null), a JSON array (a
// batch) or a line over [MaxMessageSize] an invalid-request error (-32600),
// and valid JSON that is no JSON-RPC message an invalid-request error with
// its id when it has one. Responses to requests the peer cancelled are
// dropped ([DropCancelled]).
//
// The transport connects once. Reading r happens on a goroutine that ends
// when r returns an error (io.EOF when the peer closes it); closing the
// connection does not close r or w.
func NewStreamTransport(r io.Reader, w io.Writer) mcp.Transport {
	return DropCancelled(&streamTransport{r: r, w: w})
}

type streamTransport struct {
	r io.Reader
	w io.Writer
}

func (t *streamTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &streamConn{w: t.w, incoming: make(chan readResult), closed: make(chan struct{})}
	go c.readLines(t.r)
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

type streamConn struct {
	wmu      sync.Mutex
	w        io.Writer
	incoming chan readResult
	closed   chan struct{}
	once     sync.Once
}

// readLines reads r line by line, answers lines that are no message, and
// hands the messages to Read.
func (c *streamConn) readLines(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if tooLong {
			c.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message exceeds %d bytes", MaxMessageSize))
		} else if msg, ok := c.decode(line); ok {
			select {
			case c.incoming <- readResult{msg: msg}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			select {
			case c.incoming <- readResult{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// readLine returns the next line without its end, or reports that it was
// longer than MaxMessageSize (and skips it).
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxMessageSize+2 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// decode turns one line into a message, or answers it and reports false.
func (c *streamConn) decode(line []byte) (jsonrpc.Message, bool) {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil, false
	case !json.Valid(line):
		c.reject(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the message is not valid JSON")
		return nil, false
	case line[0] == '[':
		c.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported; send one message per line")
		return nil, false
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		var probe struct {
			ID any `json:"id"`
		}
		_ = json.Unmarshal(line, &probe)
		id, idErr := jsonrpc.MakeID(probe.ID)
		if idErr != nil {
			id = jsonrpc.ID{}
		}
		c.reject(id, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil, false
	}
	return msg, true
}

// reject writes an error response to a line that carried no message.
func (c *streamConn) reject(id jsonrpc.ID, code int64, message string) {
	_ = c.Write(context.Background(), &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: message}})
}

func (c *streamConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case r := <-c.incoming:
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *streamConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(data)
	return err
}

func (c *streamConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *streamConn) SessionID() string { return "" }

// DropCancelled wraps a server transport so that a request the peer
// cancelled with notifications/cancelled gets no response, as MCP's
// cancellation utility requires; the SDK writes one anyway (go-sdk issues
// 1235 and 1259). A response that was written before the cancellation
// arrived is not taken back.
func DropCancelled(t mcp.Transport) mcp.Transport { return &dropCancelled{inner: t} }

type dropCancelled struct{ inner mcp.Transport }

func (d *dropCancelled) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := d.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cancelAwareConn{Connection: conn, inflight: map[jsonrpc.ID]bool{}}, nil
}

// cancelAwareConn remembers the requests in flight and which of them the
// peer cancelled, and drops the responses to those.
type cancelAwareConn struct {
	mcp.Connection
	mu       sync.Mutex
	inflight map[jsonrpc.ID]bool // true once cancelled
}

func (c *cancelAwareConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok {
		return msg, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case req.ID.IsValid():
		c.inflight[req.ID] = false
	case req.Method == "notifications/cancelled":
		var params struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &params) == nil {
			if id, err := jsonrpc.MakeID(params.RequestID); err == nil {
				if _, ok := c.inflight[id]; ok {
					c.inflight[id] = true
				}
			}
		}
	}
	return msg, nil
}

func (c *cancelAwareConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		c.mu.Lock()
		cancelled := c.inflight[resp.ID]
		delete(c.inflight, resp.ID)
		c.mu.Unlock()
		if cancelled {
			return nil
		}
	}
	return c.Connection.Write(ctx, msg)
}
