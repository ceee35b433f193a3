package temporaltool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/agenttool/agenttool"
)

// callInput is the input of the activity that runs one call. The arguments
// travel as a string, not as JSON, so that arguments the model broke reach
// the tool byte for byte: a json.RawMessage that is not JSON cannot be
// encoded into the history.
type callInput struct {
	Tool string `json:"tool"`
	Args string `json:"args,omitempty"`
	// RawArgs carries arguments that are not valid UTF-8, which a JSON
	// string would change; then Args is empty.
	RawArgs []byte `json:"raw_args,omitempty"`
}

func inputOf(c agenttool.ToolCall) callInput {
	if utf8.Valid(c.Args) {
		return callInput{Tool: c.Name, Args: string(c.Args)}
	}
	return callInput{Tool: c.Name, RawArgs: c.Args}
}

func (in callInput) args() json.RawMessage {
	switch {
	case in.RawArgs != nil:
		return in.RawArgs
	case in.Args == "":
		return nil
	}
	return json.RawMessage(in.Args)
}

// callOutput is the result of the activity that runs one call: the tool's
// result and the last progress it reported, which the workflow records on
// the call's block.
type callOutput struct {
	Result   agenttool.ToolResult `json:"result"`
	Progress agenttool.Progress   `json:"progress,omitzero"`
}

// outcome is what one Execute produced.
type outcome struct {
	res agenttool.ToolResult
	err error
}

// execute is the activity that runs one call with this worker's tool.
//
// A tool's result, successful or not, is the activity's result, and so is a
// panic, as a failed result: the SDK retries a panicking activity without
// end. Only a Go error fails the activity, to be retried by the retry
// policy. The tool runs in a goroutine of its own while this one heartbeats,
// so that a cancellation reaches the tool's context, and so that the
// activity ends when its context does even if the tool ignores it. The
// latest progress the tool reported goes out with each heartbeat (where
// `temporal workflow describe` shows it) and with the result.
func (t *Turns) execute(ctx context.Context, in callInput) (callOutput, error) {
	tl, ok := t.tools[in.Tool]
	if !ok {
		return callOutput{Result: unknown(in.Tool, "on this worker", t.names)}, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var progress atomic.Pointer[agenttool.Progress]
	toolCtx := agenttool.WithProgress(ctx, func(p agenttool.Progress) { progress.Store(&p) })
	outcomes := make(chan outcome, 1)
	go run(toolCtx, tl, in.args(), outcomes)

	beat := time.NewTicker(heartbeatEvery(activity.GetInfo(ctx).HeartbeatTimeout))
	defer beat.Stop()
	for {
		select {
		case o := <-outcomes:
			if o.err != nil && ctx.Err() != nil {
				return callOutput{}, stopped(ctx)
			}
			out := callOutput{Result: o.res}
			if p := progress.Load(); p != nil {
				out.Progress = *p
			}
			return out, o.err
		case <-beat.C:
			if p := progress.Load(); p != nil {
				activity.RecordHeartbeat(ctx, *p)
			} else {
				activity.RecordHeartbeat(ctx)
			}
		case <-ctx.Done():
			return callOutput{}, stopped(ctx)
		}
	}
}

// stopped is the activity's error once its context has ended: the
// context's error, so that the SDK reports a cancellation as one, except
// when a heartbeat found that the server no longer holds the activity (its
// workflow closed or moved on), where no retry could complete it.
func stopped(ctx context.Context) error {
	var gone *serviceerror.NotFound
	if errors.As(context.Cause(ctx), &gone) {
		return temporal.NewNonRetryableApplicationError("temporaltool: the server no longer holds this call's activity", "ActivityGone", gone)
	}
	return ctx.Err()
}

// heartbeatEvery is how often a call with the given heartbeat timeout
// heartbeats; an activity scheduled without one (not by RunBatch) heartbeats
// as if it had the default.
func heartbeatEvery(timeout time.Duration) time.Duration {
	if timeout <= 0 {
		timeout = defaultHeartbeat
	}
	return max(timeout/heartbeatsPerTimeout, time.Millisecond)
}

// run executes one call and sends its outcome, turning a panic, or a
// goroutine that ends without returning (runtime.Goexit), into a failed
// result.
func run(ctx context.Context, tl agenttool.Tool, args json.RawMessage, out chan<- outcome) {
	returned := false
	defer func() {
		if returned {
			return
		}
		if p := recover(); p != nil {
			out <- outcome{res: agenttool.Failf("tool panicked: %v", p)}
			return
		}
		out <- outcome{res: agenttool.ToolResult{Error: exitedWithoutReturning}}
	}()
	res, err := tl.Execute(ctx, args)
	returned = true
	out <- outcome{res: res, err: err}
}

// exitedWithoutReturning is the Error of a call whose tool ended its
// goroutine without returning, worded as a Turn words it.
const exitedWithoutReturning = "tool exited without returning: it ended its goroutine (runtime.Goexit, " +
	"as t.FailNow and testify's require do) instead of returning a result"

// unknown is the result of a call to a tool that the registry does not
// hold, worded as a Turn words it; where says whose registry, when it is not
// the workflow's.
func unknown(name, where string, names []string) agenttool.ToolResult {
	if where != "" {
		where = " " + where
	}
	if len(names) == 0 {
		return agenttool.Failf("unknown tool %q%s: no tools are available", name, where)
	}
	const most = 32
	if len(names) > most {
		names = append(names[:most:most], "…")
	}
	return agenttool.Failf("unknown tool %q%s; available tools: %s", name, where, strings.Join(names, ", "))
}
