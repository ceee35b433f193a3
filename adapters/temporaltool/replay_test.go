package temporaltool_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplayIsDeterministic replays histories that the real-server tests
// recorded (AGENTTOOL_RECORD_HISTORY=1): the workflow's code must make the
// same decisions from the same events.
func TestReplayIsDeterministic(t *testing.T) {
	for _, name := range []string{"restart.history.json", "cancel.history.json", "agent.history.json"} {
		t.Run(name, func(t *testing.T) {
			turns := newTurns(t, registry(t, append(agentRegistry().Tools(), holdTool(nil, nil))...), nil)
			replayer := worker.NewWorkflowReplayer()
			require.NoError(t, turns.RegisterWorkflow(replayer))
			replayer.RegisterWorkflowWithOptions(agentWorkflow(turns), workflow.RegisterOptions{Name: "agent"})
			require.NoError(t, replayer.ReplayWorkflowHistoryFromJSONFile(quietLogger(), filepath.Join("testdata", name)))
		})
	}
}

// TestReplayDetectsADifferentRegistry shows that the replay test can fail:
// without sleep, the recorded timer has no counterpart.
func TestReplayDetectsADifferentRegistry(t *testing.T) {
	replayer := worker.NewWorkflowReplayer()
	require.NoError(t, newTurns(t, registry(t, echoTool()), nil).RegisterWorkflow(replayer))
	err := replayer.ReplayWorkflowHistoryFromJSONFile(quietLogger(), filepath.Join("testdata", "restart.history.json"))
	require.ErrorContains(t, err, "nondeterministic")
}
