package agenttool_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
)

// overlapTools returns tools named a and b (both safe or both not) that
// record how many calls run at once and hold each call until release closes.
func overlapTools(safe bool, release <-chan struct{}, active, most *atomic.Int32) []agenttool.Tool {
	fn := func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
		n := active.Add(1)
		defer active.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select {
		case <-release:
			return agenttool.OK("done"), nil
		case <-ctx.Done():
			return agenttool.ToolResult{}, ctx.Err()
		}
	}
	return []agenttool.Tool{
		&agenttool.FuncTool{ToolName: "a", Schema: json.RawMessage(`{"type":"object"}`), Fn: fn, Safe: safe},
		&agenttool.FuncTool{ToolName: "b", Schema: json.RawMessage(`{"type":"object"}`), Fn: fn, Safe: safe},
	}
}

func TestCallerBatchRuleAcrossConcurrentCalls(t *testing.T) {
	for _, tc := range []struct {
		name string
		safe bool
		most int32
	}{
		{"unsafe tools never overlap", false, 1},
		{"safe tools overlap", true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				var active, most atomic.Int32
				reg, err := agenttool.NewRegistry(overlapTools(tc.safe, release, &active, &most)...)
				require.NoError(t, err)
				caller := agenttool.NewCaller(reg, nil)
				var wg sync.WaitGroup
				blocks := make([]agenttool.ToolBlock, 4)
				for i, name := range []string{"a", "b", "a", "b"} {
					wg.Go(func() {
						blocks[i], _ = caller.Call(context.Background(), agenttool.ToolCall{ID: itoa(i), Name: name})
					})
				}
				synctest.Wait()
				assert.Equal(t, tc.most, active.Load(), "calls running while the first ones are held")
				close(release)
				wg.Wait()
				assert.Equal(t, tc.most, most.Load())
				for _, b := range blocks {
					assert.Equal(t, agenttool.StatusSucceeded, b.Status)
				}
			})
		})
	}
}

func TestCallerUnsafeWaitsForSafeAndIsNotStarved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var active, most atomic.Int32
		safe := overlapTools(true, release, &active, &most)
		unsafeRelease := make(chan struct{})
		var order []string
		var mu sync.Mutex
		record := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
		unsafe := &agenttool.FuncTool{ToolName: "u", Schema: json.RawMessage(`{}`),
			Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
				record("u")
				<-unsafeRelease
				return agenttool.OK("u"), nil
			}}
		reg, err := agenttool.NewRegistry(safe[0], safe[1], unsafe)
		require.NoError(t, err)
		caller := agenttool.NewCaller(reg, nil)
		var wg sync.WaitGroup
		wg.Go(func() { _, _ = caller.Call(context.Background(), agenttool.ToolCall{Name: "a"}) })
		synctest.Wait()
		wg.Go(func() { _, _ = caller.Call(context.Background(), agenttool.ToolCall{Name: "u"}) })
		synctest.Wait()
		wg.Go(func() {
			_, _ = caller.Call(context.Background(), agenttool.ToolCall{Name: "b"})
			record("b")
		})
		synctest.Wait()
		assert.Equal(t, int32(1), active.Load(), "b waits behind the exclusive u, which waits for a")
		close(release)
		synctest.Wait()
		close(unsafeRelease)
		wg.Wait()
		assert.Equal(t, []string{"u", "b"}, order, "u ran before the later shared call")
		assert.Equal(t, int32(1), most.Load())
	})
}

func TestCallerCancelWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var active, most atomic.Int32
		reg, err := agenttool.NewRegistry(overlapTools(false, release, &active, &most)...)
		require.NoError(t, err)
		caller := agenttool.NewCaller(reg, nil)
		first := make(chan agenttool.ToolBlock, 1)
		go func() {
			b, _ := caller.Call(context.Background(), agenttool.ToolCall{ID: "1", Name: "a"})
			first <- b
		}()
		synctest.Wait()

		ctx, cancel := context.WithCancelCause(context.Background())
		type result struct {
			b   agenttool.ToolBlock
			err error
		}
		waiting := make(chan result, 1)
		go func() {
			b, err := caller.Call(ctx, agenttool.ToolCall{ID: "2", Name: "b", Args: json.RawMessage(`{"x":1}`)})
			waiting <- result{b, err}
		}()
		synctest.Wait()
		require.Empty(t, waiting, "the second unsafe call waits for the first")
		stop := errors.New("user stopped")
		cancel(stop)
		synctest.Wait()
		r := received(t, waiting, "Call still waits after its context ended")
		require.ErrorIs(t, r.err, agenttool.ErrTurnEnded)
		require.ErrorIs(t, r.err, context.Canceled)
		require.ErrorIs(t, r.err, stop)
		assert.Equal(t, agenttool.StatusCancelled, r.b.Status)
		assert.Equal(t, "2", r.b.Call.ID)
		assert.JSONEq(t, `{"x":1}`, string(r.b.Call.Args))
		assert.Contains(t, r.b.Result.Error, "user stopped")

		close(release)
		assert.Equal(t, agenttool.StatusSucceeded, (<-first).Status)
		// The gate was given back: a new unsafe call runs at once.
		b, err := caller.Call(context.Background(), agenttool.ToolCall{ID: "3", Name: "a"})
		require.NoError(t, err)
		assert.Equal(t, agenttool.StatusSucceeded, b.Status)
	})
}

func TestCallerCancelWhileRunningAndFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		panicky := &agenttool.FuncTool{ToolName: "p", Schema: json.RawMessage(`{}`),
			Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { panic("boom") }}
		reg, err := agenttool.NewRegistry(append(agenttool.DefaultTools(), panicky)...)
		require.NoError(t, err)
		caller := agenttool.NewCaller(reg, nil)

		b, err := caller.Call(context.Background(), agenttool.ToolCall{ID: "p", Name: "p"})
		require.NoError(t, err)
		assert.Equal(t, agenttool.StatusFailed, b.Status)
		assert.Contains(t, b.Result.Error, "tool panicked: boom")

		b, err = caller.Call(context.Background(), agenttool.ToolCall{ID: "u", Name: "nope"})
		require.NoError(t, err)
		assert.Equal(t, agenttool.StatusFailed, b.Status)
		assert.Contains(t, b.Result.Error, `unknown tool "nope"`)

		b, err = caller.Call(context.Background(), agenttool.ToolCall{ID: "s", Name: "sleep", Args: json.RawMessage(`{"seconds":1.5}`)})
		require.NoError(t, err)
		assert.Equal(t, agenttool.StatusFailed, b.Status)
		assert.Contains(t, b.Result.Error, `"seconds"`)

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		b, err = caller.Call(ctx, agenttool.ToolCall{ID: "s", Name: "sleep", Args: json.RawMessage(`{"seconds":3600}`)})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, time.Minute, time.Since(start), "the sleep ended with its context")
		assert.Equal(t, agenttool.StatusCancelled, b.Status)
	})
}
