package agenttool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agenttool/agenttool"
)

// plainInteger is the oracle's own statement of the seconds lexeme.
var plainInteger = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// sleepOracle says, without sharing code with SleepTool, whether a call
// with args must succeed and for how many seconds: exactly when args is a
// valid JSON object whose case-sensitive "seconds" member is a plain integer
// literal from 0 to 86400.
func sleepOracle(args []byte) (seconds int, ok bool) {
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		return 0, false // treated as {}: seconds is missing
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return 0, false
	}
	raw, found := obj["seconds"]
	if !found || !plainInteger.Match(raw) {
		return 0, false
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n > 86400 {
		return 0, false
	}
	return n, true
}

func FuzzSleepArgs(f *testing.F) {
	for _, seed := range []string{
		`{"seconds":0}`, `{"seconds":86400}`, `{"seconds":86401}`, `{"seconds":-0}`, `{"seconds":1.0}`,
		`{"seconds":1e3}`, `{"seconds":"5"}`, `{"Seconds":5}`, `{"sec\u006fnds":7}`, `{"seconds":1,"seconds":2}`,
		`{"seconds":1}]`, `{"seconds":1} x`, `[1]`, `null`, ``, `{"a":{"seconds":3}}`, `{"seconds":07}`,
		`{"seconds":99999999999999999999}`, `{"seconds":18446744073709551621}`, `{"seconds":1e400}`, " {\"seconds\" :\t3 } ",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		want, ok := sleepOracle(args)
		// The bubble's fake clock lets a valid sleep of up to a day finish at once.
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			res, err := agenttool.SleepTool{}.Execute(context.Background(), json.RawMessage(args))
			if err != nil {
				t.Fatalf("Execute(%q) returned Go error %v", args, err)
			}
			if res.Success != ok {
				t.Fatalf("Execute(%q) success = %v, oracle says %v (result %+v)", args, res.Success, ok, res)
			}
			if ok {
				if wantOut := "Slept for " + strconv.Itoa(want) + " second(s)."; res.Output != wantOut {
					t.Fatalf("Execute(%q) output %q, want %q", args, res.Output, wantOut)
				}
				if slept := time.Since(start); slept != time.Duration(want)*time.Second {
					t.Fatalf("Execute(%q) slept %v, want %d s", args, slept, want)
				}
				return
			}
			if res.Error == "" || !bytes.Contains([]byte(res.Error), []byte("seconds")) {
				t.Fatalf("Execute(%q) failed without naming seconds: %q", args, res.Error)
			}
		})
	})
}

// FuzzTurn runs random batches of well- and badly-behaved tools with random
// arguments and a random cancel point, and checks the turn's invariants.
func FuzzTurn(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, uint16(1500), uint8(3))
	f.Add([]byte{3, 3, 3}, uint16(0), uint8(0))
	f.Add([]byte{1, 1, 255, 1, 1}, uint16(10), uint8(1))
	f.Add([]byte{6, 2, 6, 2, 6, 2}, uint16(60000), uint8(9))
	f.Fuzz(func(t *testing.T, program []byte, cancelAtMs uint16, closeAfter uint8) {
		if len(program) > 64 {
			program = program[:64]
		}
		synctest.Test(t, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			reg := mustRegistry(t, fuzzTools(release)...)
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(cancelAtMs)*time.Millisecond)
			defer cancel()

			var turn *agenttool.Turn
			var snaps []agenttool.Snapshot // OnSnapshot is never called concurrently
			turn = agenttool.NewTurn(ctx, reg, &agenttool.TurnOptions{OnSnapshot: func(s agenttool.Snapshot) {
				snaps = append(snaps, s)
				if closeAfter > 0 && len(snaps) == int(closeAfter) {
					turn.Close()
				}
			}})
			names := []string{"sleep", "ok", "okSafe", "panics", "goerr", "unsuccessful", "stubborn", "nope"}
			var batch []agenttool.ToolCall
			for i, op := range program {
				name := names[int(op)%len(names)]
				args := `{"seconds":` + strconv.Itoa(int(op)%3) + `}`
				if op >= 200 {
					args = string(program[i:]) // arbitrary bytes as arguments
				}
				batch = append(batch, agenttool.ToolCall{ID: strconv.Itoa(i), Name: name, Args: json.RawMessage(args)})
				if op%5 == 0 || i == len(program)-1 {
					blocks, err := turn.Run(batch)
					if len(blocks) != len(batch) && err == nil {
						t.Fatalf("Run returned %d blocks for %d calls", len(blocks), len(batch))
					}
					if err != nil && !errors.Is(err, agenttool.ErrTurnEnded) {
						t.Fatalf("Run returned %v, want nil or ErrTurnEnded", err)
					}
					batch = nil
				}
			}
			final := turn.Close()
			<-turn.Done()
			if problems := observedProblems(snaps, final); len(problems) > 0 {
				t.Fatal(problems)
			}
		})
	})
}

func fuzzTools(release <-chan struct{}) []agenttool.Tool {
	fn := func(name string, safe bool, f func(context.Context) (agenttool.ToolResult, error)) agenttool.Tool {
		return &agenttool.FuncTool{ToolName: name, ToolDescription: name, Schema: json.RawMessage(`{"type":"object"}`), Safe: safe,
			Fn: func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) { return f(ctx) }}
	}
	return []agenttool.Tool{
		agenttool.SleepTool{},
		fn("ok", false, func(context.Context) (agenttool.ToolResult, error) { return agenttool.OK("ok"), nil }),
		fn("okSafe", true, func(context.Context) (agenttool.ToolResult, error) { return agenttool.OK("ok"), nil }),
		fn("panics", true, func(context.Context) (agenttool.ToolResult, error) { panic("fuzz") }),
		fn("goerr", true, func(context.Context) (agenttool.ToolResult, error) {
			return agenttool.ToolResult{}, errors.New("fault")
		}),
		fn("unsuccessful", false, func(context.Context) (agenttool.ToolResult, error) { return agenttool.Failf("no"), nil }),
		fn("stubborn", false, func(context.Context) (agenttool.ToolResult, error) {
			select {
			case <-release:
			case <-time.After(2 * time.Second): // ignores its context
			}
			return agenttool.OK("late"), nil
		}),
	}
}
