package temporaltool_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/temporaltool"
)

const (
	// cliEnv names the Temporal CLI that starts the dev server; without it
	// the tests look for `temporal` on PATH.
	cliEnv = "AGENTTOOL_TEMPORAL_CLI"
	// workerEnv, set to a server's host:port, makes the test binary a
	// worker process (see TestMain) that a test can kill.
	workerEnv = "AGENTTOOL_TEMPORAL_WORKER"
	// recordEnv, set to 1, makes the real-server tests write the histories
	// they run to testdata, for the replay test.
	recordEnv = "AGENTTOOL_RECORD_HISTORY"
	taskQueue = "agenttool-test"
	// waitLimit bounds every wait for the server or a workflow.
	waitLimit = 2 * time.Minute
)

// runWorker runs a worker of agentRegistry's tools, and of the example's
// agent workflow with its model, until the process is killed or
// interrupted, and returns the exit code.
func runWorker(hostPort string) int {
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	c, err := client.Dial(client.Options{HostPort: hostPort, Logger: logger})
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker: dial:", err)
		return 1
	}
	defer c.Close()
	turns, err := temporaltool.New(agentRegistry(), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	w := worker.New(c, taskQueue, worker.Options{})
	if err := turns.Register(w); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	w.RegisterActivityWithOptions(scriptedModel("1"), activity.RegisterOptions{Name: "model"})
	w.RegisterWorkflowWithOptions(agentWorkflow(turns), workflow.RegisterOptions{Name: "agent"})
	if err := w.Run(worker.InterruptCh()); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}

// temporalCLI returns the path of the Temporal CLI, or skips the test.
func temporalCLI(t *testing.T) string {
	t.Helper()
	if path := os.Getenv(cliEnv); path != "" {
		_, err := os.Stat(path)
		require.NoError(t, err, "%s names a Temporal CLI that is not there", cliEnv)
		return path
	}
	path, err := exec.LookPath("temporal")
	if err != nil {
		t.Skipf("no Temporal CLI: set %s to its path or put `temporal` on PATH "+
			"(go install github.com/temporalio/cli/cmd/temporal@v1.5.1)", cliEnv)
	}
	return path
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// process is a child process whose output goes to a log file.
type process struct {
	name   string
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
}

func start(t *testing.T, name string, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{name: name, cmd: cmd, log: filepath.Join(t.TempDir(), name+".log"), exited: make(chan struct{})}
	out, err := os.Create(p.log)
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start(), "starting %s", name)
	go func() {
		_ = cmd.Wait()
		_ = out.Close()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.kill(t)
		if t.Failed() {
			text, _ := os.ReadFile(p.log)
			t.Logf("log of %s:\n%s", name, text)
		}
	})
	return p
}

// kill ends the process at once, as a crash would, and waits for it.
func (p *process) kill(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Kill()
	select {
	case <-p.exited:
	case <-time.After(waitLimit):
		t.Fatalf("%s did not exit within %v of SIGKILL", p.name, waitLimit)
	}
}

// devServer is a Temporal dev server on 127.0.0.1 keeping its state in a
// SQLite file, so that it can be killed and started again.
type devServer struct {
	cli, db string
	port    int
}

func newDevServer(t *testing.T) *devServer {
	t.Helper()
	return &devServer{cli: temporalCLI(t), db: filepath.Join(t.TempDir(), "temporal.db"), port: freePort(t)}
}

func (s *devServer) hostPort() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// start starts the server and returns it with a client once it answers;
// the caller closes the client.
func (s *devServer) start(t *testing.T) (*process, client.Client) {
	t.Helper()
	p := start(t, "temporal-server", exec.Command(s.cli, "server", "start-dev",
		"--db-filename", s.db, "--ip", "127.0.0.1", "--port", strconv.Itoa(s.port), "--headless", "--log-level", "error"))
	var c client.Client
	waitFor(t, p, "the dev server to answer", func() (bool, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		c, err = client.DialContext(ctx, client.Options{HostPort: s.hostPort(), Logger: quietLogger()})
		return err == nil, nil
	})
	return p, c
}

// startWorker starts a worker process: this test binary, re-executed.
func startWorker(t *testing.T, hostPort string) *process {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"="+hostPort)
	return start(t, "worker", cmd)
}

// waitFor polls cond until it holds, failing the test after waitLimit, or
// at once if cond fails or a process it needs exits.
func waitFor(t *testing.T, needs *process, what string, cond func() (bool, error)) {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(waitLimit)
	for {
		ok, err := cond()
		require.NoError(t, err, "waiting for %s", what)
		if ok {
			return
		}
		select {
		case <-tick.C:
		case <-needs.exited:
			t.Fatalf("%s exited while waiting for %s", needs.name, what)
		case <-limit:
			t.Fatalf("waited %v for %s", waitLimit, what)
		}
	}
}

// history returns the events of a workflow execution.
func history(t *testing.T, c client.Client, id, runID string) *historypb.History {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	iter := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for iter.HasNext() {
		e, err := iter.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, e)
	}
	return h
}

func count(h *historypb.History, typ enumspb.EventType) int {
	n := 0
	for _, e := range h.Events {
		if e.GetEventType() == typ {
			n++
		}
	}
	return n
}

// recordHistory writes h under testdata when recordEnv is set.
func recordHistory(t *testing.T, h *historypb.History, name string) {
	t.Helper()
	if os.Getenv(recordEnv) != "1" {
		return
	}
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: " "}.Marshal(h)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join("testdata", name), append(b, '\n'), 0o644))
	t.Logf("recorded %d events in testdata/%s", len(h.Events), name)
}

func querySnapshot(t *testing.T, c client.Client, id, runID string) agenttool.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	v, err := c.QueryWorkflow(ctx, id, runID, temporaltool.QuerySnapshot)
	require.NoError(t, err)
	var s agenttool.Snapshot
	require.NoError(t, v.Get(&s))
	return s
}

func TestTurnSurvivesRestartsMidSleep(t *testing.T) {
	const sleep = 20 * time.Second
	began := time.Now()
	srv := newDevServer(t)
	server, c := srv.start(t)
	w := startWorker(t, srv.hostPort())

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	calls := []agenttool.ToolCall{
		call("1", "echo", `{"text":"before the sleep"}`),
		call("2", "sleep", `{"seconds":`+strconv.Itoa(int(sleep/time.Second))+`}`),
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "restart-mid-sleep", TaskQueue: taskQueue}, temporaltool.TurnWorkflow, calls)
	require.NoError(t, err)
	id, runID := run.GetID(), run.GetRunID()
	waitFor(t, w, "the sleep's timer to start", func() (bool, error) {
		return count(history(t, c, id, runID), enumspb.EVENT_TYPE_TIMER_STARTED) == 1, nil
	})
	mid := querySnapshot(t, c, id, runID)
	require.Len(t, mid.Blocks, 2)
	require.Equal(t, agenttool.StatusSucceeded, mid.Blocks[0].Status)
	require.Equal(t, agenttool.StatusRunning, mid.Blocks[1].Status, "the sleep is running when the processes die")

	w.kill(t)
	server.kill(t)
	c.Close()
	_, c = srv.start(t)
	defer c.Close()
	startWorker(t, srv.hostPort())

	var final agenttool.Snapshot
	require.NoError(t, c.GetWorkflow(ctx, id, runID).Get(ctx, &final), "the turn did not complete after the restarts")
	t.Logf("restart test: %v of wall time, for a sleep of %v", time.Since(began).Round(time.Millisecond), sleep)

	require.True(t, final.Final)
	require.Len(t, final.Blocks, 2)
	echo, slept := final.Blocks[0], final.Blocks[1]
	require.Equal(t, agenttool.StatusSucceeded, echo.Status)
	require.Equal(t, agenttool.OK("before the sleep"), echo.Result)
	require.Equal(t, agenttool.StatusSucceeded, slept.Status)
	require.Equal(t, agenttool.OK("Slept for 20 second(s)."), slept.Result)
	require.GreaterOrEqual(t, slept.EndedAt.Sub(slept.StartedAt), sleep)

	h := history(t, c, id, runID)
	require.Equal(t, 1, count(h, enumspb.EVENT_TYPE_TIMER_STARTED), "the sleep was started over")
	require.Equal(t, 1, count(h, enumspb.EVENT_TYPE_TIMER_FIRED))
	require.Equal(t, 1, count(h, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED), "only echo is an activity")
	desc, err := c.DescribeWorkflow(ctx, id, runID)
	require.NoError(t, err)
	require.NotNil(t, desc.WorkflowCloseTime)
	took := desc.WorkflowCloseTime.Sub(desc.WorkflowStartTime)
	require.Less(t, took, 2*sleep, "the turn took %v: the sleep was not resumed where it was", took)

	require.Equal(t, final, querySnapshot(t, c, id, runID), "the closed turn answers its final snapshot")
	recordHistory(t, h, "restart.history.json")
}

func TestCancellationReachesTheToolWithinTheHeartbeatTimeout(t *testing.T) {
	const heartbeat = 3 * time.Second
	srv := newDevServer(t)
	_, c := srv.start(t)
	defer c.Close()

	started, stopped := make(chan struct{}), make(chan time.Time, 1)
	turns := newTurns(t, registry(t, holdTool(started, stopped)), &temporaltool.Options{
		Activity: workflow.ActivityOptions{HeartbeatTimeout: heartbeat},
	})
	w := worker.New(c, "in-process", worker.Options{})
	require.NoError(t, turns.Register(w))
	require.NoError(t, w.Start())
	defer w.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "cancel-held", TaskQueue: "in-process"},
		temporaltool.TurnWorkflow, []agenttool.ToolCall{call("1", "hold", `{}`)})
	require.NoError(t, err)
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the tool did not start")
	}
	cancelled := time.Now()
	require.NoError(t, c.CancelWorkflow(ctx, run.GetID(), run.GetRunID()))
	select {
	case at := <-stopped:
		t.Logf("the tool's context ended %v after the cancellation", at.Sub(cancelled).Round(time.Millisecond))
		require.LessOrEqual(t, at.Sub(cancelled), heartbeat, "the cancellation took longer than the heartbeat timeout")
	case <-ctx.Done():
		t.Fatal("the tool's context was not cancelled")
	}

	var canceled *temporal.CanceledError
	require.ErrorAs(t, run.Get(ctx, nil), &canceled, "a cancelled turn ends as cancelled")
	snap := querySnapshot(t, c, run.GetID(), run.GetRunID())
	require.True(t, snap.Final)
	require.Len(t, snap.Blocks, 1)
	require.Equal(t, agenttool.StatusCancelled, snap.Blocks[0].Status)
	require.Equal(t, "cancelled: the turn ended before the call finished (canceled)", snap.Blocks[0].Result.Error)
	h := history(t, c, run.GetID(), run.GetRunID())
	require.Equal(t, 1, count(h, enumspb.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED))
	require.Equal(t, 1, count(h, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED))
	recordHistory(t, h, "cancel.history.json")
}

func TestAgentWorkflowOnTwoWorkers(t *testing.T) {
	srv := newDevServer(t)
	_, c := srv.start(t)
	defer c.Close()
	startWorker(t, srv.hostPort())
	startWorker(t, srv.hostPort())

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "agent", TaskQueue: taskQueue}, "agent")
	require.NoError(t, err)
	var answer string
	require.NoError(t, run.Get(ctx, &answer))
	require.Equal(t, "Done: Hello, Ada! Hello, Grace! Slept for 1 second(s).", answer)

	snap := querySnapshot(t, c, run.GetID(), run.GetRunID())
	require.False(t, snap.Final, "Final belongs to TurnWorkflow alone")
	require.Len(t, snap.Blocks, 3)
	for _, b := range snap.Blocks {
		require.Equal(t, agenttool.StatusSucceeded, b.Status, "call %s", b.Call.ID)
	}
	require.Equal(t, snap.Blocks[0].StartedAt, snap.Blocks[1].StartedAt, "the greetings ran concurrently")
	h := history(t, c, run.GetID(), run.GetRunID())
	require.Equal(t, 1, count(h, enumspb.EVENT_TYPE_TIMER_STARTED))
	recordHistory(t, h, "agent.history.json")
}
