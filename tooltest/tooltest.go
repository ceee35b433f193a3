// Package tooltest checks that an [agenttool.Tool] obeys the contract that
// runtimes rely on, the way testing/slogtest checks a slog.Handler: one call
// runs many sub-tests, each failing with a message that says which rule the
// tool broke.
//
//	func TestWeatherTool(t *testing.T) {
//		tooltest.Run(t, func(t *testing.T) agenttool.Tool {
//			srv := httptest.NewServer(fakeBackend{})
//			t.Cleanup(srv.Close)
//			return NewWeatherTool(srv.URL)
//		})
//	}
//
// The checks need no valid arguments from the tool's author: where a call
// should get past validation, Run builds arguments from the tool's own
// schema. Calls run on the real clock, outside any testing/synctest bubble,
// so that tools doing real I/O (HTTP, files, processes) work as they do in
// production; every wait is bounded, and a call that does not return in
// time fails its sub-test with a message instead of hanging it. A tool that
// waits long on valid arguments should be built on a short or fake clock in
// newTool.
package tooltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttool/agenttool"
)

// The bounds of the checks, in real time.
const (
	// CallLimit is how long a call that nobody cancels may take: its
	// context's deadline, after which a tool must return as if cancelled.
	CallLimit = 5 * time.Second
	// CancelLimit is how long a call may take to return once its context
	// is cancelled.
	CancelLimit = 2 * time.Second
	// startGrace is how long a call runs before CancelledDuring cancels it.
	startGrace = 20 * time.Millisecond
)

// Run checks the tool that newTool returns against the [agenttool.Tool]
// contract. newTool is called with each sub-test's *testing.T, so that a
// tool can register its cleanup per sub-test (t.Cleanup) and fail it.
//
//   - Metadata: a valid name, a non-empty description, and Parameters that
//     [agenttool.NewRegistry] accepts (a JSON object schema).
//   - Bad input: invalid JSON, JSON that is not an object, and trailing data
//     each give an unsuccessful result with an Error and a nil Go error;
//     nil, empty and `null` arguments behave like `{}`; huge and deeply
//     nested payloads give no panic and no Go error.
//   - Cancellation: with a context cancelled before the call, and with one
//     cancelled while it runs, Execute returns within [CancelLimit], with a
//     result or with an error satisfying errors.Is(err, context.Canceled).
//   - Concurrency: a tool that says it is [agenttool.ConcurrencySafe] is
//     called from many goroutines at once; run the test with -race.
//
// A call that nobody cancels gets a context that ends after [CallLimit].
// A panic in Execute, a call that ends its goroutine without returning, and
// a call that does not return in time each fail the sub-test that made it.
func Run(t *testing.T, newTool func(*testing.T) agenttool.Tool) {
	t.Helper()
	if newTool(t) == nil {
		t.Fatal("tooltest: newTool returned nil")
	}
	t.Run("Metadata", func(t *testing.T) { checkMetadata(t, newTool(t)) })
	t.Run("BadInput", func(t *testing.T) { checkBadInput(t, newTool) })
	t.Run("EmptyArgs", func(t *testing.T) { checkEmptyArgs(t, newTool) })
	t.Run("HugeInput", func(t *testing.T) { checkHugeInput(t, newTool) })
	t.Run("CancelledBefore", func(t *testing.T) { checkCancel(t, newTool, false) })
	t.Run("CancelledDuring", func(t *testing.T) { checkCancel(t, newTool, true) })
	t.Run("Concurrent", func(t *testing.T) { checkConcurrent(t, newTool) })
}

func checkMetadata(t *testing.T, tool agenttool.Tool) {
	if name := tool.Name(); !agenttool.ValidName(name) {
		t.Errorf("Name() = %q: want 1 to 64 ASCII letters, digits, '_' or '-'", name)
	}
	if strings.TrimSpace(tool.Description()) == "" {
		t.Error("Description() is empty: the model reads it to decide when to call the tool")
	}
	if _, err := agenttool.NewRegistry(tool); err != nil {
		t.Errorf("NewRegistry rejects the tool: %v", err)
	}
}

// limitedContext returns a context for a call that nobody cancels.
func limitedContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), CallLimit)
	t.Cleanup(cancel)
	return ctx
}

// outcome is what one Execute produced.
type outcome struct {
	res      agenttool.ToolResult
	err      error
	panicked any
	exited   bool // the tool ended its goroutine without returning
}

// start runs Execute in a goroutine of its own; its outcome arrives on the
// returned channel, which has room for it.
func start(ctx context.Context, tool agenttool.Tool, args json.RawMessage) <-chan outcome {
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		returned := false
		defer func() {
			if p := recover(); p != nil {
				o.panicked = p
			} else if !returned {
				o.exited = true
			}
			done <- o
		}()
		o.res, o.err = tool.Execute(ctx, args)
		returned = true
	}()
	return done
}

// await waits for a call's outcome at most limit; false means it did not
// come in time (the call is abandoned).
func await(done <-chan outcome, limit time.Duration) (outcome, bool) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case o := <-done:
		return o, true
	case <-timer.C:
		return outcome{}, false
	}
}

// execute runs one call that nobody cancels and waits for it, failing t
// (and reporting false) when it panics, exits or does not return in time.
func execute(t *testing.T, tool agenttool.Tool, args json.RawMessage) (outcome, bool) {
	t.Helper()
	o, ok := await(start(limitedContext(t), tool, args), CallLimit+CancelLimit)
	switch {
	case !ok:
		t.Errorf("Execute(%s) did not return within %v, although its context ended after %v: it must return promptly once ctx is done",
			describeArgs(args), CallLimit+CancelLimit, CallLimit)
	case o.panicked != nil:
		t.Errorf("Execute(%s) panicked: %v", describeArgs(args), o.panicked)
	case o.exited:
		t.Errorf("Execute(%s) ended its goroutine without returning (runtime.Goexit)", describeArgs(args))
	default:
		return o, true
	}
	return o, false
}

// describeArgs shortens arguments for a failure message.
func describeArgs(args []byte) string {
	if args == nil {
		return "nil"
	}
	if len(args) > 40 {
		return fmt.Sprintf("%q… (%d bytes)", args[:40], len(args))
	}
	return fmt.Sprintf("%q", args)
}

func checkBadInput(t *testing.T, newTool func(*testing.T) agenttool.Tool) {
	for _, args := range []string{`{`, `{"a":}`, `not json`, `{"a":1}]`, `{"a":1} x`, `{} {}`, `[]`, `[{}]`, `"x"`, `5`, `true`, "\xff"} {
		t.Run(args, func(t *testing.T) {
			o, ok := execute(t, newTool(t), json.RawMessage(args))
			switch {
			case !ok:
			case o.err != nil:
				t.Errorf("Execute(%s) returned Go error %v; a bad call must be an unsuccessful result", describeArgs([]byte(args)), o.err)
			case o.res.Success:
				t.Errorf("Execute(%s) succeeded; arguments that are not a JSON object must be refused", describeArgs([]byte(args)))
			case strings.TrimSpace(o.res.Error) == "":
				t.Errorf("Execute(%s) failed with an empty Error; say what is wrong so the model can fix it", describeArgs([]byte(args)))
			}
		})
	}
}

// checkEmptyArgs compares nil, empty and null arguments with `{}`. The calls
// run at the same time (Execute may be called concurrently), so that a tool
// which waits until its context ends costs one CallLimit, not five.
func checkEmptyArgs(t *testing.T, newTool func(*testing.T) agenttool.Tool) {
	tool := newTool(t)
	ctx := limitedContext(t)
	all := []json.RawMessage{json.RawMessage(`{}`), nil, {}, json.RawMessage(`null`), json.RawMessage(" null ")}
	calls := make([]<-chan outcome, len(all))
	for i, args := range all {
		calls[i] = start(ctx, tool, args)
	}
	deadline := time.Now().Add(CallLimit + CancelLimit)
	outcomes := make([]outcome, len(all))
	for i, args := range all {
		o, ok := await(calls[i], time.Until(deadline))
		switch {
		case !ok:
			t.Errorf("Execute(%s) did not return within %v, although its context ended after %v", describeArgs(args), CallLimit+CancelLimit, CallLimit)
			return
		case o.panicked != nil:
			t.Errorf("Execute(%s) panicked: %v; treat it as {}", describeArgs(args), o.panicked)
			return
		case o.exited:
			t.Errorf("Execute(%s) ended its goroutine without returning (runtime.Goexit)", describeArgs(args))
			return
		}
		outcomes[i] = o
	}
	want := outcomes[0]
	for i, got := range outcomes[1:] {
		if (got.err == nil) != (want.err == nil) || got.res.Success != want.res.Success {
			t.Errorf("Execute(%s) = %+v, %v; Execute({}) = %+v, %v; treat it as {}",
				describeArgs(all[i+1]), got.res, got.err, want.res, want.err)
		}
	}
}

func checkHugeInput(t *testing.T, newTool func(*testing.T) agenttool.Tool) {
	big := `{"` + strings.Repeat("k", 1<<10) + `":"` + strings.Repeat("v", 1<<20) + `"}`
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	wide := `{` + strings.Repeat(`"a":1,`, 100000) + `"a":2}`
	for name, args := range map[string]string{"1MiB string": big, "nested 100000 deep": deep, "100000 members": wide} {
		t.Run(name, func(t *testing.T) {
			o, ok := execute(t, newTool(t), json.RawMessage(args))
			switch {
			case !ok:
			case o.err != nil:
				t.Errorf("Execute(%s) returned Go error %v; a bad call must be an unsuccessful result", name, o.err)
			case !o.res.Success && strings.TrimSpace(o.res.Error) == "":
				t.Errorf("Execute(%s) failed with an empty Error", name)
			}
		})
	}
}

// candidateArgs are the arguments the cancellation and concurrency checks
// try: some built from the schema to get past validation, and `{}`.
func candidateArgs(tool agenttool.Tool) []json.RawMessage {
	args := exampleArgs(tool.Parameters())
	if !slices.ContainsFunc(args, func(a json.RawMessage) bool { return string(a) == "{}" }) {
		args = append(args, json.RawMessage(`{}`))
	}
	return args
}

// checkCancel calls Execute with a context cancelled before the call, or,
// when during, cancelled once the call has run for a moment (or at once
// when it has already returned); either way Execute must return within
// CancelLimit of the cancellation.
func checkCancel(t *testing.T, newTool func(*testing.T) agenttool.Tool, during bool) {
	for _, args := range candidateArgs(newTool(t)) {
		t.Run(string(args), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if !during {
				cancel()
			}
			done := start(ctx, newTool(t), args)
			if during {
				if o, ok := await(done, startGrace); ok {
					// It finished before it could be cancelled: judge that.
					checkCancelled(t, args, o)
					return
				}
				cancel()
			}
			o, ok := await(done, CancelLimit)
			if !ok {
				when := "with a cancelled context"
				if during {
					when = "after its context was cancelled"
				}
				t.Errorf("Execute(%s) is still running %v %s: it must return promptly once ctx is done", args, CancelLimit, when)
				return
			}
			checkCancelled(t, args, o)
		})
	}
}

func checkCancelled(t *testing.T, args json.RawMessage, o outcome) {
	t.Helper()
	switch {
	case o.panicked != nil:
		t.Errorf("Execute(%s) panicked: %v", args, o.panicked)
	case o.exited:
		t.Errorf("Execute(%s) ended its goroutine without returning (runtime.Goexit)", args)
	case o.err != nil && !errors.Is(o.err, context.Canceled):
		t.Errorf("Execute(%s) after cancel returned %v; want a result or an error satisfying errors.Is(err, context.Canceled)", args, o.err)
	case o.err == nil && !o.res.Success && strings.TrimSpace(o.res.Error) == "":
		t.Errorf("Execute(%s) failed with an empty Error", args)
	}
}

func checkConcurrent(t *testing.T, newTool func(*testing.T) agenttool.Tool) {
	tool := newTool(t)
	if !agenttool.IsConcurrencySafe(tool) {
		t.Skip("the tool is not ConcurrencySafe: a Turn runs it alone")
	}
	ctx := limitedContext(t)
	args := append(candidateArgs(tool), json.RawMessage(`[]`), nil)
	var calls []<-chan outcome
	var names []json.RawMessage
	for range 8 {
		for _, a := range args {
			calls = append(calls, start(ctx, tool, a))
			names = append(names, a)
		}
	}
	deadline := time.NewTimer(CallLimit + CancelLimit)
	defer deadline.Stop()
	for i, done := range calls {
		select {
		case o := <-done:
			switch {
			case o.panicked != nil:
				t.Errorf("Execute(%s) panicked when called concurrently: %v", describeArgs(names[i]), o.panicked)
			case o.exited:
				t.Errorf("Execute(%s) ended its goroutine without returning when called concurrently", describeArgs(names[i]))
			}
		case <-deadline.C:
			t.Errorf("%d concurrent calls did not return within %v, although their context ended after %v", len(calls)-i, CallLimit+CancelLimit, CallLimit)
			return
		}
	}
}
