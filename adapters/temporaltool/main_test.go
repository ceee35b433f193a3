package temporaltool_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if hostPort := os.Getenv(workerEnv); hostPort != "" {
		os.Exit(runWorker(hostPort))
	}
	goleak.VerifyTestMain(m,
		// The SDK's test environment cancels a running activity by failing
		// its next heartbeat with "not found", which the SDK reports as a
		// failure, not a cancellation; the environment then waits, for
		// good, for the retry of an activity whose workflow is over. A
		// server answers the heartbeat with a cancellation instead.
		goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*testWorkflowEnvironmentImpl).executeActivityWithRetryForTest"),
	)
}
