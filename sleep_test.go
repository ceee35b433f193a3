package agenttool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
)

func TestSleepMetadata(t *testing.T) {
	tool := agenttool.SleepTool{}
	assert.Equal(t, "sleep", tool.Name())
	assert.Contains(t, tool.Description(), "86400")
	assert.Contains(t, tool.Description(), "scheduler")
	assert.False(t, agenttool.IsConcurrencySafe(tool))

	var schema struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type    string   `json:"type"`
			Minimum *float64 `json:"minimum"`
			Maximum *float64 `json:"maximum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	require.NoError(t, json.Unmarshal(tool.Parameters(), &schema))
	assert.Equal(t, "object", schema.Type)
	seconds, ok := schema.Properties["seconds"]
	require.True(t, ok, "schema has no seconds property")
	assert.Equal(t, "integer", seconds.Type)
	require.NotNil(t, seconds.Minimum)
	require.NotNil(t, seconds.Maximum)
	assert.InDelta(t, 0, *seconds.Minimum, 0)
	assert.InDelta(t, agenttool.MaxSleepSeconds, *seconds.Maximum, 0)
	assert.Equal(t, []string{"seconds"}, schema.Required)
	assert.Equal(t, 86400, agenttool.MaxSleepSeconds)
}

// execute runs one sleep on mock in the background and returns a channel
// carrying its outcome.
type outcome struct {
	res agenttool.ToolResult
	err error
}

func execute(ctx context.Context, tool agenttool.Tool, args string) <-chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		res, err := tool.Execute(ctx, json.RawMessage(args))
		ch <- outcome{res, err}
	}()
	return ch
}

func TestSleepZeroReturnsAtOnceWithoutTimer(t *testing.T) {
	mock := clock.NewMock()
	start := mock.Now()
	for _, args := range []string{`{"seconds":0}`, ` { "seconds" : 0 } `, `{"seconds":0,"note":"x"}`} {
		res, err := agenttool.SleepTool{Clock: mock}.Execute(context.Background(), json.RawMessage(args))
		require.NoError(t, err, args)
		assert.Equal(t, agenttool.ToolResult{Success: true, Output: "Slept for 0 second(s)."}, res, args)
	}
	// WaitForAllTimers advances the mock to its last pending timer: the time
	// stays put only if no timer was ever armed and left behind.
	assert.Equal(t, start, mock.WaitForAllTimers())
}

func TestSleepWaitsOnTheInjectedClock(t *testing.T) {
	for _, n := range []int{1, 5, 120} {
		synctest.Test(t, func(t *testing.T) {
			mock := clock.NewMock()
			args := `{"seconds":` + itoa(n) + `}`
			done := execute(context.Background(), agenttool.SleepTool{Clock: mock}, args)
			synctest.Wait()

			mock.Add(time.Duration(n)*time.Second - time.Nanosecond)
			synctest.Wait()
			select {
			case o := <-done:
				t.Fatalf("sleep of %d s returned after %d s - 1ns: %+v", n, n, o)
			default:
			}

			mock.Add(time.Nanosecond)
			synctest.Wait()
			o := received(t, done, fmt.Sprintf("sleep of %d s still running after %d s", n, n))
			require.NoError(t, o.err)
			assert.Equal(t, agenttool.ToolResult{Success: true, Output: "Slept for " + itoa(n) + " second(s)."}, o.res)
		})
	}
}

func TestSleepOutputWording(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for n, want := range map[int]string{1: "Slept for 1 second(s).", 5: "Slept for 5 second(s)."} {
			mock := clock.NewMock()
			done := execute(context.Background(), agenttool.SleepTool{Clock: mock}, `{"seconds":`+itoa(n)+`}`)
			synctest.Wait()
			mock.Add(time.Duration(n) * time.Second)
			o := <-done
			require.NoError(t, o.err)
			assert.Equal(t, want, o.res.Output)
		}
	})
}

func TestSleepRealClockInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		res, err := agenttool.SleepTool{}.Execute(context.Background(), json.RawMessage(`{"seconds":3}`))
		require.NoError(t, err)
		assert.True(t, res.Success)
		assert.Equal(t, 3*time.Second, time.Since(start), "the bubble's fake clock measures the pause exactly")
	})
}

func TestSleepAcceptsBoundaryAndUnknownFields(t *testing.T) {
	cases := map[string]struct {
		args string
		n    int
	}{
		"max":                 {`{"seconds":86400}`, 86400},
		"one":                 {`{"seconds":1}`, 1},
		"unknown field":       {`{"seconds":2,"reason":"waiting for CI"}`, 2},
		"wrong-case is extra": {`{"Seconds":"x","seconds":3}`, 3},
		"nested unknown":      {`{"a":{"seconds":"no"},"b":[1,{"c":"}"}],"seconds":4}`, 4},
		"escaped key":         {`{"sec\u006fnds":5}`, 5},
		"last duplicate wins": {`{"seconds":"x","seconds":6}`, 6},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mock := clock.NewMock()
				done := execute(context.Background(), agenttool.SleepTool{Clock: mock}, tc.args)
				synctest.Wait()
				mock.Add(time.Duration(tc.n)*time.Second - time.Nanosecond)
				synctest.Wait()
				require.Empty(t, done, "returned early")
				mock.Add(time.Nanosecond)
				o := <-done
				require.NoError(t, o.err)
				assert.Equal(t, agenttool.ToolResult{Success: true, Output: "Slept for " + itoa(tc.n) + " second(s)."}, o.res)
			})
		})
	}
}

// badSleepArgs are arguments the sleep tool must refuse, by name.
var badSleepArgs = map[string]string{
	"missing":              `{}`,
	"nil args":             ``,
	"null args":            `null`,
	"null":                 `{"seconds":null}`,
	"negative":             `{"seconds":-1}`,
	"negative zero":        `{"seconds":-0}`,
	"fraction":             `{"seconds":1.5}`,
	"integral fraction":    `{"seconds":1.0}`,
	"exponent":             `{"seconds":1e3}`,
	"huge exponent":        `{"seconds":1e400}`,
	"huge integer":         `{"seconds":99999999999999999999}`,
	"wraps to 5 in int64":  `{"seconds":18446744073709551621}`,
	"leading zero":         `{"seconds":07}`,
	"string":               `{"seconds":"5"}`,
	"bool":                 `{"seconds":true}`,
	"array":                `{"seconds":[]}`,
	"object":               `{"seconds":{}}`,
	"above cap":            `{"seconds":86401}`,
	"wrong case":           `{"Seconds":5}`,
	"array args":           `[1]`,
	"string args":          `"x"`,
	"number args":          `5`,
	"invalid JSON":         `{"seconds":`,
	"not JSON":             `seconds=5`,
	"trailing bracket":     `{"seconds":1}]`,
	"trailing word":        `{"seconds":1} x`,
	"two objects":          `{"seconds":1}{"seconds":2}`,
	"invalid UTF-8 string": "{\"seconds\":\"\xff\xfe\"}",
	"long string":          `{"seconds":"ééééééééééééééééééééééééééééééééééé"}`,
}

func TestSleepRejectsBadArguments(t *testing.T) {
	for name, args := range badSleepArgs {
		t.Run(name, func(t *testing.T) {
			mock := clock.NewMock()
			start := mock.Now()
			var raw json.RawMessage
			if args != "" {
				raw = json.RawMessage(args)
			}
			// A cancelled context: arguments are judged first, so a refusal
			// is still a result, while a value wrongly accepted ends in a
			// Go error at once instead of waiting on the mock for ever.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			res, err := agenttool.SleepTool{Clock: mock}.Execute(ctx, raw)
			require.NoError(t, err, "accepted %s", args)
			assert.False(t, res.Success)
			assert.Empty(t, res.Output)
			assert.Contains(t, res.Error, "seconds")
			assert.Contains(t, res.Error, "0 to 86400")
			assert.True(t, utf8Valid(res.Error), "error is valid UTF-8: %q", res.Error)
			assert.LessOrEqual(t, len(res.Error), 160, "error stays short")
			assert.Equal(t, start, mock.WaitForAllTimers(), "no timer armed")
		})
	}
}

func TestSleepCancellation(t *testing.T) {
	cases := map[string]struct {
		end  func(*testing.T) (context.Context, func())
		want error
	}{
		"cancel": {
			end: func(t *testing.T) (context.Context, func()) {
				ctx, cancel := context.WithCancel(t.Context())
				return ctx, cancel
			},
			want: context.Canceled,
		},
		"deadline": {
			end: func(t *testing.T) (context.Context, func()) {
				// The bubble's fake time expires the deadline as soon as
				// every goroutine is blocked, with no real waiting.
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				t.Cleanup(cancel)
				return ctx, func() { time.Sleep(time.Minute + time.Second) }
			},
			want: context.DeadlineExceeded,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mock := clock.NewMock()
				start := mock.Now()
				ctx, end := tc.end(t)
				done := execute(ctx, agenttool.SleepTool{Clock: mock}, `{"seconds":86400}`)
				synctest.Wait()
				require.Empty(t, done, "sleep returned before its context ended")

				end()
				synctest.Wait()
				o := received(t, done, "sleep did not return once its context ended")
				require.ErrorIs(t, o.err, tc.want)
				assert.Equal(t, agenttool.ToolResult{}, o.res)
				assert.Equal(t, start, mock.WaitForAllTimers(), "the timer was stopped and released")
			})
		})
	}
}

func TestSleepCancellationCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errStop := errors.New("user pressed stop")
		ctx, cancel := context.WithCancelCause(t.Context())
		done := execute(ctx, agenttool.SleepTool{Clock: clock.NewMock()}, `{"seconds":10}`)
		synctest.Wait()
		cancel(errStop)
		o := <-done
		require.ErrorIs(t, o.err, context.Canceled)
		require.ErrorIs(t, o.err, errStop)
	})
}

func TestSleepAlreadyCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mock := clock.NewMock()
	start := mock.Now()
	_, err := agenttool.SleepTool{Clock: mock}.Execute(ctx, json.RawMessage(`{"seconds":10}`))
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, start, mock.WaitForAllTimers())
}

func TestMaxSleepSecondsMatchesTheValidator(t *testing.T) {
	res, err := agenttool.SleepTool{}.Execute(context.Background(), json.RawMessage(`{"seconds":`+itoa(agenttool.MaxSleepSeconds+1)+`}`))
	require.NoError(t, err)
	assert.False(t, res.Success, "one past the cap is refused")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = agenttool.SleepTool{}.Execute(ctx, json.RawMessage(`{"seconds":`+itoa(agenttool.MaxSleepSeconds)+`}`))
	require.ErrorIs(t, err, context.Canceled, "the cap itself is accepted (and then cancelled)")
}

// TestSleepWaitAgreesWithExecute checks the Waiter contract: for refused
// arguments Wait gives exactly Execute's result; for accepted ones Execute
// waits exactly d on its clock and then returns Wait's result.
func TestSleepWaitAgreesWithExecute(t *testing.T) {
	for name, args := range badSleepArgs {
		t.Run(name, func(t *testing.T) {
			tool := agenttool.SleepTool{Clock: clock.NewMock()}
			d, res, ok := tool.Wait(json.RawMessage(args))
			require.False(t, ok)
			assert.Zero(t, d)
			got, err := tool.Execute(context.Background(), json.RawMessage(args))
			require.NoError(t, err)
			assert.Equal(t, got, res)
			_, estimated := tool.Estimate(json.RawMessage(args))
			assert.False(t, estimated, "no estimate for refused arguments")
		})
	}
	for _, n := range []int{0, 1, 7, 3600, agenttool.MaxSleepSeconds} {
		t.Run(itoa(n), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mock := clock.NewMock()
				tool := agenttool.SleepTool{Clock: mock}
				args := json.RawMessage(`{"seconds":` + itoa(n) + `,"why":"x"}`)
				d, res, ok := tool.Wait(args)
				require.True(t, ok)
				assert.Equal(t, time.Duration(n)*time.Second, d)
				estimate, estimated := tool.Estimate(args)
				assert.True(t, estimated)
				assert.Equal(t, d, estimate)

				done := execute(context.Background(), tool, string(args))
				synctest.Wait()
				if d > 0 {
					mock.Add(d - time.Nanosecond)
					synctest.Wait()
					require.Empty(t, done, "Execute returned before d had passed")
					mock.Add(time.Nanosecond)
					synctest.Wait()
				}
				o := received(t, done, "Execute still waits once d has passed")
				require.NoError(t, o.err)
				assert.Equal(t, res, o.res)
			})
		})
	}
}
