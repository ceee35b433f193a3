// Package tooltest checks that an [agenttool.Tool] obeys the contract that
// runtimes rely on, the way testing/slogtest checks a slog.Handler: one call
// runs many sub-tests, each failing with a message that says which rule the
// tool broke.
//
//	func TestWeatherTool(t *testing.T) {
//		tooltest.Run(t, func() agenttool.Tool { return NewWeatherTool(fakeBackend{}) })
//	}
//
// The checks need no valid arguments from the tool's author: where a call
// should get past validation, Run builds arguments from the tool's own
// schema. Calls that may do real work run inside a testing/synctest bubble,
// so that a tool waiting on the real clock finishes in fake time; newTool is
// called inside each bubble so that the tool's channels and timers belong to it.
package tooltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agenttool/agenttool"
)

// Run checks the tool that newTool returns against the [agenttool.Tool]
// contract:
//
//   - Metadata: a valid name, a non-empty description, and Parameters that
//     [agenttool.NewRegistry] accepts (a JSON object schema).
//   - Bad input: invalid JSON, JSON that is not an object, and trailing data
//     each give an unsuccessful result with an Error and a nil Go error;
//     nil, empty and `null` arguments behave like `{}`; huge and deeply
//     nested payloads give no panic and no Go error.
//   - Cancellation: with a context cancelled before the call, and with one
//     cancelled during it, Execute returns promptly, with a result or with an
//     error satisfying errors.Is(err, context.Canceled).
//   - Concurrency: a tool that says it is [agenttool.ConcurrencySafe] is
//     called from many goroutines at once; run the test with -race.
//
// A panic in Execute fails the sub-test that caused it, with the panic value.
func Run(t *testing.T, newTool func() agenttool.Tool) {
	t.Helper()
	if newTool() == nil {
		t.Fatal("tooltest: newTool returned nil")
	}
	t.Run("Metadata", func(t *testing.T) { checkMetadata(t, newTool()) })
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

// patience bounds, in the bubble's fake time, calls that are not meant to
// be cancelled: a tool that waits on its context rather than blocking for
// ever then ends, and a sleep of up to a day still completes.
const patience = 25 * time.Hour

// patientContext returns a context for a call inside a bubble.
func patientContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	t.Cleanup(cancel)
	return ctx
}

// outcome is what one Execute produced.
type outcome struct {
	res      agenttool.ToolResult
	err      error
	panicked any
}

func execute(ctx context.Context, tool agenttool.Tool, args json.RawMessage) (o outcome) {
	defer func() {
		if p := recover(); p != nil {
			o.panicked = p
		}
	}()
	o.res, o.err = tool.Execute(ctx, args)
	return o
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

func checkBadInput(t *testing.T, newTool func() agenttool.Tool) {
	for _, args := range []string{`{`, `{"a":}`, `not json`, `{"a":1}]`, `{"a":1} x`, `{} {}`, `[]`, `[{}]`, `"x"`, `5`, `true`, "\xff"} {
		t.Run(args, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := execute(patientContext(t), newTool(), json.RawMessage(args))
				switch {
				case o.panicked != nil:
					t.Errorf("Execute(%s) panicked: %v", describeArgs([]byte(args)), o.panicked)
				case o.err != nil:
					t.Errorf("Execute(%s) returned Go error %v; a bad call must be an unsuccessful result", describeArgs([]byte(args)), o.err)
				case o.res.Success:
					t.Errorf("Execute(%s) succeeded; arguments that are not a JSON object must be refused", describeArgs([]byte(args)))
				case strings.TrimSpace(o.res.Error) == "":
					t.Errorf("Execute(%s) failed with an empty Error; say what is wrong so the model can fix it", describeArgs([]byte(args)))
				}
			})
		})
	}
}

func checkEmptyArgs(t *testing.T, newTool func() agenttool.Tool) {
	synctest.Test(t, func(t *testing.T) {
		want := execute(patientContext(t), newTool(), json.RawMessage(`{}`))
		if want.panicked != nil {
			t.Fatalf("Execute({}) panicked: %v", want.panicked)
		}
		for _, args := range []json.RawMessage{nil, {}, json.RawMessage(`null`), json.RawMessage(" null ")} {
			got := execute(patientContext(t), newTool(), args)
			switch {
			case got.panicked != nil:
				t.Errorf("Execute(%s) panicked: %v; treat it as {}", describeArgs(args), got.panicked)
			case (got.err == nil) != (want.err == nil) || got.res.Success != want.res.Success:
				t.Errorf("Execute(%s) = %+v, %v; Execute({}) = %+v, %v; treat it as {}",
					describeArgs(args), got.res, got.err, want.res, want.err)
			}
		}
	})
}

func checkHugeInput(t *testing.T, newTool func() agenttool.Tool) {
	big := `{"` + strings.Repeat("k", 1<<10) + `":"` + strings.Repeat("v", 1<<20) + `"}`
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	wide := `{` + strings.Repeat(`"a":1,`, 100000) + `"a":2}`
	for name, args := range map[string]string{"1MiB string": big, "nested 100000 deep": deep, "100000 members": wide} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := execute(patientContext(t), newTool(), json.RawMessage(args))
				switch {
				case o.panicked != nil:
					t.Errorf("Execute(%s) panicked: %v", name, o.panicked)
				case o.err != nil:
					t.Errorf("Execute(%s) returned Go error %v; a bad call must be an unsuccessful result", name, o.err)
				case !o.res.Success && strings.TrimSpace(o.res.Error) == "":
					t.Errorf("Execute(%s) failed with an empty Error", name)
				}
			})
		})
	}
}

// candidateArgs are the arguments the cancellation and concurrency checks
// try: some built from the schema to get past validation, and `{}`.
func candidateArgs(tool agenttool.Tool) []json.RawMessage {
	return append(exampleArgs(tool.Parameters()), json.RawMessage(`{}`))
}

// checkCancel calls Execute with a context cancelled before the call, or,
// when during, once the call has started and blocked; either way Execute
// must have returned by the time everything else in the bubble is idle.
func checkCancel(t *testing.T, newTool func() agenttool.Tool, during bool) {
	for _, args := range candidateArgs(newTool()) {
		t.Run(string(args), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if !during {
					cancel()
				}
				done := make(chan outcome, 1)
				go func() { done <- execute(ctx, newTool(), args) }()
				synctest.Wait()
				if during {
					cancel()
					synctest.Wait()
				}
				select {
				case o := <-done:
					checkCancelled(t, args, o)
				default:
					when := "with a cancelled context"
					if during {
						when = "after its context was cancelled"
					}
					t.Errorf("Execute(%s) is still running %s: it must return promptly once ctx is done", args, when)
					<-done // let it finish in fake time so the bubble can end
				}
			})
		})
	}
}

func checkCancelled(t *testing.T, args json.RawMessage, o outcome) {
	t.Helper()
	switch {
	case o.panicked != nil:
		t.Errorf("Execute(%s) panicked: %v", args, o.panicked)
	case o.err != nil && !errors.Is(o.err, context.Canceled):
		t.Errorf("Execute(%s) after cancel returned %v; want a result or an error satisfying errors.Is(err, context.Canceled)", args, o.err)
	case o.err == nil && !o.res.Success && strings.TrimSpace(o.res.Error) == "":
		t.Errorf("Execute(%s) failed with an empty Error", args)
	}
}

func checkConcurrent(t *testing.T, newTool func() agenttool.Tool) {
	if !agenttool.IsConcurrencySafe(newTool()) {
		t.Skip("the tool is not ConcurrencySafe: a Turn runs it alone")
	}
	synctest.Test(t, func(t *testing.T) {
		ctx := patientContext(t)
		tool := newTool()
		args := append(candidateArgs(tool), json.RawMessage(`[]`), nil)
		var wg sync.WaitGroup
		results := make(chan string, 8*len(args))
		for range 8 {
			for _, a := range args {
				wg.Go(func() {
					if o := execute(ctx, tool, a); o.panicked != nil {
						results <- fmt.Sprintf("Execute(%s) panicked when called concurrently: %v", describeArgs(a), o.panicked)
					}
				})
			}
		}
		wg.Wait()
		close(results)
		for msg := range results {
			t.Error(msg)
		}
	})
}
