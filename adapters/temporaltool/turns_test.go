package temporaltool_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"

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
