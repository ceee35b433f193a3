package temporaltool_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/temporaltool"
	"github.com/agenttool/agenttool/functool"
)

type echoArgs struct {
	Text string `json:"text"`
}

// echoTool is a functool tool, safe to run concurrently, that answers its
// text.
func echoTool() agenttool.Tool {
	tool, err := functool.New("echo", "Repeats text.",
		func(_ context.Context, in echoArgs) (agenttool.ToolResult, error) { return agenttool.OK(in.Text), nil },
		&functool.Options{ConcurrencySafe: true})
	if err != nil {
		panic(err)
	}
	return tool
}

// funcTool is a tool made of fn.
func funcTool(name string, safe bool, fn func(context.Context, json.RawMessage) (agenttool.ToolResult, error)) agenttool.Tool {
	return &agenttool.FuncTool{ToolName: name, ToolDescription: name, Schema: json.RawMessage(`{"type":"object"}`), Fn: fn, Safe: safe}
}

// agentRegistry holds sleep, echo and greet: the tools of the worker
// processes in the real-server tests.
func agentRegistry() *agenttool.Registry {
	reg, err := agenttool.NewRegistry(append(agenttool.DefaultTools(), echoTool(), greetTool())...)
	if err != nil {
		panic(err)
	}
	return reg
}

func registry(t *testing.T, tools ...agenttool.Tool) *agenttool.Registry {
	t.Helper()
	reg, err := agenttool.NewRegistry(tools...)
	require.NoError(t, err)
	return reg
}

func newTurns(t *testing.T, reg *agenttool.Registry, opts *temporaltool.Options) *temporaltool.Turns {
	t.Helper()
	turns, err := temporaltool.New(reg, opts)
	require.NoError(t, err)
	return turns
}

// quietLogger drops the SDK's logs, which would otherwise go to stdout.
func quietLogger() log.Logger { return log.NewStructuredLogger(slog.New(slog.DiscardHandler)) }

// newEnv returns a test environment with turns registered on it.
func newEnv(t *testing.T, turns *temporaltool.Turns) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quietLogger())
	env := suite.NewTestWorkflowEnvironment()
	require.NoError(t, turns.Register(env))
	return env
}

// batchesWorkflow is a runtime's workflow that runs the given batches, as
// Go values, so that arguments that are not JSON reach RunBatch as they
// are; it returns every batch's blocks.
func batchesWorkflow(turns *temporaltool.Turns, batches ...[]agenttool.ToolCall) func(workflow.Context) ([][]agenttool.ToolBlock, error) {
	return func(ctx workflow.Context) ([][]agenttool.ToolBlock, error) {
		var out [][]agenttool.ToolBlock
		for _, calls := range batches {
			blocks, err := turns.RunBatch(ctx, calls)
			out = append(out, blocks)
			if err != nil {
				return out, err
			}
		}
		return out, nil
	}
}

// runBatches runs batches through batchesWorkflow in env.
func runBatches(t *testing.T, env *testsuite.TestWorkflowEnvironment, turns *temporaltool.Turns, batches ...[]agenttool.ToolCall) [][]agenttool.ToolBlock {
	t.Helper()
	env.RegisterWorkflowWithOptions(batchesWorkflow(turns, batches...), workflow.RegisterOptions{Name: "batches"})
	env.ExecuteWorkflow("batches")
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var out [][]agenttool.ToolBlock
	require.NoError(t, env.GetWorkflowResult(&out))
	return out
}

// query returns the workflow's answer to QuerySnapshot.
func query(t *testing.T, env *testsuite.TestWorkflowEnvironment) agenttool.Snapshot {
	t.Helper()
	v, err := env.QueryWorkflow(temporaltool.QuerySnapshot)
	require.NoError(t, err)
	var s agenttool.Snapshot
	require.NoError(t, v.Get(&s))
	return s
}

func call(id, name, args string) agenttool.ToolCall {
	return agenttool.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
}

// holdTool is a tool that holds its call until its context ends: it closes
// started when called (when not nil) and sends the time its context ended
// on stopped.
func holdTool(started chan<- struct{}, stopped chan<- time.Time) agenttool.Tool {
	return funcTool("hold", false, func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
		if started != nil {
			close(started)
		}
		<-ctx.Done()
		if stopped != nil {
			stopped <- time.Now()
		}
		return agenttool.ToolResult{}, ctx.Err()
	})
}
