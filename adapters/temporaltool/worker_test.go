package temporaltool_test

const workerEnv = "AGENTTOOL_TEMPORAL_WORKER"

func runWorker(hostPort string) int { _ = hostPort; return 1 }
