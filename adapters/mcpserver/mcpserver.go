// Package mcpserver serves an [agenttool.Registry] over the Model Context
// Protocol with the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
//	server, err := mcpserver.New(reg, &mcpserver.Options{Version: "v1.0.0"})
//	if err != nil { ... }
//	err = server.Run(ctx, mcpserver.NewStreamTransport(os.Stdin, os.Stdout))
//
// Every tool of the registry is listed with its name, description and
// Parameters as inputSchema. Each tools/call runs in its own [agenttool.Turn],
// so a tool panic becomes an isError result and the server keeps serving, and
// a client's cancellation (notifications/cancelled, or the request's context
// ending) ends the call at once. The tools' own validation stays the judge of
// the arguments: the SDK does not validate them first, so unknown fields stay
// ignored where the tool ignores them.
//
// # On the wire
//
//   - A call whose arguments are invalid, a tool's unsuccessful result and a
//     tool panic are results with isError set and the Error as text.
//   - A call to a tool the server does not list is a JSON-RPC error -32602
//     (invalid params), as the MCP specification says of unknown tools; the
//     SDK answers it before any tool runs.
//   - A request the client cancelled gets no response, as MCP's cancellation
//     utility requires: the SDK writes one anyway (go-sdk issues 1235 and
//     1259), and [DropCancelled] (which [NewStreamTransport] applies) drops it.
//   - On [NewStreamTransport], a line that is not JSON gets a parse error
//     (-32700, id null) and a JSON array (a batch, which MCP no longer has)
//     an invalid-request error (-32600); the server keeps serving.
//
// # Progress
//
// A request with a progressToken gets notifications/progress while the call
// runs: one for every [agenttool.ReportProgress] of the tool, and between
// them, and for tools that report nothing, a heartbeat about once a second,
// so that clients which reset their timeout on progress keep waiting. The
// heartbeat's progress is the elapsed whole seconds, with total the tool's
// [agenttool.Estimator] estimate in seconds when it gives one (for sleep,
// the requested seconds).
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

// DefaultProgressInterval is how often a call with a progress token gets a
// heartbeat unless [Options].ProgressInterval says otherwise.
const DefaultProgressInterval = time.Second

// Options configures [Register] and [New]. A nil *Options means the defaults.
type Options struct {
	// Version is the server version [New] reports to clients; empty means
	// "dev".
	Version string
	// Clock stamps the turns and paces the progress heartbeat; nil means the
	// real clock. Tools keep their own clocks.
	Clock clock.Clock
	// ProgressInterval is the time between heartbeats for a call whose
	// request carries a progressToken; zero means [DefaultProgressInterval].
	ProgressInterval time.Duration
	// Context, if set, bounds every call: when it ends, each call in flight
	// is cancelled with its cause. A server's graceful stop cancels it, so
	// that the SDK, which waits for the calls in flight before Run returns,
	// does not wait out a long sleep. Nil means calls end only with their
	// requests.
	Context context.Context
}

// New returns an MCP server named "agenttool", reporting opts.Version, that
// serves every tool of reg. It returns the error of [Register].
func New(reg *agenttool.Registry, opts *Options) (*mcp.Server, error) {
	version := ""
	if opts != nil {
		version = opts.Version
	}
	if version == "" {
		version = "dev"
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "agenttool", Version: version}, nil)
	if err := Register(server, reg, opts); err != nil {
		return nil, err
	}
	return server, nil
}

// Register adds every tool of reg to server, replacing tools of the same
// name; a nil reg adds none. A schema with no "type" is advertised with
// "type": "object", which MCP requires. It returns an error, and adds no
// tool after it, for a tool the SDK refuses (the SDK panics; Register does
// not). Calls, from one client or many, run concurrently, each in its own
// Turn, so the tools' Execute must allow concurrent calls, as the
// [agenttool.Tool] contract says.
//
// A call's [agenttool.ToolResult] becomes a CallToolResult with one text
// content: Output when it succeeded, Error with isError set when it failed,
// including for invalid arguments and a tool panic. When the request's
// context ends first, the handler returns its context's error. See the
// package doc for progress notifications.
func Register(server *mcp.Server, reg *agenttool.Registry, opts *Options) error {
	h := &handler{reg: reg, clock: clock.New(), interval: DefaultProgressInterval}
	if opts != nil {
		h.base = opts.Context
		if opts.Clock != nil {
			h.clock = opts.Clock
		}
		if opts.ProgressInterval > 0 {
			h.interval = opts.ProgressInterval
		}
	}
	for _, def := range reg.Definitions() {
		if err := addTool(server, &mcp.Tool{
			Name:        def.Name,
			Description: def.Description,
			InputSchema: objectSchema(def.Parameters),
		}, h.call); err != nil {
			return err
		}
	}
	return nil
}

func addTool(server *mcp.Server, tool *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("mcpserver: the MCP SDK refuses tool %q: %v", tool.Name, p)
		}
	}()
	server.AddTool(tool, h)
	return nil
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
	base     context.Context // nil, or what bounds every call
	reg      *agenttool.Registry
	clock    clock.Clock
	interval time.Duration
}

func (h *handler) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if h.base != nil {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		defer context.AfterFunc(h.base, func() { cancel(context.Cause(h.base)) })()
	}
	args := req.Params.Arguments
	opts := &agenttool.TurnOptions{Clock: h.clock}
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		p := h.startProgress(ctx, req.Session, token, h.total(req.Params.Name, args))
		defer p.stop()
		opts.OnSnapshot = p.observe
	}
	turn := agenttool.NewTurn(ctx, h.reg, opts)
	defer turn.Close()
	// The turn is new and only ends with ctx, so an error here means the
	// client cancelled.
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

// total is a call's heartbeat total in seconds: the tool's estimate, or 0
// (unknown) when it gives none.
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

// progress sends the notifications of one call: the tool's reports as they
// come, and a heartbeat every interval.
type progress struct {
	reports chan agenttool.Progress // the latest report not yet sent
	done    chan struct{}
	wg      sync.WaitGroup
	last    agenttool.Progress // what observe last saw, on the observer's goroutine
}

func (h *handler) startProgress(ctx context.Context, session *mcp.ServerSession, token any, total float64) *progress {
	p := &progress{reports: make(chan agenttool.Progress, 1), done: make(chan struct{})}
	ticker := h.clock.Ticker(h.interval)
	start := h.clock.Now()
	p.wg.Go(func() {
		defer ticker.Stop()
		n := notifier{ctx: ctx, session: session, token: token}
		var reported *agenttool.Progress
		for {
			select {
			case <-p.done:
				return
			case <-ctx.Done():
				return
			case r := <-p.reports:
				reported = &r
				n.send(r.Done, r.Total, r.Message)
			case <-ticker.C:
				if reported != nil {
					n.send(reported.Done, reported.Total, reported.Message)
					continue
				}
				elapsed := math.Floor(h.clock.Since(start).Seconds())
				t := total
				if elapsed > t {
					t = 0 // past the estimate: the total is no longer known
				}
				n.send(elapsed, t, heartbeatMessage(elapsed, t))
			}
		}
	})
	return p
}

// observe hands the call's latest report, if it changed, to the sender
// without waiting: a report replaces one the sender has not taken yet.
func (p *progress) observe(s agenttool.Snapshot) {
	if len(s.Blocks) == 0 {
		return
	}
	r := s.Blocks[0].Progress
	if r == p.last || r == (agenttool.Progress{}) {
		return
	}
	p.last = r
	for {
		select {
		case p.reports <- r:
			return
		default:
		}
		select {
		case <-p.reports:
		default:
		}
	}
}

// stop ends the sender and waits for it.
func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
}

// notifier sends notifications/progress whose progress strictly increases,
// as MCP requires: a value that does not is sent as the next float above
// the last one sent (a heartbeat after a report, a report that repeats).
type notifier struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any
	last    float64
	sent    bool
}

func (n *notifier) send(progress, total float64, message string) {
	if n.sent && progress <= n.last {
		progress = math.Nextafter(n.last, math.Inf(1))
	}
	n.last, n.sent = progress, true
	// Best effort: a client that went away cancels ctx.
	_ = n.session.NotifyProgress(n.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: n.token,
		Progress:      progress,
		Total:         total,
		Message:       message,
	})
}

func heartbeatMessage(elapsed, total float64) string {
	if total > 0 {
		return fmt.Sprintf("%.0f of %.0f seconds", elapsed, total)
	}
	return fmt.Sprintf("running for %.0f seconds", elapsed)
}
