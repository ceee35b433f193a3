package temporaltool

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agenttool/agenttool"
)

// RunBatch runs one batch of calls, from one model response, inside any
// workflow, and returns their blocks in call order. Call it from the
// workflow's code with the workflow's context; from its first call on, the
// workflow answers [QuerySnapshot] with every block of every batch it ran
// so far (a batch of no calls only sets that up).
//
// The batch rule, statuses and records are those of [agenttool.Turn.Run]:
// the calls run concurrently when every one names a [agenttool.ConcurrencySafe]
// tool of the registry, otherwise one at a time in call order; a call to a
// tool the registry does not hold, an unsuccessful result or a panic fails
// its block at once, a Go error once the retry policy's attempts are spent,
// and the batch goes on. A call to an [agenttool.Waiter] whose arguments are
// valid is a durable workflow timer; every other call is an activity (see
// [Options]). Timestamps come from [workflow.Now]. Each call's arguments
// reach the tool exactly as given. A block's Progress is the last report of
// its tool, recorded when the call ends: a workflow does not see an
// activity's reports while it runs (its heartbeats carry them).
//
// When ctx is cancelled, every block still pending or running becomes
// [agenttool.StatusCancelled] with an Error saying why, and RunBatch returns
// the batch's blocks with an error wrapping [agenttool.ErrTurnEnded] and the
// SDK's [temporal.CanceledError], so that a workflow returning it ends as
// cancelled. On a context already cancelled it returns no blocks. Calls from
// several coroutines of one workflow run one batch at a time, in an order
// that replay repeats.
func (t *Turns) RunBatch(ctx workflow.Context, calls []agenttool.ToolCall) ([]agenttool.ToolBlock, error) {
	r, err := recordOf(ctx)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ended(ctx)
	}
	if !r.idle() {
		if err := workflow.Await(ctx, r.idle); err != nil {
			return nil, ended(ctx)
		}
	}
	if len(calls) == 0 {
		return []agenttool.ToolBlock{}, nil
	}
	r.setBusy(true)
	defer r.setBusy(false)

	base := r.add(calls)
	jobs := make([]job, len(calls))
	concurrent := len(calls) > 1
	for i, c := range calls {
		tl, known := t.tools[c.Name]
		concurrent = concurrent && known && tl.safe
		jobs[i] = job{index: base + i, call: c, tool: tl, known: known}
	}
	if concurrent {
		t.runConcurrent(ctx, r, jobs)
	} else {
		t.runSequential(ctx, r, jobs)
	}
	if ctx.Err() != nil {
		r.cancel(cancelledBecause(ctx.Err()), workflow.Now(ctx))
		return r.batch(base, len(calls)), ended(ctx)
	}
	return r.batch(base, len(calls)), nil
}

// turn is TurnWorkflow.
func (t *Turns) turn(ctx workflow.Context, calls []agenttool.ToolCall) (agenttool.Snapshot, error) {
	r, err := recordOf(ctx)
	if err != nil {
		return agenttool.Snapshot{}, err
	}
	_, err = t.RunBatch(ctx, calls)
	return r.finish(), err
}

// job is one call of a batch and where its block is.
type job struct {
	index int
	call  agenttool.ToolCall
	tool  tool
	known bool
}

// pending is a call waiting on its activity or its timer.
type pending struct {
	future workflow.Future
	timer  bool
	after  agenttool.ToolResult // a timer's result once it fires
}

// result waits for p and returns the call's result and last progress.
func (p pending) result(ctx workflow.Context) callOutput {
	if p.timer {
		if err := p.future.Get(ctx, nil); err != nil {
			return callOutput{Result: agenttool.ToolResult{Error: "tool error: " + err.Error()}}
		}
		return callOutput{Result: p.after}
	}
	var out callOutput
	if err := p.future.Get(ctx, &out); err != nil {
		return callOutput{Result: agenttool.ToolResult{Error: "tool error: " + describe(err)}}
	}
	return out
}

// begin starts one call. It returns the call's pending activity or timer,
// or, with done true, the result of a call that needs neither.
func (t *Turns) begin(ctx workflow.Context, j job) (p pending, res agenttool.ToolResult, done bool) {
	if !j.known {
		return p, unknown(j.call.Name, "", t.names), true
	}
	if j.tool.waiter != nil {
		d, res, ok := wait(j.tool.waiter, j.call.Args)
		if !ok || d <= 0 {
			return p, res, true
		}
		timer := workflow.NewTimerWithOptions(ctx, d, workflow.TimerOptions{Summary: j.call.Name})
		return pending{future: timer, timer: true, after: res}, agenttool.ToolResult{}, false
	}
	ao := t.activity
	if ao.Summary == "" {
		ao.Summary = j.call.Name
	}
	f := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, ao), executeActivity, inputOf(j.call))
	return pending{future: f}, res, false
}

// wait asks a Waiter about a call, turning a panic into a failed result.
func wait(w agenttool.Waiter, args json.RawMessage) (d time.Duration, res agenttool.ToolResult, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			d, res, ok = 0, agenttool.Failf("tool panicked: %v", p), false
		}
	}()
	return w.Wait(args)
}

func (t *Turns) runSequential(ctx workflow.Context, r *record, jobs []job) {
	for _, j := range jobs {
		if ctx.Err() != nil {
			return
		}
		r.start(j.index, j.index+1, workflow.Now(ctx))
		p, res, done := t.begin(ctx, j)
		out := callOutput{Result: res}
		if !done {
			out = p.result(ctx)
			if ctx.Err() != nil {
				return
			}
		}
		r.settle(j.index, out, workflow.Now(ctx))
	}
}

// runConcurrent starts every call at once and records each result as it
// comes, until all have come or ctx is cancelled.
func (t *Turns) runConcurrent(ctx workflow.Context, r *record, jobs []job) {
	r.start(jobs[0].index, jobs[0].index+len(jobs), workflow.Now(ctx))
	sel := workflow.NewSelector(ctx)
	waiting := 0
	for _, j := range jobs {
		p, res, done := t.begin(ctx, j)
		if done {
			r.settle(j.index, callOutput{Result: res}, workflow.Now(ctx))
			continue
		}
		waiting++
		sel.AddFuture(p.future, func(workflow.Future) {
			if out := p.result(ctx); ctx.Err() == nil {
				r.settle(j.index, out, workflow.Now(ctx))
			}
		})
	}
	for ; waiting > 0 && ctx.Err() == nil; waiting-- {
		sel.Select(ctx)
	}
}

// describe says why an activity failed in the words of its cause: for a
// tool's Go error, the error's own text, without the SDK's type; for a
// timeout, which wraps the last attempt's error, the timeout.
func describe(err error) string {
	var act *temporal.ActivityError
	if errors.As(err, &act) && act.Unwrap() != nil {
		err = act.Unwrap()
	}
	var timeout *temporal.TimeoutError
	var app *temporal.ApplicationError
	switch {
	case errors.As(err, &timeout):
		return timeout.Error()
	case errors.As(err, &app) && app.Unwrap() != nil:
		return app.Message() + ": " + app.Unwrap().Error()
	case errors.As(err, &app):
		return app.Message()
	}
	return err.Error()
}

// cancelledBecause is the Error of a block cancelled because the workflow
// was, worded as a Turn words it.
func cancelledBecause(cause error) string {
	return "cancelled: the turn ended before the call finished (" + cause.Error() + ")"
}

// ended is RunBatch's error once ctx is cancelled.
func ended(ctx workflow.Context) error {
	return fmt.Errorf("%w: %w", agenttool.ErrTurnEnded, ctx.Err())
}
