package agenttool

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// Caller runs single calls against a registry for a framework that
// schedules tool calls itself (an agent graph, a runner that calls tools in
// parallel), with a [Turn]'s guarantees and its batch rule kept across every
// call the Caller runs at the same time: a call to a tool that is not
// [ConcurrencySafe] runs with no other call of the Caller, safe or not,
// while calls to safe tools run side by side. Framework adapters make one
// Caller per registry and share it between all the tools they make from it.
//
// Callers are safe for concurrent use. The zero value is not usable; use
// [NewCaller].
type Caller struct {
	tools *Registry
	clock clock.Clock
	gate  gate
}

// NewCaller returns a Caller over tools; a nil tools is an empty registry.
// clk stamps the blocks' times; nil means the real clock.
func NewCaller(tools *Registry, clk clock.Clock) *Caller {
	return &Caller{tools: tools, clock: clk}
}

// Call runs one call in a one-call [Turn] on ctx and returns its block,
// which is always finished. It first waits for its turn at the Caller's
// gate: exclusive for a tool that is not [ConcurrencySafe], shared for a
// safe one; a call to a tool the registry does not hold fails at once
// without waiting. A tool's panic, unsuccessful result or Go error is a
// [StatusFailed] block with a nil error, as in [Turn.Run].
//
// When ctx ends while the call waits or runs, Call returns at once a
// [StatusCancelled] block and an error wrapping [ErrTurnEnded] and ctx's
// error (and cause). The gate opens as soon as Call returns, so a tool that
// ignores its cancelled context may still be running when the next call
// starts.
func (c *Caller) Call(ctx context.Context, call ToolCall) (ToolBlock, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	turn := NewTurn(ctx, c.tools, &TurnOptions{Clock: c.clock})
	defer turn.Close()
	if e, ok := c.tools.lookup(call.Name); ok {
		if !c.gate.acquire(ctx, !e.safe) {
			return c.ended(ctx, call)
		}
		defer c.gate.release(!e.safe)
	}
	blocks, err := turn.Run([]ToolCall{call})
	if len(blocks) != 1 {
		return c.ended(ctx, call)
	}
	return blocks[0], err
}

// ended returns the block and error of a call whose context (done) ended
// before the call could start.
func (c *Caller) ended(ctx context.Context, call ToolCall) (ToolBlock, error) {
	why := endedOf(ctx)
	call.Args = bytes.Clone(call.Args)
	now := time.Now()
	if c.clock != nil {
		now = c.clock.Now()
	}
	return ToolBlock{Call: call, Status: StatusCancelled, Result: ToolResult{Error: cancelledBecause(why.cause)}, EndedAt: now},
		&turnEndedError{why: why}
}

// gate is a reader/writer lock whose waiters give up when their context
// ends. Waiters are served in arrival order, so a stream of shared holders
// cannot starve an exclusive one. It waits on channels, never on a mutex
// held across a call, so it works inside a testing/synctest bubble; it is
// our own because the core depends on the standard library alone
// (golang.org/x/sync/semaphore would do the same).
type gate struct {
	mu      sync.Mutex
	shared  int  // holders of the shared side
	held    bool // the exclusive side is held
	waiters []*gateWaiter
}

type gateWaiter struct {
	exclusive bool
	ready     chan struct{} // closed once the gate is granted
}

// acquire takes the gate, exclusive or shared, and reports true; or reports
// false, holding nothing, if ctx ends first.
func (g *gate) acquire(ctx context.Context, exclusive bool) bool {
	g.mu.Lock()
	if len(g.waiters) == 0 && g.free(exclusive) {
		g.take(exclusive)
		g.mu.Unlock()
		return true
	}
	w := &gateWaiter{exclusive: exclusive, ready: make(chan struct{})}
	g.waiters = append(g.waiters, w)
	g.mu.Unlock()
	select {
	case <-w.ready:
		return true
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-w.ready: // granted while ctx ended: give it back
		g.give(exclusive)
	default:
		for i, x := range g.waiters {
			if x == w {
				g.waiters = append(g.waiters[:i], g.waiters[i+1:]...)
				break
			}
		}
	}
	g.grant()
	return false
}

// release gives back what acquire took.
func (g *gate) release(exclusive bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.give(exclusive)
	g.grant()
}

func (g *gate) free(exclusive bool) bool {
	if exclusive {
		return !g.held && g.shared == 0
	}
	return !g.held
}

func (g *gate) take(exclusive bool) {
	if exclusive {
		g.held = true
	} else {
		g.shared++
	}
}

func (g *gate) give(exclusive bool) {
	if exclusive {
		g.held = false
	} else {
		g.shared--
	}
}

// grant hands the gate to waiters in arrival order for as long as the
// first one can take it. g.mu must be held.
func (g *gate) grant() {
	for len(g.waiters) > 0 && g.free(g.waiters[0].exclusive) {
		w := g.waiters[0]
		g.waiters = g.waiters[1:]
		g.take(w.exclusive)
		close(w.ready)
	}
}
