package temporaltool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/temporaltool"
)

func TestDaySleepIsATimer(t *testing.T) {
	env := newEnv(t, newTurns(t, agentRegistry(), nil))
	var timers []time.Duration
	env.SetOnTimerScheduledListener(func(_ string, d time.Duration) { timers = append(timers, d) })
	activities := 0
	env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) { activities++ })

	start := time.Now()
	env.ExecuteWorkflow(temporaltool.TurnWorkflow, []agenttool.ToolCall{call("1", "sleep", `{"seconds":86400}`)})
	wall := time.Since(start)
	t.Logf("a 24-hour sleep took %v of wall time", wall)

	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var snap agenttool.Snapshot
	require.NoError(t, env.GetWorkflowResult(&snap))
	assert.True(t, snap.Final)
	require.Len(t, snap.Blocks, 1)
	b := snap.Blocks[0]
	assert.Equal(t, agenttool.StatusSucceeded, b.Status)
	assert.Equal(t, agenttool.OK("Slept for 86400 second(s)."), b.Result)
	assert.Equal(t, 24*time.Hour, b.EndedAt.Sub(b.StartedAt))
	assert.Equal(t, []time.Duration{24 * time.Hour}, timers)
	assert.Zero(t, activities, "a sleep must not run as an activity")
	assert.Less(t, wall, 10*time.Second, "the test environment skips a timer's time")
}

func TestFunctoolAndSleep(t *testing.T) {
	env := newEnv(t, newTurns(t, agentRegistry(), nil))
	env.ExecuteWorkflow(temporaltool.TurnWorkflow, []agenttool.ToolCall{
		call("a", "echo", `{"text":"hello"}`),
		call("b", "sleep", `{"seconds":5}`),
	})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var snap agenttool.Snapshot
	require.NoError(t, env.GetWorkflowResult(&snap))
	require.Len(t, snap.Blocks, 2)
	echo, sleep := snap.Blocks[0], snap.Blocks[1]
	assert.Equal(t, "a", echo.Call.ID)
	assert.JSONEq(t, `{"text":"hello"}`, string(echo.Call.Args))
	assert.Equal(t, agenttool.StatusSucceeded, echo.Status)
	assert.Equal(t, agenttool.OK("hello"), echo.Result)
	assert.Equal(t, agenttool.StatusSucceeded, sleep.Status)
	assert.Equal(t, agenttool.OK("Slept for 5 second(s)."), sleep.Result)
	// A batch holding sleep runs one call at a time.
	assert.False(t, sleep.StartedAt.Before(echo.EndedAt), "sleep started at %v, before echo ended at %v", sleep.StartedAt, echo.EndedAt)
	assert.Equal(t, 5*time.Second, sleep.EndedAt.Sub(sleep.StartedAt))
}

func TestCancelDuringSleep(t *testing.T) {
	env := newEnv(t, newTurns(t, agentRegistry(), nil))
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(temporaltool.TurnWorkflow, []agenttool.ToolCall{
		call("a", "echo", `{"text":"before"}`),
		call("b", "sleep", `{"seconds":86400}`),
		call("c", "echo", `{"text":"after"}`),
	})
	require.True(t, env.IsWorkflowCompleted())
	err := env.GetWorkflowError()
	require.Error(t, err)
	var cancelled *temporal.CanceledError
	require.ErrorAs(t, err, &cancelled, "a cancelled turn ends as cancelled")

	snap := query(t, env)
	assert.True(t, snap.Final, "the final snapshot stays answerable")
	require.Len(t, snap.Blocks, 3)
	assert.Equal(t, agenttool.StatusSucceeded, snap.Blocks[0].Status)
	for _, b := range snap.Blocks[1:] {
		assert.Equal(t, agenttool.StatusCancelled, b.Status, "block %s", b.Call.ID)
		assert.Equal(t, "cancelled: the turn ended before the call finished (canceled)", b.Result.Error)
		assert.False(t, b.Result.Success)
	}
	sleep, after := snap.Blocks[1], snap.Blocks[2]
	assert.Equal(t, time.Hour, sleep.EndedAt.Sub(sleep.StartedAt), "the sleep ends when the turn is cancelled")
	assert.True(t, after.StartedAt.IsZero(), "a call cancelled before it started has no start")
	assert.Equal(t, sleep.EndedAt, after.EndedAt)
}

func TestPanickingToolFailsItsBlockOnce(t *testing.T) {
	var attempts atomic.Int32
	boom := funcTool("boom", false, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
		attempts.Add(1)
		panic("kaboom")
	})
	env := newEnv(t, newTurns(t, registry(t, boom, echoTool()), nil))
	env.ExecuteWorkflow(temporaltool.TurnWorkflow, []agenttool.ToolCall{call("1", "boom", `{}`), call("2", "echo", `{"text":"still here"}`)})
	require.NoError(t, env.GetWorkflowError())
	var snap agenttool.Snapshot
	require.NoError(t, env.GetWorkflowResult(&snap))
	require.Len(t, snap.Blocks, 2)
	assert.Equal(t, agenttool.StatusFailed, snap.Blocks[0].Status)
	assert.Equal(t, agenttool.ToolResult{Error: "tool panicked: kaboom"}, snap.Blocks[0].Result)
	assert.Equal(t, int32(1), attempts.Load(), "a panic is not retried")
	assert.Equal(t, agenttool.OK("still here"), snap.Blocks[1].Result, "the batch goes on")
}

func TestGoErrorIsRetriedThenFails(t *testing.T) {
	var failing, flaky atomic.Int32
	broken := funcTool("broken", false, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
		failing.Add(1)
		return agenttool.ToolResult{}, errors.New("disk on fire")
	})
	recovers := funcTool("flaky", false, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
		if flaky.Add(1) < 2 {
			return agenttool.ToolResult{}, errors.New("try again")
		}
		return agenttool.OK("second time lucky"), nil
	})
	env := newEnv(t, newTurns(t, registry(t, broken, recovers), nil))
	env.ExecuteWorkflow(temporaltool.TurnWorkflow, []agenttool.ToolCall{call("1", "broken", `{}`), call("2", "flaky", `{}`)})
	require.NoError(t, env.GetWorkflowError())
	var snap agenttool.Snapshot
	require.NoError(t, env.GetWorkflowResult(&snap))
	require.Len(t, snap.Blocks, 2)
	assert.Equal(t, agenttool.StatusFailed, snap.Blocks[0].Status)
	assert.Equal(t, agenttool.ToolResult{Error: "tool error: disk on fire"}, snap.Blocks[0].Result)
	assert.Equal(t, int32(3), failing.Load(), "the default retry policy makes 3 attempts")
	assert.Equal(t, agenttool.StatusSucceeded, snap.Blocks[1].Status)
	assert.Equal(t, agenttool.OK("second time lucky"), snap.Blocks[1].Result)
	assert.Equal(t, int32(2), flaky.Load())
}

func TestRetryPolicyIsTheCallers(t *testing.T) {
	var attempts atomic.Int32
	broken := funcTool("broken", false, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
		attempts.Add(1)
		return agenttool.ToolResult{}, errors.New("no")
	})
	opts := &temporaltool.Options{Activity: workflow.ActivityOptions{RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 5}}}
	env := newEnv(t, newTurns(t, registry(t, broken), opts))
	env.ExecuteWorkflow(temporaltool.TurnWorkflow, []agenttool.ToolCall{call("1", "broken", `{}`)})
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, int32(5), attempts.Load())
}

func TestUnsuccessfulResultIsNotRetried(t *testing.T) {
	var attempts atomic.Int32
	refuses := funcTool("refuses", false, func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
		attempts.Add(1)
		return agenttool.Failf("no such file"), nil
	})
	env := newEnv(t, newTurns(t, registry(t, refuses), nil))
	env.ExecuteWorkflow(temporaltool.TurnWorkflow, []agenttool.ToolCall{call("1", "refuses", `{}`)})
	require.NoError(t, env.GetWorkflowError())
	var snap agenttool.Snapshot
	require.NoError(t, env.GetWorkflowResult(&snap))
	require.Len(t, snap.Blocks, 1)
	assert.Equal(t, agenttool.StatusFailed, snap.Blocks[0].Status)
	assert.Equal(t, agenttool.Failf("no such file"), snap.Blocks[0].Result)
	assert.Equal(t, int32(1), attempts.Load())
}

func TestQueryReturnsOrderedSnapshots(t *testing.T) {
	env := newEnv(t, newTurns(t, agentRegistry(), nil))
	var snaps []agenttool.Snapshot
	for _, at := range []time.Duration{30 * time.Second, 90 * time.Second} {
		env.RegisterDelayedCallback(func() { snaps = append(snaps, query(t, env)) }, at)
	}
	env.ExecuteWorkflow(temporaltool.TurnWorkflow, []agenttool.ToolCall{
		call("1", "echo", `{"text":"x"}`),
		call("2", "sleep", `{"seconds":60}`),
		call("3", "sleep", `{"seconds":60}`),
	})
	require.NoError(t, env.GetWorkflowError())
	snaps = append(snaps, query(t, env))
	require.Len(t, snaps, 3)

	status := func(s agenttool.Snapshot) []agenttool.ToolStatus {
		out := make([]agenttool.ToolStatus, len(s.Blocks))
		for i, b := range s.Blocks {
			out[i] = b.Status
			assert.Equal(t, strconv.Itoa(i+1), b.Call.ID, "blocks are in call order")
		}
		return out
	}
	assert.Equal(t, []agenttool.ToolStatus{agenttool.StatusSucceeded, agenttool.StatusRunning, agenttool.StatusPending}, status(snaps[0]))
	assert.Equal(t, []agenttool.ToolStatus{agenttool.StatusSucceeded, agenttool.StatusSucceeded, agenttool.StatusRunning}, status(snaps[1]))
	assert.Equal(t, []agenttool.ToolStatus{agenttool.StatusSucceeded, agenttool.StatusSucceeded, agenttool.StatusSucceeded}, status(snaps[2]))
	assert.False(t, snaps[0].Final)
	assert.False(t, snaps[1].Final)
	assert.True(t, snaps[2].Final)
	assert.Less(t, snaps[0].Seq, snaps[1].Seq)
	assert.Less(t, snaps[1].Seq, snaps[2].Seq)

	var result agenttool.Snapshot
	require.NoError(t, env.GetWorkflowResult(&result))
	assert.Equal(t, result, snaps[2], "the query answers the final snapshot once the turn is over")
}
