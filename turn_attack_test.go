package agenttool_test

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
)

func funcTool(name string, safe bool, fn func(ctx context.Context, args json.RawMessage) (agenttool.ToolResult, error)) *agenttool.FuncTool {
	return &agenttool.FuncTool{ToolName: name, ToolDescription: name, Schema: json.RawMessage(`{"type":"object"}`), Fn: fn, Safe: safe}
}

func okTool(name string, safe bool) *agenttool.FuncTool {
	return funcTool(name, safe, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { return agenttool.OK(name), nil })
}

// TestTurnToolThatExitsWithoutReturning: runtime.Goexit (what t.FailNow and
// require do) inside a tool must not hang Run; the block fails and the
// batch goes on, in sequential and concurrent batches.
func TestTurnToolThatExitsWithoutReturning(t *testing.T) {
	for _, safe := range []bool{false, true} {
		name := "sequential"
		if safe {
			name = "concurrent"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				exits := funcTool("exits", safe, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
					runtime.Goexit()
					return agenttool.OK("unreachable"), nil
				})
				reg := mustRegistry(t, exits, okTool("ok", safe))
				turn := agenttool.NewTurn(context.Background(), reg, nil)
				defer turn.Close()
				done := runAsync(turn, call("1", "exits", `{}`), call("2", "ok", `{}`), call("3", "exits", `{}`))
				synctest.Wait()
				r := received(t, done, "Run hangs after a tool ended its goroutine")
				require.NoError(t, r.err)
				assert.Equal(t, []agenttool.ToolStatus{failed, succeeded, failed}, statuses(r.blocks))
				assert.Contains(t, r.blocks[0].Result.Error, "exited without returning")
				assert.Equal(t, "ok", r.blocks[1].Result.Output)
				if !safe {
					assert.False(t, r.blocks[1].StartedAt.Before(r.blocks[0].EndedAt), "the batch went on after the exit")
				}
			})
		})
	}
}

// embeddedSleep embeds SleepTool and overrides Execute: it is a user tool,
// not the native one, whatever methods it inherits.
type embeddedSleep struct {
	agenttool.SleepTool
	run func(ctx context.Context) (agenttool.ToolResult, error)
}

func (e embeddedSleep) Execute(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
	return e.run(ctx)
}

type embeddedSleepPtr struct {
	*agenttool.SleepTool
	run func(ctx context.Context) (agenttool.ToolResult, error)
}

func (e *embeddedSleepPtr) Execute(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
	return e.run(ctx)
}

func TestTurnEmbeddedSleepIsAUserTool(t *testing.T) {
	for _, ptr := range []bool{false, true} {
		t.Run(map[bool]string{false: "value", true: "pointer"}[ptr], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				stubborn := func(context.Context) (agenttool.ToolResult, error) {
					<-release // ignores its context
					return agenttool.OK("late"), nil
				}
				exits := func(context.Context) (agenttool.ToolResult, error) {
					runtime.Goexit()
					return agenttool.ToolResult{}, nil
				}
				wrap := func(run func(context.Context) (agenttool.ToolResult, error)) agenttool.Tool {
					if ptr {
						return &embeddedSleepPtr{SleepTool: &agenttool.SleepTool{}, run: run}
					}
					return embeddedSleep{run: run}
				}

				// A Goexit in the wrapper cannot end the caller's goroutine.
				turn := agenttool.NewTurn(context.Background(), mustRegistry(t, wrap(exits)), nil)
				blocks, err := turn.Run([]agenttool.ToolCall{sleepCall("1", 5)})
				require.NoError(t, err)
				assert.Equal(t, failed, blocks[0].Status)
				turn.Close()

				// A wrapper that ignores its context cannot hold Run.
				ctx, cancel := context.WithCancel(context.Background())
				turn = agenttool.NewTurn(ctx, mustRegistry(t, wrap(stubborn)), nil)
				defer turn.Close()
				done := runAsync(turn, sleepCall("1", 5))
				synctest.Wait()
				cancel()
				synctest.Wait()
				r := received(t, done, "Run waits for a stubborn tool that embeds SleepTool")
				require.ErrorIs(t, r.err, agenttool.ErrTurnEnded)
				assert.Equal(t, cancelled, r.blocks[0].Status)
				close(release)
			})
		})
	}
}

// TestTurnToolGetsItsOwnArguments: whatever a tool writes into args
// changes nothing in the record.
func TestTurnToolGetsItsOwnArguments(t *testing.T) {
	for _, safe := range []bool{false, true} {
		scribble := funcTool("scribble", safe, func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			for i := range args {
				args[i] = 'X'
			}
			return agenttool.OK(string(args)), nil
		})
		rec := &recorder{}
		turn := agenttool.NewTurn(context.Background(), mustRegistry(t, scribble), &agenttool.TurnOptions{OnSnapshot: rec.observe})
		original := []agenttool.ToolCall{call("1", "scribble", `{"a":1}`), call("2", "scribble", `{"b":2}`)}
		blocks, err := turn.Run(original)
		require.NoError(t, err)
		assert.Equal(t, "XXXXXXX", blocks[0].Result.Output, "the tool wrote into its copy")
		final := turn.Close()
		for _, s := range append(rec.all(), final) {
			for i, b := range s.Blocks {
				assert.Equal(t, string(original[i].Args), string(b.Call.Args), "snapshot %d block %d", s.Seq, i)
			}
		}
		for i, b := range blocks {
			assert.Equal(t, string(original[i].Args), string(b.Call.Args))
		}
		assert.JSONEq(t, `{"a":1}`, string(original[0].Args), "the caller's slice is untouched")
	}
}

// TestTurnRunsOneBatchAtATime: Run from several goroutines never runs a
// tool that is not concurrency safe next to itself.
func TestTurnRunsOneBatchAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var active, most atomic.Int32
		slow := funcTool("slow", false, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
			n := active.Add(1)
			defer active.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(time.Second) // fake time
			return agenttool.OK("slow"), nil
		})
		turn := agenttool.NewTurn(context.Background(), mustRegistry(t, slow), nil)
		defer turn.Close()
		start := time.Now()
		var wg sync.WaitGroup
		results := make([]runResult, 5)
		for i := range results {
			wg.Go(func() {
				blocks, err := turn.Run([]agenttool.ToolCall{call(itoa(i), "slow", `{}`)})
				results[i] = runResult{blocks, err}
			})
		}
		wg.Wait()
		for _, r := range results {
			require.NoError(t, r.err)
			assert.Equal(t, []agenttool.ToolStatus{succeeded}, statuses(r.blocks))
		}
		assert.Equal(t, int32(1), most.Load(), "two batches ran at once")
		assert.Equal(t, 5*time.Second, time.Since(start), "five one-second batches, one after another")
		assert.Len(t, turn.Snapshot().Blocks, 5)
	})
}

func TestTurnWaitingRunReturnsWhenTheTurnEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		ctx, cancel := context.WithCancel(context.Background())
		turn := agenttool.NewTurn(ctx, mustRegistry(t, agenttool.DefaultToolsWithClock(mock)...), nil)
		defer turn.Close()
		first := runAsync(turn, sleepCall("1", 60))
		synctest.Wait()
		second := runAsync(turn, sleepCall("2", 1))
		synctest.Wait()
		require.Empty(t, second, "the second Run waits for the first batch")
		assert.Len(t, turn.Snapshot().Blocks, 1, "the waiting batch is not added yet")
		cancel()
		synctest.Wait()
		r1 := received(t, first, "the first Run still runs")
		r2 := received(t, second, "the waiting Run did not return when the turn ended")
		require.ErrorIs(t, r1.err, agenttool.ErrTurnEnded)
		require.ErrorIs(t, r2.err, agenttool.ErrTurnEnded)
		require.ErrorIs(t, r2.err, context.Canceled)
		assert.Empty(t, r2.blocks)
		assert.Equal(t, []agenttool.ToolStatus{cancelled}, statuses(turn.Snapshot().Blocks))
	})
}

// TestTurnInABubbleWithUserTools: user tools that wait on the bubble's fake
// clock, across several batches (so goroutines are reused), with the turn
// created inside the bubble; every goroutine ends with the turn.
func TestTurnInABubbleWithUserTools(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wait := funcTool("wait", true, func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
			select {
			case <-time.After(time.Minute):
				return agenttool.OK("waited"), nil
			case <-ctx.Done():
				return agenttool.ToolResult{}, ctx.Err()
			}
		})
		turn := agenttool.NewTurn(context.Background(), mustRegistry(t, wait), nil)
		start := time.Now()
		for range 3 {
			blocks, err := turn.Run([]agenttool.ToolCall{call("a", "wait", `{}`), call("b", "wait", `{}`)})
			require.NoError(t, err)
			assert.Equal(t, []agenttool.ToolStatus{succeeded, succeeded}, statuses(blocks))
		}
		assert.Equal(t, 3*time.Minute, time.Since(start), "each batch ran its two calls together")
		done := runAsync(turn, call("c", "wait", `{}`), call("d", "wait", `{}`))
		synctest.Wait()
		final := turn.Close()
		r := <-done
		require.ErrorIs(t, r.err, agenttool.ErrTurnClosed)
		assert.Equal(t, []agenttool.ToolStatus{cancelled, cancelled}, statuses(r.blocks))
		checkFinal(t, final)
		// synctest.Test fails if a goroutine of the turn is left behind.
	})
}

// TestTurnOnTheBubblesContext: a turn on t.Context() ends with the bubble's
// test, so its idle goroutines end too, without a Close.
func TestTurnOnTheBubblesContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		turn := agenttool.NewTurn(t.Context(), mustRegistry(t, okTool("ok", true)), nil)
		blocks, err := turn.Run([]agenttool.ToolCall{call("1", "ok", `{}`), call("2", "ok", `{}`)})
		require.NoError(t, err)
		assert.Equal(t, []agenttool.ToolStatus{succeeded, succeeded}, statuses(blocks))
	})
}

func TestTurnProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		late := make(chan context.Context, 1)
		steps := funcTool("steps", false, func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
			agenttool.ReportProgress(ctx, agenttool.Progress{Done: 1, Total: 3, Message: "one"})
			agenttool.ReportProgress(ctx, agenttool.Progress{Done: 2, Total: 3, Message: "two"})
			late <- ctx
			return agenttool.OK("three"), nil
		})
		var mu sync.Mutex
		var seen []agenttool.Progress
		turn := agenttool.NewTurn(context.Background(), mustRegistry(t, steps), &agenttool.TurnOptions{
			OnSnapshot: func(s agenttool.Snapshot) {
				mu.Lock()
				defer mu.Unlock()
				if b := s.Blocks[0]; b.Status == running && b.Progress != (agenttool.Progress{}) {
					seen = append(seen, b.Progress)
				}
			},
		})
		defer turn.Close()
		blocks, err := turn.Run([]agenttool.ToolCall{call("1", "steps", `{}`)})
		require.NoError(t, err)
		mu.Lock()
		assert.Equal(t, []agenttool.Progress{{Done: 1, Total: 3, Message: "one"}, {Done: 2, Total: 3, Message: "two"}}, seen,
			"one snapshot per report, each delivered before ReportProgress returned")
		mu.Unlock()
		assert.Equal(t, agenttool.Progress{Done: 2, Total: 3, Message: "two"}, blocks[0].Progress, "the latest report stays on the block")

		before := turn.Snapshot()
		agenttool.ReportProgress(<-late, agenttool.Progress{Done: 3, Total: 3})
		after := turn.Snapshot()
		assert.Equal(t, before, after, "a report after the call ended changes nothing and publishes nothing")

		encoded, err := json.Marshal(blocks[0])
		require.NoError(t, err)
		assert.Contains(t, string(encoded), `"progress":{"done":2,"total":3,"message":"two"}`)
		encoded, err = json.Marshal(agenttool.ToolBlock{})
		require.NoError(t, err)
		assert.NotContains(t, string(encoded), "progress", "no report, no progress member")
	})
}

func TestReportProgressWithoutListener(t *testing.T) {
	agenttool.ReportProgress(context.Background(), agenttool.Progress{Done: 1})
	agenttool.ReportProgress(agenttool.WithProgress(context.Background(), nil), agenttool.Progress{Done: 1})
	var got []agenttool.Progress
	ctx := agenttool.WithProgress(context.Background(), func(p agenttool.Progress) { got = append(got, p) })
	agenttool.ReportProgress(ctx, agenttool.Progress{Done: 1, Total: 2})
	assert.Equal(t, []agenttool.Progress{{Done: 1, Total: 2}}, got)
}
