package agenttool

import (
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
// tool, otherwise one call at a time in call order. Each call runs with the
// turn's context and a recover, so that a panic becomes a failed block.
// User tools run on goroutines of the turn's own, so that a tool that
// ignores its context cannot hold Run, and a tool that ends its goroutine
// without returning (runtime.Goexit, as t.FailNow does) is a failed block;
// those goroutines are reused from call to call, and all of them end when
// the turn ends (or after a moment without work). The native tools, known
// by their concrete type ([SleepTool], never a type that embeds it), return
// at once when their context ends, so in a sequential batch they run on the
// goroutine that called Run.
//
// The turn ends when its context ends or [Turn.Close] is called, whichever
// comes first. Then every block still pending or running becomes
// [StatusCancelled], with an Error saying why, before the final snapshot is
// published; results that arrive later are discarded, and blocks that had
// already finished keep their status. Every method is safe for concurrent
// use. Call Close when done with a turn (defer turn.Close()): like a
// context's cancel func, it releases what the turn holds on its parent
// context and ends its idle goroutines.
//
// A Turn waits only on channels, never on a lock held across a tool call,
// so it works inside a testing/synctest bubble with fake time. Create it and
// run it inside the bubble, and end it there (Close, or a context such as
// the bubble's t.Context()): the bubble's test fails if a turn's idle
// goroutine is still waiting when it returns.
type Turn struct {
	ctx      context.Context
	cancel   context.CancelCauseFunc
	tools    *Registry
	clock    clock.Clock
	observer func(Snapshot)
	done     chan struct{}
	batches  chan struct{} // holds a token while a Run runs its batch
	// single carries the outcome of each user tool call of a sequential
	// batch. Only the Run holding the batches token uses it, and it holds
	// no stale outcome: every call's outcome is read, unless the turn
	// ended, after which no batch runs.
	single chan outcome

	mu         sync.Mutex
	stop       func() bool // unregisters end from ctx, once watchLocked registered it
	blocks     blockStore
	seq        uint64
	ended      bool
	why        contextEnded  // why the context ended, once ended
	queue      []Snapshot    // snapshots not yet delivered to observer
	delivering bool          // a goroutine is draining queue
	delivered  uint64        // Seq of the last snapshot delivered to observer
	onDelivery chan struct{} // closed when delivered next advances, for progress reports
	idle       []*worker     // goroutines waiting for a call
	dispatched uint64        // calls handed to workers so far
	reaped     uint64        // dispatched when the reaper last looked
	reaper     *time.Timer   // ends idle workers after a pause; nil when none wait
}

// NewTurn starts a turn that runs calls against tools. The turn ends when ctx
// ends or [Turn.Close] is called. A nil tools is an empty registry (every
// call fails as unknown); opts may be nil. NewTurn starts no goroutine.
func NewTurn(ctx context.Context, tools *Registry, opts *TurnOptions) *Turn {
	if ctx == nil {
		ctx = context.Background()
	}
	t := &Turn{tools: tools, done: make(chan struct{}), batches: make(chan struct{}, 1)}
	if opts != nil {
		t.clock, t.observer = opts.Clock, opts.OnSnapshot
	}
	if t.clock == nil {
		t.clock = clock.New()
	}
	t.ctx, t.cancel = context.WithCancelCause(ctx)
	if t.observer != nil {
		t.mu.Lock()
		t.watchLocked()
		t.mu.Unlock()
	}
	return t
}

// watchLocked arranges for the turn to end as soon as its context does,
// for those who can see it end without calling a method: an observer, or a
// reader of Done. Everyone else finds out through a method, and each method
// ends a turn whose context has ended before it answers, so a turn nobody
// watches costs no context registration. t.mu must be held; if the context
// has already ended, end runs at once in another goroutine and waits for
// the lock.
func (t *Turn) watchLocked() {
	if t.stop == nil && !t.ended {
		t.stop = context.AfterFunc(t.ctx, t.end)
	}
}

// Run adds calls to the turn as pending blocks, runs them, and returns their
// blocks in call order. A call to a tool the registry does not hold (or hides)
// fails with an error naming the tools it does hold; a tool's Go error,
// unsuccessful result, panic ("tool panicked: ...") or exit without
// returning fails its block; in each case the batch goes on. Each tool gets
// its own copy of its call's arguments: what it writes there changes
// nothing in the record.
//
// Run runs one batch at a time: called from several goroutines on one turn,
// a later Run waits for the earlier one to return (in the order the calls
// reach the turn), so a tool that is not [ConcurrencySafe] never runs next
// to itself or another tool of the turn.
//
// If the turn ends before or during the batch, or while Run waits for
// another batch, Run returns at once with the batch's blocks as they stand
// in the final snapshot (none when the batch had not started) and an error
// wrapping [ErrTurnEnded] and the cause, such that errors.Is(err,
// context.Canceled) (or [context.DeadlineExceeded]) holds.
func (t *Turn) Run(calls []ToolCall) ([]ToolBlock, error) {
	select {
	case t.batches <- struct{}{}:
	default:
		// Another Run holds the turn: wait for it, or for the turn's end.
		select {
		case t.batches <- struct{}{}:
		case <-t.ctx.Done():
			return nil, t.endNow()
		}
	}
	defer func() { <-t.batches }()
	if t.ctx.Err() != nil {
		t.end()
	}
	t.mu.Lock()
	if t.ended {
		err := t.endErrLocked()
		t.mu.Unlock()
		return nil, err
	}
	if len(calls) == 0 {
		t.mu.Unlock()
		return []ToolBlock{}, nil
	}
	base := t.blocks.len()
	jobs := make([]job, len(calls))
	concurrent := len(calls) > 1
	size := 0
	for _, c := range calls {
		size += len(c.Args)
	}
	// One buffer holds the record's copy and the tool's copy of every
	// call's arguments.
	buf := make([]byte, 0, 2*size)
	clone := func(b []byte) json.RawMessage {
		if b == nil {
			return nil
		}
		start := len(buf)
		buf = append(buf, b...)
		return buf[start:len(buf):len(buf)]
	}
	for i, c := range calls {
		e, ok := t.tools.lookup(c.Name)
		concurrent = concurrent && ok && e.safe
		c.Args = clone(c.Args)
		jobs[i] = job{index: base + i, name: c.Name, tool: e.tool, args: clone(c.Args), native: isNative(e.tool)}
		t.blocks.add(ToolBlock{Call: c, Status: StatusPending})
	}
	t.changedLocked()
	t.mu.Unlock()
	t.deliver()

	if concurrent {
		t.runConcurrent(jobs)
	} else {
		t.runSequential(jobs)
	}
	return t.batch(base, len(calls))
}

// endNow ends the turn, whose context has ended, and returns Run's error.
func (t *Turn) endNow() error {
	t.end()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.endErrLocked()
}

// job is one call of a batch: where its block is and what runs it.
type job struct {
	index  int
	name   string
	tool   Tool // nil for a tool the registry does not hold
	args   json.RawMessage
	native bool // the tool may run on Run's goroutine
}

// isNative reports whether tool is a native tool, whose code is known to
// return at once when its context ends, by its concrete type: a type that
// embeds one may override Execute, so it is a user tool like any other.
func isNative(tool Tool) bool {
	switch tool.(type) {
	case SleepTool, *SleepTool:
		return true
	}
	return false
}

// outcome is what one Execute produced.
type outcome struct {
	index int
	res   ToolResult
	err   error
}

func (t *Turn) runSequential(jobs []job) {
	for _, j := range jobs {
		if !t.begin(j.index, j.index+1) {
			return
		}
		switch {
		case j.tool == nil:
			t.settle(outcome{index: j.index, res: t.unknown(j.name)})
		case j.native:
			t.settle(t.execute(j, nil))
		default:
			if t.single == nil {
				t.single = make(chan outcome, 1)
			}
			t.dispatch(j, t.single)
			if !t.await(t.single) {
				return
			}
		}
	}
}

func (t *Turn) runConcurrent(jobs []job) {
	if !t.begin(jobs[0].index, jobs[0].index+len(jobs)) {
		return
	}
	// The channel has room for every outcome, so that each goroutine moves
	// on even when nobody waits any more.
	results := make(chan outcome, len(jobs))
	for _, j := range jobs {
		t.dispatch(j, results)
	}
	for range jobs {
		if !t.await(results) {
			return
		}
	}
}

// await settles the next outcome from results, or, if the turn's context
// ends first, ends the turn and reports false. A tool still running then is
// abandoned: its outcome lands in the channel's room and is never read.
func (t *Turn) await(results <-chan outcome) bool {
	select {
	case o := <-results:
		t.settle(o)
		return true
	case <-t.ctx.Done():
		t.end()
		return false
	}
}

// execute runs one call, turning a panic into a failed outcome. On a
// goroutine of the turn's (results not nil) it also catches a tool that
// ends the goroutine without returning, and sends that outcome itself,
// since its caller never resumes.
func (t *Turn) execute(j job, results chan<- outcome) (o outcome) {
	o.index = j.index
	returned := false
	defer func() {
		if p := recover(); p != nil {
			o.res, o.err = ToolResult{Error: fmt.Sprintf("tool panicked: %v", p)}, nil
		} else if !returned && results != nil {
			results <- outcome{index: j.index, res: ToolResult{Error: exitedWithoutReturning}}
		}
	}()
	o.res, o.err = j.tool.Execute(&callContext{Context: t.ctx, t: t, index: j.index}, j.args)
	returned = true
	return o
}

const exitedWithoutReturning = "tool exited without returning: it ended its goroutine (runtime.Goexit, " +
	"as t.FailNow and testify's require do) instead of returning a result"

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
		b := t.blocks.at(i)
		b.Status, b.StartedAt = StatusRunning, now
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
	b := t.blocks.at(o.index)
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
func (t *Turn) unknown(name string) ToolResult {
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

// end ends the turn; it runs only once the turn's context is done (Close
// cancels it first). It cancels every unfinished block, then publishes the
// final snapshot.
func (t *Turn) end() {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.ended = true
	t.why = endedOf(t.ctx)
	t.releaseIdleLocked()
	if t.reaper != nil {
		t.reaper.Stop()
		t.reaper = nil
	}
	why, now := "", time.Time{}
	for i := range t.blocks.len() {
		if b := t.blocks.at(i); !b.Status.Finished() {
			if why == "" {
				why = cancelledBecause(t.why.cause)
				now = t.clock.Now()
			}
			b.Status, b.Result, b.EndedAt = StatusCancelled, ToolResult{Error: why}, now
		}
	}
	t.seq++
	if t.observer == nil {
		close(t.done)
	} else {
		t.queue = append(t.queue, t.finalLocked())
	}
	t.mu.Unlock()
	t.deliver()
}

// finalLocked returns a copy of the final snapshot; once the turn has
// ended its blocks never change. t.mu must be held.
func (t *Turn) finalLocked() Snapshot {
	return Snapshot{Seq: t.seq, Blocks: t.blocks.clone(0, t.blocks.len()), Final: true}
}

// endErrLocked is the error Run returns once the turn has ended: it wraps
// ErrTurnEnded, the context's error and, when it says more, the cause.
// t.mu must be held.
func (t *Turn) endErrLocked() error {
	return &turnEndedError{why: t.why}
}

type turnEndedError struct{ why contextEnded }

func (e *turnEndedError) Error() string   { return ErrTurnEnded.Error() + ": " + e.why.Error() }
func (e *turnEndedError) Unwrap() []error { return []error{ErrTurnEnded, e.why} }

// cancelReasons holds the Error of a block cancelled by the turn's end for
// the common causes, built once: a cancellation storm ends many turns.
// Wrapped causes say more than these, so they are matched by identity and
// otherwise keep their own words.
var cancelReasons = map[error]string{
	context.Canceled:         cancelPrefix + "context canceled)",
	context.DeadlineExceeded: cancelPrefix + "context deadline exceeded)",
	ErrTurnClosed:            cancelPrefix + "agenttool: turn closed)",
}

const cancelPrefix = "cancelled: the turn ended before the call finished ("

// cancelledBecause is the Error of a block cancelled by the turn's end.
func cancelledBecause(cause error) string {
	if why, ok := cancelReasons[cause]; ok {
		return why
	}
	return cancelPrefix + cause.Error() + ")"
}

// batch returns the blocks of one batch; if the turn ended, as they stand in
// the final snapshot once it has been delivered.
func (t *Turn) batch(base, n int) ([]ToolBlock, error) {
	t.mu.Lock()
	if !t.ended {
		defer t.mu.Unlock()
		return t.blocks.clone(base, base+n), nil
	}
	blocks, err := t.blocks.clone(base, base+n), t.endErrLocked()
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
	if stop != nil {
		stop()
	}
	t.cancel(ErrTurnClosed)
	t.end()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.finalLocked()
}

// Snapshot returns the current state of the turn, or the final snapshot once
// the turn has ended. It copies every block, so its cost grows with the turn.
func (t *Turn) Snapshot() Snapshot {
	if t.ctx.Err() != nil {
		t.end()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return t.finalLocked()
	}
	return Snapshot{Seq: t.seq, Blocks: t.blocks.clone(0, t.blocks.len())}
}

// Done returns a channel that is closed once the final snapshot has been
// published (delivered to OnSnapshot, when set).
func (t *Turn) Done() <-chan struct{} {
	t.mu.Lock()
	t.watchLocked()
	t.mu.Unlock()
	return t.done
}

// changedLocked records a change; t.mu must be held.
func (t *Turn) changedLocked() {
	t.seq++
	if t.observer != nil {
		t.queue = append(t.queue, Snapshot{Seq: t.seq, Blocks: t.blocks.clone(0, t.blocks.len())})
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
		t.delivered = queue[len(queue)-1].Seq
		if t.onDelivery != nil {
			close(t.onDelivery)
			t.onDelivery = nil
		}
		if final {
			close(t.done)
		}
	}
	t.delivering = false
	t.mu.Unlock()
}

// awaitDelivery returns once the snapshot numbered seq has been delivered
// to the observer, by this goroutine or the one delivering.
func (t *Turn) awaitDelivery(seq uint64) {
	t.deliver()
	for {
		t.mu.Lock()
		if t.observer == nil || t.delivered >= seq {
			t.mu.Unlock()
			return
		}
		if t.onDelivery == nil {
			t.onDelivery = make(chan struct{})
		}
		wait := t.onDelivery
		t.mu.Unlock()
		<-wait
	}
}

// callContext is the context a call's Execute receives: the turn's
// context, plus the listener of [ReportProgress] for the call's block. It
// is one allocation, on the path of every call.
type callContext struct {
	context.Context
	t     *Turn
	index int
}

func (c *callContext) Value(key any) any {
	if key == (progressKey{}) {
		return progressReporter(c)
	}
	return c.Context.Value(key)
}

// reportProgress records p on the call's block while the call runs, and
// returns once the snapshot that shows it has been delivered.
func (c *callContext) reportProgress(p Progress) {
	t := c.t
	t.mu.Lock()
	if t.ended || t.ctx.Err() != nil || t.blocks.at(c.index).Status != StatusRunning {
		t.mu.Unlock()
		return
	}
	t.blocks.at(c.index).Progress = p
	t.changedLocked()
	seq := t.seq
	t.mu.Unlock()
	t.awaitDelivery(seq)
}
