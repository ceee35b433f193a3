// Package mcpserver serves an [agenttool.Registry] over the Model Context
// Protocol with the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
//	server := mcpserver.New(reg, nil)
//	err := server.Run(ctx, &mcp.StdioTransport{})
//
// Every tool of the registry is listed with its name, description and
// Parameters as inputSchema. Each tools/call runs in its own [agenttool.Turn],
// so a tool panic becomes an isError result and the server keeps serving, and
// a client's cancellation (notifications/cancelled, or the request's context
// ending) ends the call at once. The tools' own validation stays the judge of
// the arguments: the SDK does not validate them first, so unknown fields stay
// ignored where the tool ignores them.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttool/agenttool"
)

// DefaultProgressInterval is how often a call with a progress token reports
// progress unless [Options].ProgressInterval says otherwise.
const DefaultProgressInterval = time.Second

// Options configures [Register] and [New]. A nil *Options means the defaults.
type Options struct {
	// Clock stamps the turns and paces progress notifications; nil means the
	// real clock. Tools keep their own clocks.
	Clock clock.Clock
	// ProgressInterval is the time between progress notifications for a call
	// whose request carries a progressToken; zero means
	// [DefaultProgressInterval].
	ProgressInterval time.Duration
}

// New returns an MCP server named "agenttool" with version as given by
// version (empty means "dev") that serves every tool of reg.
func New(reg *agenttool.Registry, version string, opts *Options) *mcp.Server {
	if version == "" {
		version = "dev"
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "agenttool", Version: version}, nil)
	Register(server, reg, opts)
	return server
}

// Register adds every tool of reg to server, replacing tools of the same
// name; a nil reg adds none. A schema with no "type" is advertised with
// "type": "object", which MCP requires. Calls, from one client or many, run
// concurrently, each in its own Turn, so the tools' Execute must allow
// concurrent calls, as the [agenttool.Tool] contract says.
//
// A call's [agenttool.ToolResult] becomes a CallToolResult with one text
// content: Output when it succeeded, Error with isError set when it failed,
// including for an unknown tool, invalid arguments and a tool panic. When the
// request's context ends first, the handler returns its context's error. A
// request with a progressToken gets a notifications/progress about every
// ProgressInterval while the call runs, with progress the elapsed whole
// seconds and, for [agenttool.SleepTool], total the requested seconds, so
// that clients which reset their timeout on progress can wait through long
// sleeps.
func Register(server *mcp.Server, reg *agenttool.Registry, opts *Options) {
	h := &handler{reg: reg, clock: clock.New(), interval: DefaultProgressInterval}
	if opts != nil {
		if opts.Clock != nil {
			h.clock = opts.Clock
		}
		if opts.ProgressInterval > 0 {
			h.interval = opts.ProgressInterval
		}
	}
	for _, def := range reg.Definitions() {
		server.AddTool(&mcp.Tool{
			Name:        def.Name,
			Description: def.Description,
			InputSchema: objectSchema(def.Parameters),
		}, h.call)
	}
}

// objectSchema adds "type": "object" to a schema that has no type.
func objectSchema(params json.RawMessage) json.RawMessage {
	var schema map[string]json.RawMessage
	if json.Unmarshal(params, &schema) != nil {
		return params
	}
	if _, ok := schema["type"]; ok {
		return params
	}
	schema["type"] = json.RawMessage(`"object"`)
	out, err := json.Marshal(schema)
	if err != nil {
		return params
	}
	return out
}

type handler struct {
	reg      *agenttool.Registry
	clock    clock.Clock
	interval time.Duration
}

func (h *handler) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	turn := agenttool.NewTurn(ctx, h.reg, &agenttool.TurnOptions{Clock: h.clock})
	defer turn.Close()
	args := req.Params.Arguments
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		stop := h.reportProgress(ctx, req.Session, token, h.total(req.Params.Name, args))
		defer stop()
	}
	// The turn is new and only ends with ctx, so an error here means the
	// client cancelled: the SDK does not send a response for it.
	blocks, err := turn.Run([]agenttool.ToolCall{{ID: "mcp", Name: req.Params.Name, Args: args}})
	if err != nil {
		return nil, err
	}
	return toResult(blocks[0]), nil
}

func toResult(b agenttool.ToolBlock) *mcp.CallToolResult {
	if b.Status == agenttool.StatusSucceeded {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.Result.Output}}}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.Result.Error}}, IsError: true}
}

// total is the progress total of a call in seconds: the tool's estimate,
// or 0 (unknown) when it gives none.
func (h *handler) total(name string, args json.RawMessage) float64 {
	tool, ok := h.reg.Lookup(name)
	if !ok {
		return 0
	}
	d, ok := agenttool.EstimateOf(tool, args)
	if !ok {
		return 0
	}
	return math.Ceil(d.Seconds())
}

// reportProgress sends progress notifications until the returned stop is
// called; stop waits for the reporting goroutine to end.
func (h *handler) reportProgress(ctx context.Context, session *mcp.ServerSession, token any, total float64) (stop func()) {
	ticker := h.clock.Ticker(h.interval)
	start := h.clock.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-ticker.C:
				elapsed := math.Floor(h.clock.Since(start).Seconds())
				if total > 0 {
					elapsed = math.Min(elapsed, total)
				}
				params := &mcp.ProgressNotificationParams{
					ProgressToken: token,
					Progress:      elapsed,
					Total:         total,
					Message:       progressMessage(elapsed, total),
				}
				// Best effort: a client that went away cancels ctx.
				_ = session.NotifyProgress(ctx, params)
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

func progressMessage(elapsed, total float64) string {
	if total > 0 {
		return fmt.Sprintf("%.0f of %.0f seconds", elapsed, total)
	}
	return fmt.Sprintf("running for %.0f seconds", elapsed)
}
