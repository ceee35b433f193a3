package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/mcpserver"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// connect serves reg in memory and returns a connected client session.
func connect(t *testing.T, reg *agenttool.Registry, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	server, err := mcpserver.New(reg, &mcpserver.Options{Version: "test"})
	require.NoError(t, err)
	serverT, clientT := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, mcpserver.DropCancelled(serverT), nil)
	require.NoError(t, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	cs, err := client.Connect(ctx, clientT, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	return tc.Text
}

func registry(t *testing.T, tools ...agenttool.Tool) *agenttool.Registry {
	t.Helper()
	reg, err := agenttool.NewRegistry(tools...)
	require.NoError(t, err)
	return reg
}

func TestListTools(t *testing.T) {
	noType := &agenttool.FuncTool{ToolName: "loose", ToolDescription: "d", Schema: json.RawMessage(`{}`),
		Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { return agenttool.OK(""), nil }}
	cs := connect(t, registry(t, append(agenttool.DefaultTools(), noType)...), nil)
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, res.Tools, 2)
	sleep := res.Tools[1]
	if res.Tools[0].Name == "sleep" {
		sleep = res.Tools[0]
	}
	assert.Equal(t, "sleep", sleep.Name)
	assert.Equal(t, agenttool.SleepTool{}.Description(), sleep.Description)
	schema, err := json.Marshal(sleep.InputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, string(agenttool.SleepTool{}.Parameters()), string(schema))
	for _, tool := range res.Tools {
		if tool.Name == "loose" {
			schema, err := json.Marshal(tool.InputSchema)
			require.NoError(t, err)
			assert.JSONEq(t, `{"type":"object"}`, string(schema))
		}
	}
}

func TestCallTool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs := connect(t, registry(t, agenttool.DefaultTools()...), nil)
		ctx := context.Background()
		cases := map[string]struct {
			args    any
			isError bool
			text    string
		}{
			"success":       {map[string]any{"seconds": 1}, false, "Slept for 1 second(s)."},
			"unknown field": {map[string]any{"seconds": 0, "why": "x"}, false, "Slept for 0 second(s)."},
			"bad argument":  {map[string]any{"seconds": "5"}, true, `"seconds" must be an integer from 0 to 86400, got "5"`},
			"fraction":      {json.RawMessage(`{"seconds":1.0}`), true, `"seconds" must be an integer from 0 to 86400, got 1.0`},
			"missing":       {nil, true, `"seconds" is required: an integer from 0 to 86400`},
		}
		for name, tc := range cases {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: tc.args})
			require.NoError(t, err, name)
			assert.Equal(t, tc.isError, res.IsError, name)
			assert.Equal(t, tc.text, text(t, res), name)
		}
		// The SDK answers a call to a tool it does not list itself.
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"})
		if err == nil {
			assert.True(t, res.IsError)
		} else {
			assert.Contains(t, err.Error(), "nope")
		}
	})
}

func TestPanicBecomesError(t *testing.T) {
	boom := &agenttool.FuncTool{ToolName: "boom", ToolDescription: "panics", Schema: json.RawMessage(`{"type":"object"}`),
		Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { panic("kaboom") }}
	cs := connect(t, registry(t, boom, agenttool.SleepTool{}), nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "boom"})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, "tool panicked: kaboom", text(t, res))

	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sleep", Arguments: map[string]int{"seconds": 0}})
	require.NoError(t, err, "the server keeps serving")
	assert.Equal(t, "Slept for 0 second(s).", text(t, res))
}

// watched wraps the sleep tool and reports each call's end.
func watched(ended chan<- error) agenttool.Tool {
	sleep := agenttool.SleepTool{}
	return &agenttool.FuncTool{
		ToolName: sleep.Name(), ToolDescription: sleep.Description(), Schema: sleep.Parameters(),
		Fn: func(ctx context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			res, err := sleep.Execute(ctx, args)
			ended <- err
			return res, err
		},
	}
}

func TestClientCancellationStopsTheSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ended := make(chan error, 1)
		cs := connect(t, registry(t, watched(ended)), nil)
		ctx, cancel := context.WithCancel(context.Background())
		start := time.Now()
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]int{"seconds": 3600}})
			done <- err
		}()
		synctest.Wait()
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		err := <-ended
		require.ErrorIs(t, err, context.Canceled, "the server-side sleep ended with the client's cancellation")
		assert.Less(t, time.Since(start), time.Second, "the sleep did not run its course (fake time)")
	})
}

func TestProgressNotifications(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var got []*mcp.ProgressNotificationParams
		cs := connect(t, registry(t, agenttool.DefaultTools()...), &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, req.Params)
			},
		})
		params := &mcp.CallToolParams{Name: "sleep", Arguments: map[string]int{"seconds": 5}}
		params.SetProgressToken("tok-1")
		res, err := cs.CallTool(context.Background(), params)
		require.NoError(t, err)
		assert.Equal(t, "Slept for 5 second(s).", text(t, res))
		synctest.Wait()

		mu.Lock()
		defer mu.Unlock()
		require.GreaterOrEqual(t, len(got), 4, "about one notification a second")
		for i, p := range got {
			assert.Equal(t, "tok-1", p.ProgressToken)
			assert.InDelta(t, 5, p.Total, 0)
			assert.InDelta(t, float64(i+1), p.Progress, 0, "progress is elapsed seconds")
		}

		// Without a token, no notification.
		got = nil
		mu.Unlock()
		_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sleep", Arguments: map[string]int{"seconds": 3}})
		synctest.Wait()
		mu.Lock()
		require.NoError(t, err)
		assert.Empty(t, got)
	})
}

func TestConcurrentCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs := connect(t, registry(t, agenttool.DefaultTools()...), nil)
		start := time.Now()
		var wg sync.WaitGroup
		results := make([]string, 10)
		for i := range results {
			wg.Go(func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sleep", Arguments: map[string]int{"seconds": i + 1}})
				if err != nil {
					results[i] = err.Error()
					return
				}
				results[i] = res.Content[0].(*mcp.TextContent).Text
			})
		}
		wg.Wait()
		for i, r := range results {
			assert.Equal(t, fmt.Sprintf("Slept for %d second(s).", i+1), r)
		}
		assert.Equal(t, 10*time.Second, time.Since(start), "the calls ran side by side, not one after another")
	})
}

func TestProgressReportsOfAnyTool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		late := make(chan context.Context, 1)
		steps := &agenttool.FuncTool{ToolName: "steps", ToolDescription: "reports progress", Schema: json.RawMessage(`{"type":"object"}`),
			Fn: func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
				agenttool.ReportProgress(ctx, agenttool.Progress{Done: 1, Total: 3, Message: "one"})
				time.Sleep(2500 * time.Millisecond) // fake time: two heartbeats
				agenttool.ReportProgress(ctx, agenttool.Progress{Done: 2, Total: 3, Message: "two"})
				late <- ctx
				return agenttool.OK("done"), nil
			}}
		var mu sync.Mutex
		var got []*mcp.ProgressNotificationParams
		cs := connect(t, registry(t, steps), &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, req.Params)
			},
		})
		params := &mcp.CallToolParams{Name: "steps", Arguments: map[string]any{}}
		params.SetProgressToken(42)
		res, err := cs.CallTool(context.Background(), params)
		require.NoError(t, err)
		assert.Equal(t, "done", text(t, res))
		agenttool.ReportProgress(<-late, agenttool.Progress{Done: 3, Total: 3, Message: "after"})
		synctest.Wait()

		mu.Lock()
		defer mu.Unlock()
		require.GreaterOrEqual(t, len(got), 4, "two reports and the heartbeats between them")
		var messages []string
		for i, p := range got {
			assert.InDelta(t, 42, p.ProgressToken, 0)
			assert.InDelta(t, 3, p.Total, 0)
			if i > 0 {
				assert.Greater(t, p.Progress, got[i-1].Progress, "progress strictly increases, as MCP requires")
			}
			messages = append(messages, p.Message)
		}
		assert.Equal(t, "one", messages[0])
		assert.InDelta(t, 1, got[0].Progress, 0)
		assert.Equal(t, "two", messages[len(messages)-1])
		assert.InDelta(t, 2, got[len(got)-1].Progress, 0)
		assert.NotContains(t, messages, "after", "a report after the call ended is not sent")
	})
}

func TestNewReportsTheVersion(t *testing.T) {
	reg := registry(t, agenttool.DefaultTools()...)
	for version, want := range map[string]string{"": "dev", "v1.2.3": "v1.2.3"} {
		server, err := mcpserver.New(reg, &mcpserver.Options{Version: version})
		require.NoError(t, err)
		serverT, clientT := mcp.NewInMemoryTransports()
		ss, err := server.Connect(context.Background(), serverT, nil)
		require.NoError(t, err)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), clientT, nil)
		require.NoError(t, err)
		assert.Equal(t, want, cs.InitializeResult().ServerInfo.Version)
		_ = cs.Close()
		_ = ss.Wait()
	}
	server, err := mcpserver.New(nil, nil)
	require.NoError(t, err, "a nil registry serves no tools")
	require.NotNil(t, server)
}

// TestContextEndsCallsInFlight: a server's graceful stop cancels the calls
// in flight through Options.Context.
func TestContextEndsCallsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ended := make(chan error, 1)
		base, stop := context.WithCancelCause(context.Background())
		server, err := mcpserver.New(registry(t, watched(ended)), &mcpserver.Options{Context: base})
		require.NoError(t, err)
		serverT, clientT := mcp.NewInMemoryTransports()
		ss, err := server.Connect(context.Background(), serverT, nil)
		require.NoError(t, err)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), clientT, nil)
		require.NoError(t, err)
		defer func() { _ = cs.Close(); _ = ss.Wait() }()
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sleep", Arguments: map[string]int{"seconds": 3600}})
			done <- err
		}()
		synctest.Wait()
		shutdown := errors.New("shutting down")
		stop(shutdown)
		err = <-ended
		require.ErrorIs(t, err, shutdown, "the sleep ended with the server's context")
		require.Error(t, <-done, "the call produced no result")
	})
}
