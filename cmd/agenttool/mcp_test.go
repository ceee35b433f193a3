package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hangGuard bounds the waits on the child process: it fails the test with a
// message instead of hanging it. It is no speed threshold: a healthy
// command answers in milliseconds.
const hangGuard = time.Minute

// mcpProcess is `agenttool mcp` spoken to over its stdin and stdout, line
// by line, as an MCP client would, so that what a client library hides
// (a response that should not exist, an error) is seen as it is.
type mcpProcess struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	exited chan error
}

func startMCP(t *testing.T, args ...string) *mcpProcess {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"mcp"}, args...)...)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &mcpProcess{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 100), exited: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		for range p.lines {
		}
	})
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.Contains(t, p.next(), `"serverInfo"`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *mcpProcess) send(line string) {
	p.t.Helper()
	_, err := io.WriteString(p.stdin, line+"\n")
	require.NoError(p.t, err)
}

func (p *mcpProcess) next() string {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		require.True(p.t, ok, "the server closed its output")
		return line
	case <-time.After(hangGuard):
		p.t.Fatalf("no answer from agenttool mcp within %v", hangGuard)
		return ""
	}
}

// wait returns the process's exit code once it has exited.
func (p *mcpProcess) wait() int {
	p.t.Helper()
	select {
	case err := <-p.exited:
		var exit *exec.ExitError
		if err != nil {
			require.ErrorAs(p.t, err, &exit)
			return exit.ExitCode()
		}
		return 0
	case <-time.After(hangGuard):
		p.t.Fatalf("agenttool mcp did not exit within %v", hangGuard)
		return -1
	}
}

type rpcReply struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
	} `json:"error"`
}

func reply(t *testing.T, line string) rpcReply {
	t.Helper()
	var r rpcReply
	require.NoError(t, json.Unmarshal([]byte(line), &r), line)
	return r
}

func callLine(id, seconds int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":` + strconv.Itoa(seconds) + `}}}`
}

// TestMCPBadLinesOnTheWire: a line that is not JSON, or a batch, gets an
// error and the server keeps serving, a call in flight included.
func TestMCPBadLinesOnTheWire(t *testing.T) {
	p := startMCP(t)
	p.send(callLine(1, 1))
	p.send(`not json at all`)
	r := reply(t, p.next())
	assert.Nil(t, r.ID)
	require.NotNil(t, r.Error)
	assert.Equal(t, -32700, r.Error.Code)
	p.send(`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`)
	r = reply(t, p.next())
	require.NotNil(t, r.Error)
	assert.Equal(t, -32600, r.Error.Code)
	r = reply(t, p.next())
	assert.InDelta(t, 1, r.ID, 0, "the call in flight is answered after the bad lines")
	assert.Contains(t, string(r.Result), "Slept for 1 second(s).")
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope"}}`)
	r = reply(t, p.next())
	require.NotNil(t, r.Error, "an unknown tool is a protocol error")
	assert.Equal(t, -32602, r.Error.Code)
	require.NoError(t, p.stdin.Close())
	assert.Equal(t, 0, p.wait())
}

// TestMCPCancelledCallGetsNoResponse: MCP's cancellation utility says a
// cancelled request gets no response.
func TestMCPCancelledCallGetsNoResponse(t *testing.T) {
	p := startMCP(t)
	p.send(callLine(7, 3600))
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"changed my mind"}}`)
	// The next request's answer comes first; nothing for id 7 before it or
	// after it, until the server exits.
	p.send(callLine(8, 0))
	r := reply(t, p.next())
	assert.InDelta(t, 8, r.ID, 0, "no response to the cancelled request")
	require.NoError(t, p.stdin.Close())
	for line := range p.lines {
		t.Errorf("unexpected output after the cancel: %s", line)
	}
	assert.Equal(t, 0, p.wait())
}

// TestMCPSignalStopsGracefully: SIGINT or SIGTERM while a call runs cancels
// it and ends the server at once with exit 0, while stdin stays open.
func TestMCPSignalStopsGracefully(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			p := startMCP(t, "--allow", "sleep")
			p.send(callLine(1, 3600))
			p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			require.Contains(t, p.next(), `"tools"`, "the call was read before the signal")
			require.NoError(t, p.cmd.Process.Signal(sig))
			assert.Equal(t, 0, p.wait(), "a graceful stop exits 0")
		})
	}
}

// TestBinaryRefusesUnknownToolNames: a typo in --deny must not leave the
// tool it meant to hide in place; the real binary exits 2 and says so.
func TestBinaryRefusesUnknownToolNames(t *testing.T) {
	for _, args := range [][]string{
		{"call", "--deny", "slep", "sleep", `{"seconds":0}`},
		{"list", "--allow", "sleep,slep"},
		{"mcp", "--deny=slep"},
	} {
		cmd := exec.Command(binary, args...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%v: %s", args, out)
		assert.Equal(t, 2, exit.ExitCode(), "%v", args)
		assert.Contains(t, string(out), `agenttool: unknown tool "slep"`, "%v", args)
	}
	cmd := exec.Command(binary, "list", "--deny", "")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", out)
	assert.Equal(t, 2, exit.ExitCode(), "an empty list is a usage error")
}
