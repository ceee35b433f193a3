package tooltest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/functool"
	"github.com/agenttool/agenttool/tooltest"
)

// The tools people write do real I/O. Run must pass or fail them with a
// message, never hang: an earlier version ran every call inside a
// testing/synctest bubble, where an HTTP client's connection goroutines
// never settle, and hung for ever on the cancellation check.

type fetchArgs struct {
	Path string `json:"path" jsonschema:"the path to fetch"`
}

func TestHTTPToolConforms(t *testing.T) {
	tooltest.Run(t, func(t *testing.T) agenttool.Tool {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "fetched "+r.URL.Path)
		}))
		t.Cleanup(srv.Close)
		client := srv.Client()
		t.Cleanup(client.CloseIdleConnections)
		tool, err := functool.New("fetch", "Fetch a path from the server.",
			func(ctx context.Context, in fetchArgs) (agenttool.ToolResult, error) {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/"+in.Path, nil)
				if err != nil {
					return agenttool.ToolResult{}, err
				}
				resp, err := client.Do(req)
				if err != nil {
					return agenttool.ToolResult{}, err
				}
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				if err != nil {
					return agenttool.ToolResult{}, err
				}
				return agenttool.OK(string(body)), nil
			}, &functool.Options{ConcurrencySafe: true})
		require.NoError(t, err)
		return tool
	})
}

type readArgs struct {
	Name string `json:"name" jsonschema:"the file to read"`
}

func TestFileToolConforms(t *testing.T) {
	tooltest.Run(t, func(t *testing.T) agenttool.Tool {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "x"), []byte("hello"), 0o600))
		tool, err := functool.New("read", "Read a file.",
			func(_ context.Context, in readArgs) (agenttool.ToolResult, error) {
				data, err := os.ReadFile(filepath.Join(dir, filepath.Base(in.Name)))
				if err != nil {
					return agenttool.Failf("cannot read %q: %v", in.Name, err), nil
				}
				return agenttool.OK(string(data)), nil
			}, &functool.Options{ConcurrencySafe: true})
		require.NoError(t, err)
		return tool
	})
}

// TestProcessToolConforms runs a child process per call: the test binary
// itself, which prints its arguments when PROCESS_TOOL_ECHO is set.
func TestProcessToolConforms(t *testing.T) {
	tooltest.Run(t, func(*testing.T) agenttool.Tool {
		return &agenttool.FuncTool{
			ToolName: "echo", ToolDescription: "Echo a word through a child process.",
			Schema: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"}}}`),
			Fn: func(ctx context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
				var in struct {
					Word string `json:"word"`
				}
				if len(args) > 0 && string(args) != "null" {
					if err := json.Unmarshal(args, &in); err != nil {
						return agenttool.Failf("arguments must be an object like {\"word\":\"x\"}: %v", err), nil
					}
				}
				cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestProcessToolHelper$")
				cmd.Env = append(os.Environ(), "PROCESS_TOOL_ECHO="+in.Word)
				out, err := cmd.Output()
				if ctx.Err() != nil {
					return agenttool.ToolResult{}, ctx.Err()
				}
				if err != nil {
					return agenttool.Failf("child failed: %v", err), nil
				}
				return agenttool.OK(string(out)), nil
			},
		}
	})
}

func TestProcessToolHelper(t *testing.T) {
	word, ok := os.LookupEnv("PROCESS_TOOL_ECHO")
	if !ok {
		t.Skip("runs only as the child of TestProcessToolConforms")
	}
	_, _ = os.Stdout.WriteString(word)
}
