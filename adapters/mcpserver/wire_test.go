package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/mcpserver"
)

// wire is a raw JSON-RPC peer of a server on a stream transport: what the
// SDK client hides (responses it drops, errors it turns into Go errors) is
// seen here as it is on the wire.
type wire struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
}

// serveWire serves reg on a stream transport over pipes.
func serveWire(t *testing.T, reg *agenttool.Registry) *wire {
	t.Helper()
	server, err := mcpserver.New(reg, &mcpserver.Options{Version: "test"})
	require.NoError(t, err)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, lines: make(chan string, 100)}
	served := make(chan error, 1)
	go func() { served <- server.Run(context.Background(), mcpserver.NewStreamTransport(inR, outW)) }()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		assert.NoError(t, <-served, "the server ends cleanly when its input closes")
		_ = outW.Close()
		for range w.lines {
		}
	})
	w.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`)
	require.Contains(t, w.next(), `"serverInfo"`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	_, err := io.WriteString(w.in, line+"\n")
	require.NoError(w.t, err)
}

// next returns the next line the server wrote; in a bubble, after
// synctest.Wait, it must already be there.
func (w *wire) next() string {
	w.t.Helper()
	select {
	case line := <-w.lines:
		return line
	case <-time.After(time.Hour): // fake time inside a bubble
		w.t.Fatal("the server wrote nothing")
		return ""
	}
}

// none checks that the server wrote nothing more.
func (w *wire) none() {
	w.t.Helper()
	synctest.Wait()
	select {
	case line := <-w.lines:
		w.t.Fatalf("the server wrote %s", line)
	default:
	}
}

type response struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decode(t *testing.T, line string) response {
	t.Helper()
	var r response
	require.NoError(t, json.Unmarshal([]byte(line), &r), line)
	return r
}

func sleepRequest(id int, seconds int) string {
	return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":` + itoa(seconds) + `}}}`
}

func TestWireBadLinesKeepTheServerServing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		w := serveWire(t, registry(t, agenttool.DefaultToolsWithClock(mock)...))
		w.send(sleepRequest(1, 10)) // in flight through every bad line below
		synctest.Wait()

		w.send(`this is not json`)
		r := decode(t, w.next())
		assert.Nil(t, r.ID)
		require.NotNil(t, r.Error)
		assert.Equal(t, -32700, r.Error.Code)

		w.send(`{"jsonrpc":"2.0","id":2,"method":`)
		r = decode(t, w.next())
		assert.Nil(t, r.ID)
		assert.Equal(t, -32700, r.Error.Code)

		w.send(`[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`)
		r = decode(t, w.next())
		assert.Nil(t, r.ID)
		assert.Equal(t, -32600, r.Error.Code)

		w.send(`{"id":4,"hello":true}`)
		r = decode(t, w.next())
		assert.Equal(t, -32600, r.Error.Code)

		w.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
		r = decode(t, w.next())
		assert.InDelta(t, 5, r.ID, 0)
		assert.Contains(t, string(r.Result), `"sleep"`)

		mock.Add(10 * time.Second)
		r = decode(t, w.next())
		assert.InDelta(t, 1, r.ID, 0, "the call in flight is still answered")
		assert.Contains(t, string(r.Result), "Slept for 10 second(s).")
	})
}

func TestWireCancelledRequestGetsNoResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		w := serveWire(t, registry(t, agenttool.DefaultToolsWithClock(mock)...))
		w.send(sleepRequest(7, 3600))
		synctest.Wait()
		w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`)
		w.none()

		// The server goes on answering, and the ids it forgot are its own.
		w.send(sleepRequest(8, 0))
		r := decode(t, w.next())
		assert.InDelta(t, 8, r.ID, 0)
		assert.Contains(t, string(r.Result), "Slept for 0 second(s).")
		w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}`)
		w.none()
	})
}

func TestWireUnknownToolIsAProtocolError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := serveWire(t, registry(t, agenttool.DefaultTools()...))
		w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`)
		r := decode(t, w.next())
		require.NotNil(t, r.Error)
		assert.Equal(t, -32602, r.Error.Code)
		assert.Contains(t, r.Error.Message, "nope")

		w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":1.5}}}`)
		r = decode(t, w.next())
		assert.Nil(t, r.Error, "invalid arguments are a result")
		assert.Contains(t, string(r.Result), `"isError":true`)
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
