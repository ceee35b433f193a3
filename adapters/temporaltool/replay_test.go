package temporaltool_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
)

// TestReplayIsDeterministic replays histories that the real-server tests
// recorded (AGENTTOOL_RECORD_HISTORY=1): the workflow's code must make the
// same decisions from the same events.
func TestReplayIsDeterministic(t *testing.T) {
	for _, name := range []string{"restart.history.json"} {
		t.Run(name, func(t *testing.T) {
			replayer := worker.NewWorkflowReplayer()
			require.NoError(t, newTurns(t, agentRegistry(), nil).RegisterWorkflow(replayer))
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
