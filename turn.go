package agenttool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

var (
	// ErrTurnEnded is returned (wrapped, next to the cause) by [Turn.Run]
	// when the turn ended before or during the batch: its context ended or
	// [Turn.Close] was called.
	ErrTurnEnded = errors.New("agenttool: turn ended")
	// ErrTurnClosed is the cause of a turn ended by [Turn.Close]; it appears
	// next to [ErrTurnEnded] and [context.Canceled] in the error from Run.
	ErrTurnClosed = errors.New("agenttool: turn closed")
)

// ToolStatus is where a call stands. A call starts [StatusPending], becomes
// [StatusRunning], and ends [StatusSucceeded], [StatusFailed] or
// [StatusCancelled]; once ended it never changes.
type ToolStatus int

// The statuses of a call.
const (
	StatusPending   ToolStatus = iota // added to the turn, not started
	StatusRunning                     // its tool is executing
	StatusSucceeded                   // the tool returned a successful result
	StatusFailed                      // unknown tool, unsuccessful result, Go error or panic
	StatusCancelled                   // the turn ended before the call finished
)

var statusNames = [...]string{"pending", "running", "succeeded", "failed", "cancelled"}

// String returns the lower-case name of s, or "ToolStatus(N)" for a value
// out of range.
func (s ToolStatus) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("ToolStatus(%d)", int(s))
}

// Finished reports whether s is a final status: succeeded, failed or cancelled.
func (s ToolStatus) Finished() bool {
	return s == StatusSucceeded || s == StatusFailed || s == StatusCancelled
}

// MarshalText encodes s as its lower-case name; a value out of range is an error.
func (s ToolStatus) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(statusNames) {
		return nil, fmt.Errorf("agenttool: invalid ToolStatus %d", int(s))
	}
	return []byte(statusNames[s]), nil
}

// UnmarshalText decodes a lower-case status name.
func (s *ToolStatus) UnmarshalText(text []byte) error {
	for i, name := range statusNames {
		if string(text) == name {
			*s = ToolStatus(i)
			return nil
		}
	}
	return fmt.Errorf("agenttool: unknown ToolStatus %q", text)
}

// ToolCall is one call a model asked for.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"arguments"`
}

// MarshalJSON encodes the call with its arguments as they are when they are
// valid JSON, as a JSON string holding them when they are not (a model can
// send broken arguments, and the record of the call must still encode), and
// as null when there are none.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	p := plain(c)
	switch {
	case len(bytes.TrimSpace(p.Args)) == 0:
		p.Args = nil
	case !json.Valid(p.Args):
		quoted, err := json.Marshal(string(p.Args))
		if err != nil {
			return nil, err
		}
		p.Args = quoted
	}
	return json.Marshal(p)
}

// ToolBlock is the record of one call within a turn. StartedAt is zero for a
// call cancelled before it started; EndedAt is zero until the call ends.
// Both come from [TurnOptions].Clock.
type ToolBlock struct {
	Call      ToolCall   `json:"call"`
	Status    ToolStatus `json:"status"`
	Result    ToolResult `json:"result"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   time.Time  `json:"ended_at"`
}

// Snapshot is the state of every call of a turn at one moment. It is a deep
// copy: changing it changes nothing in the turn.
type Snapshot struct {
	// Seq numbers the turn's changes; it strictly increases within a turn.
	Seq uint64 `json:"seq"`
	// Blocks holds every block of the turn, across batches, in call order.
	Blocks []ToolBlock `json:"blocks"`
	// Final marks the terminal snapshot, in which no block is pending or running.
	Final bool `json:"final"`
}

// TurnOptions configures a [Turn]. A nil *TurnOptions, like the zero value,
// means the defaults.
type TurnOptions struct {
	// Clock stamps StartedAt and EndedAt; nil means the real clock. Tools
	// keep their own clocks (see [DefaultToolsWithClock]).
	Clock clock.Clock
	// OnSnapshot, if set, receives a snapshot after every change: once when
	// a batch's calls are added, when calls start, when each call ends, and
	// once, last, with the final snapshot. Calls come in Seq order, never
	// concurrently and never after the final one. OnSnapshot may call
	// [Turn.Snapshot] and [Turn.Close]; it must not call [Turn.Run], wait
	// for Run to return, or panic, and it should return promptly: the
	// goroutine that made the change delivers it. Without an observer no
	// snapshot is built, so a call's cost does not grow with the turn.
	OnSnapshot func(Snapshot)
}

// Turn runs the tool calls of one agent turn and keeps the record of each.
//
// A turn may run several batches, one per model response. [Turn.Run] runs
// one: concurrently when every call names a registered [ConcurrencySafe]
// tool, otherwise one call at a time in call order. Each call runs in its own
// goroutine with the turn's context, so that a panic becomes a failed block
// and a tool that ignores its context cannot hold Run.
//
// The turn ends when its context ends or [Turn.Close] is called, whichever
// comes first. Then every block still pending or running becomes
// [StatusCancelled], with an Error saying why, before the final snapshot is
// published; results that arrive later are discarded, and blocks that had
// already finished keep their status. Every method is safe for concurrent
// use. Call Close when done with a turn (defer turn.Close()): like a
// context's cancel func, it releases what the turn holds on its parent
// context.
type Turn struct {
	ctx      context.Context
	cancel   context.CancelCauseFunc
	tools    *Registry
	clock    clock.Clock
	observer func(Snapshot)
	done     chan struct{}

	mu         sync.Mutex
	stop       func() bool // unregisters end from ctx
	blocks     []ToolBlock
	seq        uint64
	ended      bool
	err        error      // ErrTurnEnded with the cause, once ended
	final      Snapshot   // once ended
	queue      []Snapshot // snapshots not yet delivered to observer
	delivering bool       // a goroutine is draining queue
}

// NewTurn starts a turn that runs calls against tools. The turn ends when ctx
// ends or [Turn.Close] is called. A nil tools is an empty registry (every
// call fails as unknown); opts may be nil. NewTurn starts no goroutine.
func NewTurn(ctx context.Context, tools *Registry, opts *TurnOptions) *Turn {
	if ctx == nil {
		ctx = context.Background()
	}
	t := &Turn{tools: tools, done: make(chan struct{})}
	if opts != nil {
		t.clock, t.observer = opts.Clock, opts.OnSnapshot
	}
	if t.clock == nil {
		t.clock = clock.New()
	}
	t.ctx, t.cancel = context.WithCancelCause(ctx)
	// If ctx is already done, end runs at once in another goroutine; the
	// lock makes it wait until stop is set.
	t.mu.Lock()
	t.stop = context.AfterFunc(t.ctx, t.end)
	t.mu.Unlock()
	return t
}

// Run adds calls to the turn as pending blocks, runs them, and returns their
// blocks in call order. A call to a tool the registry does not hold (or hides)
// fails with an error naming the tools it does hold; a tool's Go error,
// unsuccessful result or panic ("tool panicked: ...") fails its block; in each
// case the batch goes on.
//
// If the turn ends before or during the batch, Run returns at once with the
// batch's blocks as they stand in the final snapshot and an error wrapping
// [ErrTurnEnded] and the cause, such that errors.Is(err, context.Canceled)
// (or [context.DeadlineExceeded]) holds. On a turn that had already ended it
// returns no blocks. Run keeps its own copy of each call's arguments.
func (t *Turn) Run(calls []ToolCall) ([]ToolBlock, error) {
	if t.ctx.Err() != nil {
		t.end()
	}
	t.mu.Lock()
	if t.ended {
		err := t.err
		t.mu.Unlock()
		return nil, err
	}
	if len(calls) == 0 {
		t.mu.Unlock()
		return []ToolBlock{}, nil
	}
	base := len(t.blocks)
	tools := make([]Tool, len(calls))
	concurrent := len(calls) > 1
	for i, c := range calls {
		e, ok := t.tools.lookup(c.Name)
		tools[i] = e.tool
		concurrent = concurrent && ok && e.safe
		c.Args = bytes.Clone(c.Args)
		t.blocks = append(t.blocks, ToolBlock{Call: c, Status: StatusPending})
	}
	t.changedLocked()
	t.mu.Unlock()
	t.deliver()

	if concurrent {
		t.runConcurrent(base, tools)
	} else {
		t.runSequential(base, tools)
	}
	return t.batch(base, len(calls))
}

// outcome is what one Execute produced.
type outcome struct {
	index int
	res   ToolResult
	err   error
}

func (t *Turn) runSequential(base int, tools []Tool) {
	for i, tool := range tools {
		if !t.begin(base+i, base+i+1) {
			return
		}
		if tool == nil {
			t.settle(outcome{index: base + i, res: t.unknown(base + i)})
			continue
		}
		results := make(chan outcome, 1)
		go t.execute(tool, base+i, results)
		select {
		case o := <-results:
			t.settle(o)
		case <-t.ctx.Done():
			t.end()
			return
		}
	}
}

func (t *Turn) runConcurrent(base int, tools []Tool) {
	if !t.begin(base, base+len(tools)) {
		return
	}
	results := make(chan outcome, len(tools))
	for i, tool := range tools {
		go t.execute(tool, base+i, results)
	}
	for range tools {
		select {
		case o := <-results:
			t.settle(o)
		case <-t.ctx.Done():
			t.end()
			return
		}
	}
}

// execute runs one call and sends its outcome on results, which has room
// for it, so that the goroutine ends even when nobody waits any more.
func (t *Turn) execute(tool Tool, index int, results chan<- outcome) {
	t.mu.Lock()
	args := t.blocks[index].Call.Args
	t.mu.Unlock()
	o := outcome{index: index}
	defer func() {
		if p := recover(); p != nil {
			o.res, o.err = ToolResult{Error: fmt.Sprintf("tool panicked: %v", p)}, nil
		}
		results <- o
	}()
	o.res, o.err = tool.Execute(t.ctx, args)
}

// begin marks blocks [from, to) running, or ends the turn and reports false
// if its context has ended.
func (t *Turn) begin(from, to int) bool {
	t.mu.Lock()
	if t.ended || t.ctx.Err() != nil {
		t.mu.Unlock()
		t.end()
		return false
	}
	now := t.clock.Now()
	for i := from; i < to; i++ {
		t.blocks[i].Status = StatusRunning
		t.blocks[i].StartedAt = now
	}
	t.changedLocked()
	t.mu.Unlock()
	t.deliver()
	return true
}

// settle records an outcome, unless the turn has ended or is ending: a
// result is kept only if it arrives while the turn is live, so that a tool
// that returns its context's error is recorded as cancelled, not failed.
func (t *Turn) settle(o outcome) {
	t.mu.Lock()
	if t.ended || t.ctx.Err() != nil {
		t.mu.Unlock()
		t.end()
		return
	}
	b := &t.blocks[o.index]
	b.EndedAt = t.clock.Now()
	switch {
	case o.err != nil:
		b.Status, b.Result = StatusFailed, ToolResult{Error: "tool error: " + o.err.Error()}
	case !o.res.Success:
		b.Status, b.Result = StatusFailed, o.res
		if b.Result.Error == "" {
			b.Result.Error = fmt.Sprintf("tool %q failed without saying why", b.Call.Name)
		}
	default:
		b.Status, b.Result = StatusSucceeded, o.res
	}
	t.changedLocked()
	t.mu.Unlock()
	t.deliver()
}

// unknown is the result of a call to a tool the registry does not hold.
func (t *Turn) unknown(index int) ToolResult {
	t.mu.Lock()
	name := t.blocks[index].Call.Name
	t.mu.Unlock()
	names := t.tools.Names()
	if len(names) == 0 {
		return Failf("unknown tool %q: no tools are available", name)
	}
	const most = 32
	if len(names) > most {
		names = append(names[:most], "…")
	}
	return Failf("unknown tool %q; available tools: %s", name, strings.Join(names, ", "))
}

// end ends the turn once its context is done (or Close cancelled it): it
// cancels every unfinished block, then publishes the final snapshot.
func (t *Turn) end() {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.ended = true
	err, cause := t.ctx.Err(), context.Cause(t.ctx)
	if err == nil {
		// end runs only after the context is done; be safe all the same.
		err, cause = context.Canceled, context.Canceled
	}
	if errors.Is(cause, err) {
		t.err = fmt.Errorf("%w: %w", ErrTurnEnded, cause)
	} else {
		t.err = fmt.Errorf("%w: %w: %w", ErrTurnEnded, err, cause)
	}
	why := "cancelled: the turn ended before the call finished (" + cause.Error() + ")"
	now := t.clock.Now()
	for i := range t.blocks {
		if b := &t.blocks[i]; !b.Status.Finished() {
			b.Status, b.Result, b.EndedAt = StatusCancelled, ToolResult{Error: why}, now
		}
	}
	t.seq++
	t.final = Snapshot{Seq: t.seq, Blocks: cloneBlocks(t.blocks), Final: true}
	if t.observer == nil {
		close(t.done)
	} else {
		t.queue = append(t.queue, t.final.clone())
	}
	t.mu.Unlock()
	t.cancel(ErrTurnClosed)
	t.deliver()
}

// batch returns the blocks of one batch; if the turn ended, as they stand in
// the final snapshot once it has been delivered.
func (t *Turn) batch(base, n int) ([]ToolBlock, error) {
	t.mu.Lock()
	if !t.ended {
		defer t.mu.Unlock()
		return cloneBlocks(t.blocks[base : base+n]), nil
	}
	blocks, err := cloneBlocks(t.final.Blocks[base:base+n]), t.err
	t.mu.Unlock()
	<-t.done
	return blocks, err
}

// Close ends the turn, if it has not ended, and returns the final snapshot.
// It is idempotent: every call returns the same final snapshot. Blocks still
// pending or running become cancelled with [ErrTurnClosed] as the cause,
// and the tools' context is cancelled. Called from OnSnapshot, Close returns
// before the final snapshot has been delivered; otherwise [Turn.Done] may
// still be open if another goroutine is delivering it.
func (t *Turn) Close() Snapshot {
	t.mu.Lock()
	stop := t.stop
	t.mu.Unlock()
	stop()
	t.cancel(ErrTurnClosed)
	t.end()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.final.clone()
}

// Snapshot returns the current state of the turn, or the final snapshot once
// the turn has ended. It copies every block, so its cost grows with the turn.
func (t *Turn) Snapshot() Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return t.final.clone()
	}
	return Snapshot{Seq: t.seq, Blocks: cloneBlocks(t.blocks)}
}

// Done returns a channel that is closed once the final snapshot has been
// published (delivered to OnSnapshot, when set).
func (t *Turn) Done() <-chan struct{} { return t.done }

// changedLocked records a change; t.mu must be held.
func (t *Turn) changedLocked() {
	t.seq++
	if t.observer != nil {
		t.queue = append(t.queue, Snapshot{Seq: t.seq, Blocks: cloneBlocks(t.blocks)})
	}
}

// deliver hands queued snapshots to the observer, in order, from one
// goroutine at a time and without holding t.mu, so that the observer may
// call back into the turn.
func (t *Turn) deliver() {
	if t.observer == nil {
		return
	}
	t.mu.Lock()
	if t.delivering {
		t.mu.Unlock()
		return
	}
	t.delivering = true
	for len(t.queue) > 0 {
		queue := t.queue
		t.queue = nil
		t.mu.Unlock()
		final := false
		for _, s := range queue {
			t.observer(s)
			final = final || s.Final
		}
		t.mu.Lock()
		if final {
			close(t.done)
		}
	}
	t.delivering = false
	t.mu.Unlock()
}

func (s Snapshot) clone() Snapshot {
	s.Blocks = cloneBlocks(s.Blocks)
	return s
}

// cloneBlocks deep-copies blocks with two allocations: the blocks and one
// buffer shared by all their arguments.
func cloneBlocks(src []ToolBlock) []ToolBlock {
	out := make([]ToolBlock, len(src))
	copy(out, src)
	size := 0
	for i := range src {
		size += len(src[i].Call.Args)
	}
	if size == 0 {
		return out
	}
	buf := make([]byte, 0, size)
	for i := range out {
		if args := out[i].Call.Args; len(args) > 0 {
			start := len(buf)
			buf = append(buf, args...)
			out[i].Call.Args = buf[start:len(buf):len(buf)]
		}
	}
	return out
}
