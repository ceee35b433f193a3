package temporaltool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/temporaltool"
)

// TestRecordsMatchTurn runs the same calls through a plain agenttool.Turn
// and through RunBatch: the calls, statuses and results must be the same.
func TestRecordsMatchTurn(t *testing.T) {
	silent := funcTool("silent", false, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
		return agenttool.ToolResult{}, nil
	})
	broken := funcTool("broken", false, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
		return agenttool.ToolResult{}, errors.New("out of cheese")
	})
	boom := funcTool("boom", true, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { panic(errors.New("bad state")) })
	exits := funcTool("exits", false, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
		runtime.Goexit()
		return agenttool.OK("unreachable"), nil
	})
	reports := funcTool("reports", false, func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
		agenttool.ReportProgress(ctx, agenttool.Progress{Done: 1, Total: 4, Message: "first"})
		agenttool.ReportProgress(ctx, agenttool.Progress{Done: 3, Total: 4, Message: "almost"})
		return agenttool.OK("reported"), nil
	})
	tools := []agenttool.Tool{agenttool.SleepTool{}, echoTool(), silent, broken, boom, exits, reports}
	batches := map[string][]agenttool.ToolCall{
		"sleep arguments": {
			call("1", "sleep", `{"seconds":0}`),
			call("2", "sleep", `{"seconds":-1}`),
			call("3", "sleep", `{"seconds":1.5}`),
			call("4", "sleep", `{"Seconds":5}`),
			call("5", "sleep", `{"seconds":`),
			call("6", "sleep", `[]`),
			call("7", "sleep", ``),
			call("8", "sleep", `{"seconds":86401}`),
		},
		"unknown tool":          {call("1", "nope", `{}`), call("2", "echo", `{"text":"x"}`)},
		"silent failure":        {call("1", "silent", `{}`)},
		"go error":              {call("1", "broken", `{}`)},
		"panic, concurrently":   {call("1", "boom", `{}`), call("2", "echo", `{"text":"y"}`)},
		"functool bad argument": {call("1", "echo", `{"text":5}`), call("2", "echo", `not json`)},
		"goexit":                {call("1", "exits", `{}`), call("2", "echo", `{"text":"z"}`)},
		"progress":              {call("1", "reports", `{}`)},
	}
	for name, calls := range batches {
		t.Run(name, func(t *testing.T) {
			reg := registry(t, tools...)
			turn := agenttool.NewTurn(context.Background(), reg, nil)
			want, err := turn.Run(calls)
			require.NoError(t, err)
			turn.Close()

			env := newEnv(t, newTurns(t, reg, nil))
			got := runBatches(t, env, newTurns(t, reg, nil), calls)
			require.Len(t, got, 1)
			require.Len(t, got[0], len(want))
			for i := range want {
				assert.Equal(t, want[i].Status, got[0][i].Status, "call %s", want[i].Call.ID)
				assert.Equal(t, want[i].Result, got[0][i].Result, "call %s", want[i].Call.ID)
				assert.Equal(t, want[i].Progress, got[0][i].Progress, "call %s", want[i].Call.ID)
				assert.Equal(t, jsonOf(t, want[i].Call), jsonOf(t, got[0][i].Call), "call %s", want[i].Call.ID)
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestArgumentsReachTheToolExactly(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	record := funcTool("record", false, func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
		mu.Lock()
		seen = append(seen, string(args))
		mu.Unlock()
		return agenttool.OK(""), nil
	})
	sent := []string{`{"a": 1,  "b":[true]}`, `{"a":`, "not json at all", "{\"a\":\"\xff\xfe\"}", `"quoted"`}
	calls := make([]agenttool.ToolCall, len(sent))
	for i, args := range sent {
		calls[i] = call("c", "record", args)
	}
	turns := newTurns(t, registry(t, record), nil)
	env := newEnv(t, turns)
	runBatches(t, env, turns, calls)
	assert.Equal(t, sent, seen)
}

func TestConcurrentWhenEveryToolIsSafe(t *testing.T) {
	// Each call waits until both have started: only a concurrent batch ends.
	var started sync.WaitGroup
	started.Add(2)
	both := make(chan struct{})
	go func() { started.Wait(); close(both) }()
	meet := funcTool("meet", true, func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
		started.Done()
		select {
		case <-both:
			return agenttool.OK("met"), nil
		case <-ctx.Done():
			return agenttool.ToolResult{}, ctx.Err()
		}
	})
	// Run one at a time, the first call would time out.
	opts := &temporaltool.Options{Activity: workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	}}
	turns := newTurns(t, registry(t, meet), opts)
	env := newEnv(t, turns)
	got := runBatches(t, env, turns, []agenttool.ToolCall{call("1", "meet", `{}`), call("2", "meet", `{}`)})
	require.Len(t, got[0], 2)
	for _, b := range got[0] {
		assert.Equal(t, agenttool.OK("met"), b.Result)
	}
	assert.Equal(t, got[0][0].StartedAt, got[0][1].StartedAt, "a concurrent batch starts every call at once")
}

func TestSequentialWhenOneToolIsNotSafe(t *testing.T) {
	// The first call waits for the second to start: one at a time, it
	// waits until its activity times out, and the second runs after it.
	secondStarted := make(chan struct{})
	first := funcTool("first", true, func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
		select {
		case <-secondStarted:
			return agenttool.OK("overlapped"), nil
		case <-ctx.Done():
			return agenttool.ToolResult{}, ctx.Err()
		}
	})
	second := funcTool("second", false, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
		close(secondStarted)
		return agenttool.OK("second"), nil
	})
	opts := &temporaltool.Options{Activity: workflow.ActivityOptions{
		StartToCloseTimeout: time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	}}
	turns := newTurns(t, registry(t, first, second), opts)
	env := newEnv(t, turns)
	got := runBatches(t, env, turns, []agenttool.ToolCall{call("1", "first", `{}`), call("2", "second", `{}`)})
	require.Len(t, got[0], 2)
	assert.Equal(t, agenttool.StatusFailed, got[0][0].Status)
	assert.Contains(t, got[0][0].Result.Error, "tool error: Activity timeout (type: StartToClose)")
	assert.Equal(t, agenttool.OK("second"), got[0][1].Result)
	assert.False(t, got[0][1].StartedAt.Before(got[0][0].EndedAt), "the second call started before the first ended")
}

func TestToolMissingOnTheWorkerFailsCleanly(t *testing.T) {
	// The workflow's registry holds "only-here"; the worker that takes the
	// activity was built over another registry, against the rule.
	here := funcTool("only-here", false, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
		return agenttool.OK("ran"), nil
	})
	workflowSide := newTurns(t, registry(t, here), nil)
	env := newEnv(t, newTurns(t, agentRegistry(), nil))
	got := runBatches(t, env, workflowSide, []agenttool.ToolCall{call("1", "only-here", `{}`), call("2", "echo", `{"text":"ok"}`)})
	require.Len(t, got[0], 2)
	assert.Equal(t, agenttool.StatusFailed, got[0][0].Status)
	assert.Equal(t, `unknown tool "only-here" on this worker; available tools: sleep, echo, greet`, got[0][0].Result.Error)
	assert.Equal(t, agenttool.StatusFailed, got[0][1].Status)
	assert.Equal(t, `unknown tool "echo"; available tools: only-here`, got[0][1].Result.Error)
}

func TestRegisterTwiceIsAnError(t *testing.T) {
	turns := newTurns(t, agentRegistry(), nil)
	env := newEnv(t, turns)
	require.NotPanics(t, func() {
		err := turns.Register(env)
		require.ErrorIs(t, err, temporaltool.ErrAlreadyRegistered)
		assert.Contains(t, err.Error(), temporaltool.TurnWorkflow)
	})
	other := newTurns(t, agentRegistry(), nil)
	require.ErrorIs(t, other.Register(env), temporaltool.ErrAlreadyRegistered, "another Turns on the same worker")

	// Only the activity clashes: the workflow is registered, the activity is not.
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quietLogger())
	env2 := suite.NewTestWorkflowEnvironment()
	require.NoError(t, turns.RegisterWorkflow(env2))
	err := other.Register(env2)
	require.ErrorIs(t, err, temporaltool.ErrAlreadyRegistered)
	assert.Contains(t, err.Error(), temporaltool.TurnWorkflow)

	replayer := worker.NewWorkflowReplayer()
	require.NoError(t, turns.RegisterWorkflow(replayer))
	require.ErrorIs(t, turns.RegisterWorkflow(replayer), temporaltool.ErrAlreadyRegistered)
}

func TestNewRejectsBadOptions(t *testing.T) {
	tests := map[string]workflow.ActivityOptions{
		"negative start-to-close":    {StartToCloseTimeout: -time.Second},
		"negative schedule-to-close": {ScheduleToCloseTimeout: -time.Second},
		"negative schedule-to-start": {ScheduleToStartTimeout: -time.Second},
		"negative heartbeat":         {HeartbeatTimeout: -time.Second},
		"activity ID":                {ActivityID: "same-for-all"},
		"negative attempts":          {RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: -1}},
		"negative interval":          {RetryPolicy: &temporal.RetryPolicy{InitialInterval: -time.Second}},
		"shrinking backoff":          {RetryPolicy: &temporal.RetryPolicy{BackoffCoefficient: 0.5}},
	}
	for name, ao := range tests {
		t.Run(name, func(t *testing.T) {
			turns, err := temporaltool.New(agentRegistry(), &temporaltool.Options{Activity: ao})
			require.ErrorIs(t, err, temporaltool.ErrInvalidOptions)
			assert.Nil(t, turns)
		})
	}
}

func TestNilRegistryMakesEveryCallUnknown(t *testing.T) {
	turns := newTurns(t, nil, nil)
	env := newEnv(t, turns)
	got := runBatches(t, env, turns, []agenttool.ToolCall{call("1", "sleep", `{"seconds":1}`)})
	require.Len(t, got[0], 1)
	assert.Equal(t, agenttool.Failf(`unknown tool "sleep": no tools are available`), got[0][0].Result)
}

func TestActivityDefaults(t *testing.T) {
	infos := make(chan activity.Info, 1)
	inspect := funcTool("inspect", false, func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
		infos <- activity.GetInfo(ctx)
		return agenttool.OK(""), nil
	})
	turns := newTurns(t, registry(t, inspect), nil)
	env := newEnv(t, turns)
	runBatches(t, env, turns, []agenttool.ToolCall{call("1", "inspect", `{}`)})
	info := <-infos
	assert.Equal(t, 10*time.Second, info.HeartbeatTimeout)
	assert.Equal(t, 10*time.Minute, info.StartToCloseTimeout)
	assert.Equal(t, "agenttool.Execute", info.ActivityType.Name)
}

func TestCancellationReachesTheToolsContext(t *testing.T) {
	started, stopped := make(chan struct{}), make(chan error, 1)
	hold := funcTool("hold", false, func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return agenttool.ToolResult{}, ctx.Err()
	})
	// Heartbeats, which carry the cancellation, go out every 80% of the
	// heartbeat timeout.
	opts := &temporaltool.Options{Activity: workflow.ActivityOptions{HeartbeatTimeout: 200 * time.Millisecond}}
	turns := newTurns(t, registry(t, hold), opts)
	env := newEnv(t, turns)
	// With an activity running, the environment's clock follows the real one.
	env.RegisterDelayedCallback(env.CancelWorkflow, 100*time.Millisecond)
	env.ExecuteWorkflow(temporaltool.TurnWorkflow, []agenttool.ToolCall{call("1", "hold", `{}`)})
	var cancelled *temporal.CanceledError
	require.ErrorAs(t, env.GetWorkflowError(), &cancelled)
	select {
	case err := <-stopped:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(time.Minute):
		t.Fatal("the tool's context was not cancelled within a minute of the workflow's cancellation")
	}
	snap := query(t, env)
	require.Len(t, snap.Blocks, 1)
	assert.Equal(t, agenttool.StatusCancelled, snap.Blocks[0].Status)
}

func TestBatchesFromTwoCoroutinesRunOneAtATime(t *testing.T) {
	turns := newTurns(t, agentRegistry(), nil)
	env := newEnv(t, turns)
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		done := workflow.NewWaitGroup(ctx)
		done.Add(2)
		for _, id := range []string{"a", "b"} {
			workflow.Go(ctx, func(ctx workflow.Context) {
				defer done.Done()
				_, _ = turns.RunBatch(ctx, []agenttool.ToolCall{call(id+"1", "sleep", `{"seconds":10}`), call(id+"2", "echo", `{"text":"x"}`)})
			})
		}
		done.Wait(ctx)
		return nil
	}, workflow.RegisterOptions{Name: "two"})
	env.ExecuteWorkflow("two")
	require.NoError(t, env.GetWorkflowError())
	snap := query(t, env)
	require.Len(t, snap.Blocks, 4)
	ids := make([]string, len(snap.Blocks))
	for i, b := range snap.Blocks {
		ids[i] = b.Call.ID
		assert.Equal(t, agenttool.StatusSucceeded, b.Status)
	}
	assert.Equal(t, []string{"a1", "a2", "b1", "b2"}, ids)
	assert.False(t, snap.Blocks[2].StartedAt.Before(snap.Blocks[1].EndedAt), "the second batch started before the first ended")
}

func TestCancelledContext(t *testing.T) {
	turns := newTurns(t, agentRegistry(), nil)
	env := newEnv(t, turns)
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) ([]agenttool.ToolBlock, error) {
		cancelled, cancel := workflow.WithCancel(ctx)
		cancel()
		blocks, err := turns.RunBatch(cancelled, []agenttool.ToolCall{call("1", "echo", `{"text":"never"}`)})
		if blocks != nil || !errors.Is(err, agenttool.ErrTurnEnded) || !temporal.IsCanceledError(err) {
			return nil, fmt.Errorf("on a cancelled context RunBatch returned %v, %w", blocks, err)
		}
		// The workflow goes on with a live context.
		return turns.RunBatch(ctx, []agenttool.ToolCall{call("2", "echo", `{"text":"later"}`)})
	}, workflow.RegisterOptions{Name: "cancelled"})
	env.ExecuteWorkflow("cancelled")
	require.NoError(t, env.GetWorkflowError())
	var blocks []agenttool.ToolBlock
	require.NoError(t, env.GetWorkflowResult(&blocks))
	require.Len(t, blocks, 1)
	assert.Equal(t, agenttool.OK("later"), blocks[0].Result)
	snap := query(t, env)
	require.Len(t, snap.Blocks, 1, "a batch refused on a cancelled context leaves no block")
}

func TestCancelDuringAConcurrentBatch(t *testing.T) {
	hold := funcTool("hold", true, func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
		<-ctx.Done()
		return agenttool.ToolResult{}, ctx.Err()
	})
	turns := newTurns(t, registry(t, hold, echoTool()), &temporaltool.Options{
		Activity: workflow.ActivityOptions{HeartbeatTimeout: 200 * time.Millisecond},
	})
	env := newEnv(t, turns)
	// The turn is cancelled once echo has finished, while both holds run.
	env.SetOnActivityCompletedListener(func(_ *activity.Info, result converter.EncodedValue, err error) {
		var out struct{ Result agenttool.ToolResult }
		if err == nil && result.Get(&out) == nil && out.Result.Output == "quick" {
			env.CancelWorkflow()
		}
	})
	env.ExecuteWorkflow(temporaltool.TurnWorkflow, []agenttool.ToolCall{
		call("1", "echo", `{"text":"quick"}`), call("2", "hold", `{}`), call("3", "hold", `{}`),
	})
	var cancelled *temporal.CanceledError
	require.ErrorAs(t, env.GetWorkflowError(), &cancelled)
	snap := query(t, env)
	require.True(t, snap.Final)
	require.Len(t, snap.Blocks, 3)
	assert.Equal(t, agenttool.OK("quick"), snap.Blocks[0].Result, "a call that finished keeps its result")
	for _, b := range snap.Blocks[1:] {
		assert.Equal(t, agenttool.StatusCancelled, b.Status)
		assert.Equal(t, snap.Blocks[0].StartedAt, b.StartedAt, "a concurrent batch starts every call at once")
	}
}
