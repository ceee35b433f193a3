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
	goleak.VerifyTestMain(m)
}
