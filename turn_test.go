package agenttool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

func call(id, name, args string) agenttool.ToolCall {
	return agenttool.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
}

func sleepCall(id string, seconds int) agenttool.ToolCall {
	return call(id, "sleep", fmt.Sprintf(`{"seconds":%d}`, seconds))
}

// recorder is an OnSnapshot observer that keeps every snapshot.
type recorder struct {
	mu    sync.Mutex
	snaps []agenttool.Snapshot
}

func (r *recorder) observe(s agenttool.Snapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.snaps = append(r.snaps, s)
}

func (r *recorder) all() []agenttool.Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agenttool.Snapshot(nil), r.snaps...)
}

// runResult is what Run returned, for Runs started in the background.
type runResult struct {
	blocks []agenttool.ToolBlock
	err    error
}

func runAsync(turn *agenttool.Turn, calls ...agenttool.ToolCall) <-chan runResult {
	ch := make(chan runResult, 1)
	go func() {
		blocks, err := turn.Run(calls)
		ch <- runResult{blocks, err}
	}()
	return ch
}

func statuses(blocks []agenttool.ToolBlock) []agenttool.ToolStatus {
	out := make([]agenttool.ToolStatus, len(blocks))
	for i, b := range blocks {
		out[i] = b.Status
	}
	return out
}

// checkFinal asserts the invariants of a final snapshot.
func checkFinal(t *testing.T, s agenttool.Snapshot) {
	t.Helper()
	assert.True(t, s.Final, "snapshot is final")
	for i, b := range s.Blocks {
		assert.True(t, b.Status.Finished(), "block %d is %v in the final snapshot", i, b.Status)
		if b.Status == agenttool.StatusCancelled {
			assert.Contains(t, b.Result.Error, "cancelled")
			assert.False(t, b.Result.Success)
		}
	}
}

const (
	pending   = agenttool.StatusPending
	running   = agenttool.StatusRunning
	succeeded = agenttool.StatusSucceeded
	failed    = agenttool.StatusFailed
	cancelled = agenttool.StatusCancelled
)

func TestToolStatusText(t *testing.T) {
	for status, name := range map[agenttool.ToolStatus]string{
		pending: "pending", running: "running", succeeded: "succeeded", failed: "failed", cancelled: "cancelled",
	} {
		assert.Equal(t, name, status.String())
		text, err := status.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, name, string(text))
		var back agenttool.ToolStatus
		require.NoError(t, back.UnmarshalText(text))
		assert.Equal(t, status, back)
		assert.Equal(t, status != pending && status != running, status.Finished())
	}
	assert.Equal(t, "ToolStatus(9)", agenttool.ToolStatus(9).String())
	_, err := agenttool.ToolStatus(-1).MarshalText()
	require.Error(t, err)
	var s agenttool.ToolStatus
	require.Error(t, s.UnmarshalText([]byte("Running")))

	out, err := json.Marshal(agenttool.ToolBlock{Status: cancelled})
	require.NoError(t, err)
	assert.Contains(t, string(out), `"status":"cancelled"`)
}

func TestToolCallJSON(t *testing.T) {
	cases := map[string]struct{ args, want string }{
		"object":  {`{"seconds":1}`, `{"id":"1","name":"sleep","arguments":{"seconds":1}}`},
		"invalid": {`{"seconds":`, `{"id":"1","name":"sleep","arguments":"{\"seconds\":"}`},
		"empty":   {``, `{"id":"1","name":"sleep","arguments":null}`},
		"spaces":  {`  `, `{"id":"1","name":"sleep","arguments":null}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := json.Marshal(agenttool.ToolBlock{Call: call("1", "sleep", tc.args)})
			require.NoError(t, err)
			var block struct {
				Call json.RawMessage `json:"call"`
			}
			require.NoError(t, json.Unmarshal(out, &block))
			assert.JSONEq(t, tc.want, string(block.Call))
		})
	}
}

func TestTurnSequentialSleeps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		start := mock.Now()
		reg := mustRegistry(t, agenttool.DefaultToolsWithClock(mock)...)
		turn := agenttool.NewTurn(t.Context(), reg, &agenttool.TurnOptions{Clock: mock})
		defer turn.Close()

		done := runAsync(turn, sleepCall("a", 2), sleepCall("b", 3))
		synctest.Wait()
		assert.Equal(t, []agenttool.ToolStatus{running, pending}, statuses(turn.Snapshot().Blocks))

		mock.Add(2 * time.Second)
		synctest.Wait()
		snap := turn.Snapshot()
		assert.Equal(t, []agenttool.ToolStatus{succeeded, running}, statuses(snap.Blocks))
		assert.Equal(t, start.Add(2*time.Second), snap.Blocks[1].StartedAt, "b starts when a ends")

		mock.Add(3 * time.Second)
		r := <-done
		require.NoError(t, r.err)
		require.Len(t, r.blocks, 2)
		assert.Equal(t, []agenttool.ToolStatus{succeeded, succeeded}, statuses(r.blocks))
		assert.Equal(t, "Slept for 2 second(s).", r.blocks[0].Result.Output)
		assert.Equal(t, "Slept for 3 second(s).", r.blocks[1].Result.Output)
		assert.Equal(t, start, r.blocks[0].StartedAt)
		assert.Equal(t, start.Add(2*time.Second), r.blocks[0].EndedAt)
		assert.False(t, r.blocks[1].StartedAt.Before(r.blocks[0].EndedAt))
		assert.Equal(t, start.Add(5*time.Second), r.blocks[1].EndedAt)
		assert.Equal(t, "a", r.blocks[0].Call.ID)
		assert.JSONEq(t, `{"seconds":3}`, string(r.blocks[1].Call.Args))
	})
}

// rendezvous returns two concurrency-safe tools that each succeed only once
// the other has started: they can both succeed only if they overlap.
func rendezvous() (*agenttool.FuncTool, *agenttool.FuncTool) {
	started := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	mk := func(me int) *agenttool.FuncTool {
		tool := stub(fmt.Sprintf("meet%d", me))
		tool.Safe = true
		tool.Fn = func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
			close(started[me])
			select {
			case <-started[1-me]:
				return agenttool.OK("met"), nil
			case <-ctx.Done():
				return agenttool.ToolResult{}, ctx.Err()
			}
		}
		return tool
	}
	return mk(0), mk(1)
}

func TestTurnConcurrentBatchOverlaps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := rendezvous()
		rec := &recorder{}
		// Run sequentially, the first call would wait for ever; the
		// bubble's fake deadline then cancels it instead of hanging.
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		turn := agenttool.NewTurn(ctx, mustRegistry(t, a, b), &agenttool.TurnOptions{OnSnapshot: rec.observe})
		defer turn.Close()

		blocks, err := turn.Run([]agenttool.ToolCall{call("1", "meet0", `{}`), call("2", "meet1", `{}`)})
		require.NoError(t, err)
		assert.Equal(t, []agenttool.ToolStatus{succeeded, succeeded}, statuses(blocks))
		assert.Equal(t, blocks[0].StartedAt, blocks[1].StartedAt, "all started at once")
		snaps := rec.all()
		require.GreaterOrEqual(t, len(snaps), 2)
		assert.Equal(t, []agenttool.ToolStatus{running, running}, statuses(snaps[1].Blocks), "one change starts the whole batch")
	})
}

// overlapProbe returns a tool that takes a second of (bubble) time and
// records how many of its calls were in flight at once.
func overlapProbe(name string, safe bool, active, most *atomic.Int32) *agenttool.FuncTool {
	tool := stub(name)
	tool.Safe = safe
	tool.Fn = func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
		n := active.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(time.Second)
		active.Add(-1)
		return agenttool.OK(name), nil
	}
	return tool
}

func TestTurnBatchRule(t *testing.T) {
	cases := map[string]struct {
		calls []string
		most  int32
	}{
		"all safe run together":          {[]string{"safe1", "safe2", "safe3"}, 3},
		"one unsafe makes it sequential": {[]string{"safe1", "unsafe", "safe2"}, 1},
		"sleep makes it sequential":      {[]string{"safe1", "sleep", "safe2"}, 1},
		"unknown makes it sequential":    {[]string{"safe1", "nope", "safe2"}, 1},
		"filtered out counts as unknown": {[]string{"safe1", "hidden", "safe2"}, 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var active, most atomic.Int32
				reg := mustRegistry(t,
					overlapProbe("safe1", true, &active, &most),
					overlapProbe("safe2", true, &active, &most),
					overlapProbe("safe3", true, &active, &most),
					overlapProbe("hidden", true, &active, &most),
					overlapProbe("unsafe", false, &active, &most),
					agenttool.SleepTool{},
				).Without("hidden")
				turn := agenttool.NewTurn(t.Context(), reg, nil)
				defer turn.Close()
				var calls []agenttool.ToolCall
				for i, n := range tc.calls {
					args := `{}`
					if n == "sleep" {
						args = `{"seconds":1}`
					}
					calls = append(calls, call(fmt.Sprint(i), n, args))
				}
				blocks, err := turn.Run(calls)
				require.NoError(t, err)
				assert.Equal(t, tc.most, most.Load(), "calls in flight at once")
				for i, b := range blocks {
					assert.Equal(t, tc.calls[i], b.Call.Name, "results in call order")
				}
			})
		})
	}
}

type namedPanic struct{ msg string }

func TestTurnFailuresDoNotStopTheBatch(t *testing.T) {
	errBoom := errors.New("disk on fire")
	fn := func(name string, f func() (agenttool.ToolResult, error)) *agenttool.FuncTool {
		tool := stub(name)
		tool.Fn = func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { return f() }
		return tool
	}
	reg := mustRegistry(t,
		stub("ok"),
		stub("hidden"),
		fn("goerr", func() (agenttool.ToolResult, error) { return agenttool.OK("ignored"), errBoom }),
		fn("unsuccessful", func() (agenttool.ToolResult, error) { return agenttool.Failf("no such city"), nil }),
		fn("silent", func() (agenttool.ToolResult, error) { return agenttool.ToolResult{}, nil }),
		fn("panics", func() (agenttool.ToolResult, error) { panic("kaboom") }),
		fn("panicsvalue", func() (agenttool.ToolResult, error) { panic(namedPanic{"v"}) }),
		fn("panicsnil", func() (agenttool.ToolResult, error) { panic(errBoom) }),
	).Without("hidden")
	turn := agenttool.NewTurn(context.Background(), reg, nil)
	defer turn.Close()

	blocks, err := turn.Run([]agenttool.ToolCall{
		call("1", "nope", `{}`),
		call("2", "hidden", `{}`),
		call("3", "goerr", `{}`),
		call("4", "unsuccessful", `{}`),
		call("5", "silent", `{}`),
		call("6", "panics", `{}`),
		call("7", "panicsvalue", `{}`),
		call("8", "panicsnil", `{}`),
		call("9", "ok", `{}`),
	})
	require.NoError(t, err)
	require.Len(t, blocks, 9)
	want := []struct {
		status agenttool.ToolStatus
		says   string
	}{
		{failed, `unknown tool "nope"; available tools: ok, goerr, unsuccessful`},
		{failed, `unknown tool "hidden"`},
		{failed, "tool error: disk on fire"},
		{failed, "no such city"},
		{failed, `tool "silent" failed without saying why`},
		{failed, "tool panicked: kaboom"},
		{failed, "tool panicked: {v}"},
		{failed, "tool panicked: disk on fire"},
		{succeeded, ""},
	}
	for i, w := range want {
		assert.Equal(t, w.status, blocks[i].Status, "block %d", i)
		assert.Contains(t, blocks[i].Result.Error, w.says, "block %d", i)
		assert.False(t, blocks[i].EndedAt.IsZero(), "block %d has ended", i)
		assert.False(t, blocks[i].StartedAt.IsZero(), "block %d has started", i)
	}
	assert.NotContains(t, blocks[1].Result.Error, "hidden,", "a hidden tool is not advertised")
	assert.Equal(t, "ok", blocks[8].Result.Output)

	// The turn survives and runs another batch.
	more, err := turn.Run([]agenttool.ToolCall{call("10", "ok", `{}`)})
	require.NoError(t, err)
	assert.Equal(t, succeeded, more[0].Status)
	assert.Len(t, turn.Snapshot().Blocks, 10)
}

func TestTurnUnknownWithEmptyRegistry(t *testing.T) {
	turn := agenttool.NewTurn(context.Background(), nil, nil)
	defer turn.Close()
	blocks, err := turn.Run([]agenttool.ToolCall{call("1", "sleep", `{"seconds":0}`)})
	require.NoError(t, err)
	assert.Equal(t, failed, blocks[0].Status)
	assert.Equal(t, `unknown tool "sleep": no tools are available`, blocks[0].Result.Error)
}

func TestTurnCancelDuringSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		reg := mustRegistry(t, agenttool.DefaultToolsWithClock(mock)...)
		rec := &recorder{}
		ctx, cancel := context.WithCancel(t.Context())
		turn := agenttool.NewTurn(ctx, reg, &agenttool.TurnOptions{Clock: mock, OnSnapshot: rec.observe})

		done := runAsync(turn, sleepCall("a", 0), sleepCall("b", 60), sleepCall("c", 5))
		synctest.Wait()
		require.Equal(t, []agenttool.ToolStatus{succeeded, running, pending}, statuses(turn.Snapshot().Blocks))

		mock.Add(30 * time.Second)
		cancel()
		synctest.Wait()
		r := received(t, done, "Run did not return once the turn's context was cancelled")
		require.ErrorIs(t, r.err, agenttool.ErrTurnEnded)
		require.ErrorIs(t, r.err, context.Canceled)
		assert.Equal(t, []agenttool.ToolStatus{succeeded, cancelled, cancelled}, statuses(r.blocks))
		assert.Equal(t, "Slept for 0 second(s).", r.blocks[0].Result.Output)
		assert.Contains(t, r.blocks[1].Result.Error, "context canceled")
		assert.True(t, r.blocks[2].StartedAt.IsZero(), "the pending call never started")

		final := turn.Snapshot()
		checkFinal(t, final)
		assert.Equal(t, final.Blocks, r.blocks, "Run returns the blocks as the final snapshot has them")
		snaps := rec.all()
		require.NotEmpty(t, snaps)
		assert.Equal(t, final, snaps[len(snaps)-1], "the final snapshot is published last")
		received(t, turn.Done(), "Done is not closed after the final snapshot")

		now := mock.Now()
		assert.Equal(t, now, mock.WaitForAllTimers(), "no timer left on the mock clock")
		assert.Equal(t, final, turn.Close(), "Close after the end returns the same final snapshot")
	})
}

func TestTurnDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		turn := agenttool.NewTurn(ctx, mustRegistry(t, agenttool.DefaultTools()...), nil)
		blocks, err := turn.Run([]agenttool.ToolCall{sleepCall("a", 5), sleepCall("b", 60)})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, []agenttool.ToolStatus{succeeded, cancelled}, statuses(blocks))
		assert.Contains(t, blocks[1].Result.Error, "deadline exceeded")
	})
}

func TestTurnToolIgnoringContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var returned atomic.Bool
		stubborn := stub("stubborn")
		stubborn.Fn = func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
			<-release // ignores its context
			returned.Store(true)
			return agenttool.OK("too late"), nil
		}
		rec := &recorder{}
		ctx, cancel := context.WithCancel(t.Context())
		turn := agenttool.NewTurn(ctx, mustRegistry(t, stubborn), &agenttool.TurnOptions{OnSnapshot: rec.observe})

		done := runAsync(turn, call("1", "stubborn", `{}`))
		synctest.Wait()
		cancel()
		synctest.Wait()
		r := received(t, done, "Run waits for a tool that ignores its context")
		require.ErrorIs(t, r.err, context.Canceled)
		assert.Equal(t, cancelled, r.blocks[0].Status)
		before := len(rec.all())

		close(release)
		synctest.Wait()
		require.True(t, returned.Load())
		assert.Equal(t, cancelled, turn.Snapshot().Blocks[0].Status, "the late result is discarded")
		assert.Len(t, rec.all(), before, "no snapshot after the final one")
	})
}

func TestTurnCloseDuringConcurrentBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first := stub("quick")
		first.Safe = true
		slow := stub("slow")
		slow.Safe = true
		slow.Fn = func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
			<-ctx.Done()
			return agenttool.ToolResult{}, context.Cause(ctx)
		}
		turn := agenttool.NewTurn(t.Context(), mustRegistry(t, first, slow), nil)
		done := runAsync(turn, call("1", "quick", `{}`), call("2", "slow", `{}`))
		synctest.Wait()
		final := turn.Close()
		r := <-done
		require.ErrorIs(t, r.err, agenttool.ErrTurnEnded)
		require.ErrorIs(t, r.err, agenttool.ErrTurnClosed)
		require.ErrorIs(t, r.err, context.Canceled)
		assert.Equal(t, []agenttool.ToolStatus{succeeded, cancelled}, statuses(r.blocks))
		assert.Contains(t, r.blocks[1].Result.Error, "turn closed")
		checkFinal(t, final)
	})
}

func TestTurnObserver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		var (
			mu       sync.Mutex
			seqs     []uint64
			finals   int
			inside   atomic.Int32
			overlaps atomic.Int32
		)
		var turn *agenttool.Turn
		observe := func(s agenttool.Snapshot) {
			if inside.Add(1) > 1 {
				overlaps.Add(1)
			}
			defer inside.Add(-1)
			_ = turn.Snapshot() // must not deadlock
			s.Blocks = append(s.Blocks[:0], agenttool.ToolBlock{Status: failed})
			mu.Lock()
			defer mu.Unlock()
			seqs = append(seqs, s.Seq)
			if s.Final {
				finals++
			}
		}
		safe := func(name string) *agenttool.FuncTool {
			tool := stub(name)
			tool.Safe = true
			return tool
		}
		reg := mustRegistry(t, append(agenttool.DefaultToolsWithClock(mock), safe("x"), safe("y"), safe("z"))...)
		ctx, cancel := context.WithCancel(t.Context())
		turn = agenttool.NewTurn(ctx, reg, &agenttool.TurnOptions{Clock: mock, OnSnapshot: observe})

		_, err := turn.Run([]agenttool.ToolCall{call("1", "x", `{}`), call("2", "y", `{}`), call("3", "z", `{}`)})
		require.NoError(t, err)
		done := runAsync(turn, sleepCall("4", 10))
		synctest.Wait()
		cancel()
		r := <-done
		require.ErrorIs(t, r.err, agenttool.ErrTurnEnded)
		<-turn.Done()

		final := turn.Close()
		again := turn.Close()
		assert.Equal(t, final, again, "Close is idempotent")
		checkFinal(t, final)
		assert.Len(t, final.Blocks, 4, "snapshot copies are unaffected by the observer's changes")
		assert.Equal(t, []agenttool.ToolStatus{succeeded, succeeded, succeeded, cancelled}, statuses(final.Blocks))

		_, err = turn.Run([]agenttool.ToolCall{sleepCall("5", 0)})
		require.ErrorIs(t, err, agenttool.ErrTurnEnded)
		require.ErrorIs(t, err, context.Canceled)
		synctest.Wait()

		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, 1, finals, "exactly one final snapshot")
		assert.Zero(t, overlaps.Load(), "the observer is never called concurrently")
		require.NotEmpty(t, seqs)
		assert.Equal(t, final.Seq, seqs[len(seqs)-1], "the final snapshot is the last one delivered")
		for i := 1; i < len(seqs); i++ {
			assert.Less(t, seqs[i-1], seqs[i], "Seq strictly increases")
		}
		// Batch 1: added, started, three ends; batch 2: added, started; final.
		assert.Len(t, seqs, 8)
	})
}

func TestTurnSnapshotsAreCopies(t *testing.T) {
	turn := agenttool.NewTurn(context.Background(), mustRegistry(t, stub("ok")), nil)
	args := json.RawMessage(`{"a":1}`)
	_, err := turn.Run([]agenttool.ToolCall{{ID: "1", Name: "ok", Args: args}})
	require.NoError(t, err)
	args[2] = 'X' // the caller's slice is the caller's

	s := turn.Snapshot()
	s.Blocks[0].Status = failed
	s.Blocks[0].Call.ID = "changed"
	s.Blocks[0].Call.Args[2] = 'Y'
	again := turn.Snapshot()
	assert.Equal(t, succeeded, again.Blocks[0].Status)
	assert.Equal(t, "1", again.Blocks[0].Call.ID)
	assert.JSONEq(t, `{"a":1}`, string(again.Blocks[0].Call.Args))

	final := turn.Close()
	final.Blocks[0].Call.Args[2] = 'Z'
	assert.JSONEq(t, `{"a":1}`, string(turn.Close().Blocks[0].Call.Args))
}

func TestTurnEndedBeforeRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	turn := agenttool.NewTurn(ctx, mustRegistry(t, agenttool.DefaultTools()...), nil)
	blocks, err := turn.Run([]agenttool.ToolCall{sleepCall("1", 1)})
	require.ErrorIs(t, err, agenttool.ErrTurnEnded)
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, blocks)
	<-turn.Done()
	final := turn.Snapshot()
	assert.True(t, final.Final)
	assert.Empty(t, final.Blocks)

	closed := agenttool.NewTurn(context.Background(), nil, nil)
	closed.Close()
	_, err = closed.Run(nil)
	require.ErrorIs(t, err, agenttool.ErrTurnClosed)
}

func TestTurnEmptyBatch(t *testing.T) {
	turn := agenttool.NewTurn(context.Background(), nil, nil)
	defer turn.Close()
	blocks, err := turn.Run(nil)
	require.NoError(t, err)
	assert.Empty(t, blocks)
	assert.Zero(t, turn.Snapshot().Seq, "an empty batch changes nothing")
}

func TestTurnObserverMayClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var turn *agenttool.Turn
		rec := &recorder{}
		turn = agenttool.NewTurn(t.Context(), mustRegistry(t, agenttool.DefaultTools()...), &agenttool.TurnOptions{
			OnSnapshot: func(s agenttool.Snapshot) {
				rec.observe(s)
				if !s.Final && s.Blocks[0].Status == running {
					turn.Close()
				}
			},
		})
		blocks, err := turn.Run([]agenttool.ToolCall{sleepCall("1", 60), sleepCall("2", 1)})
		require.ErrorIs(t, err, agenttool.ErrTurnClosed)
		assert.Equal(t, []agenttool.ToolStatus{cancelled, cancelled}, statuses(blocks))
		<-turn.Done()
		snaps := rec.all()
		assert.True(t, snaps[len(snaps)-1].Final)
	})
}

// TestTurnCancelStorm cancels 1,000 turns at different moments, all at once:
// by deadline, by Close from the observer after a varying number of
// snapshots, and by cancel from another goroutine.
func TestTurnCancelStorm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		reg := mustRegistry(t, stormTools(release)...)
		var wg sync.WaitGroup
		for i := range 1000 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runStormTurn(t, reg, i)
			}()
		}
		wg.Wait()
		close(release)
	})
}

// stormTools are tools that behave well and badly, for stress tests.
// A stubborn tool ignores its context until release is closed.
func stormTools(release <-chan struct{}) []agenttool.Tool {
	panics := stub("panics")
	panics.Safe = true
	panics.Fn = func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { panic("storm") }
	slowSafe := stub("slow")
	slowSafe.Safe = true
	slowSafe.Fn = func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
		select {
		case <-time.After(1500 * time.Millisecond):
			return agenttool.OK("slow"), nil
		case <-ctx.Done():
			return agenttool.ToolResult{}, ctx.Err()
		}
	}
	stubborn := stub("stubborn")
	stubborn.Fn = func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
		<-release
		return agenttool.OK("late"), nil
	}
	return []agenttool.Tool{agenttool.SleepTool{}, panics, slowSafe, stubborn, stub("ok")}
}

func runStormTurn(t *testing.T, reg *agenttool.Registry, i int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%97)*37*time.Millisecond)
	defer cancel()
	var (
		mu     sync.Mutex
		finals int
		last   agenttool.Snapshot
		turn   *agenttool.Turn
		count  int
	)
	closeAfter := i % 13
	turn = agenttool.NewTurn(ctx, reg, &agenttool.TurnOptions{OnSnapshot: func(s agenttool.Snapshot) {
		mu.Lock()
		count++
		n := count
		if s.Final {
			finals++
		}
		last = s
		mu.Unlock()
		if i%3 == 0 && n == closeAfter {
			turn.Close()
		}
	}})
	if i%3 == 1 {
		go func() {
			time.Sleep(time.Duration(i%11) * 100 * time.Millisecond)
			cancel()
		}()
	}
	batches := [][]agenttool.ToolCall{
		{sleepCall("a", i%3), call("b", "panics", `{}`), call("c", "nope", `{}`)},
		{call("d", "slow", `{}`), call("e", "panics", `{}`), call("f", "slow", `{}`)},
		{call("g", "stubborn", `{}`), call("h", "ok", `{}`)},
	}
	for _, batch := range batches {
		blocks, err := turn.Run(batch)
		if err != nil {
			if !errors.Is(err, agenttool.ErrTurnEnded) {
				t.Errorf("turn %d: Run returned %v, want ErrTurnEnded", i, err)
			}
			for _, b := range blocks {
				assert.True(t, b.Status.Finished())
			}
			break
		}
	}
	final := turn.Close()
	<-turn.Done()
	checkFinal(t, final)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 1, finals, "turn %d: exactly one final snapshot", i)
	assert.Equal(t, final, last, "turn %d: the final snapshot is the last", i)
}
