package temporaltool_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/temporaltool"
	"github.com/agenttool/agenttool/functool"
)

// reply is what the model answers: tool calls to run, or, once it has
// none, its final text.
type reply struct {
	Calls []agenttool.ToolCall
	Text  string
}

// scriptedModel stands in for a model provider, called as an activity with
// the tool results so far: it asks for two greetings at once, then for a
// pause, then answers.
func scriptedModel(pause string) func(context.Context, []string) (reply, error) {
	return func(_ context.Context, results []string) (reply, error) {
		switch len(results) {
		case 0:
			return reply{Calls: []agenttool.ToolCall{
				{ID: "c1", Name: "greet", Args: []byte(`{"name":"Ada"}`)},
				{ID: "c2", Name: "greet", Args: []byte(`{"name":"Grace"}`)},
			}}, nil
		case 2:
			return reply{Calls: []agenttool.ToolCall{{ID: "c3", Name: "sleep", Args: []byte(`{"seconds":` + pause + `}`)}}}, nil
		default:
			return reply{Text: "Done: " + strings.Join(results, " ")}, nil
		}
	}
}

// agentWorkflow is a runtime's own agent loop as a workflow: model calls
// are activities, and each batch of tool calls goes through RunBatch.
func agentWorkflow(turns *temporaltool.Turns) func(workflow.Context) (string, error) {
	return func(ctx workflow.Context) (string, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		var results []string
		for {
			var r reply
			if err := workflow.ExecuteActivity(ctx, "model", results).Get(ctx, &r); err != nil {
				return "", err
			}
			if len(r.Calls) == 0 {
				return r.Text, nil
			}
			blocks, err := turns.RunBatch(ctx, r.Calls)
			if err != nil {
				return "", err
			}
			for _, b := range blocks {
				results = append(results, b.Result.Output+b.Result.Error)
			}
		}
	}
}

type greetArgs struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// greetTool is a functool tool, safe to run concurrently.
func greetTool() agenttool.Tool {
	greet, err := functool.New("greet", "Greets someone by name.",
		func(_ context.Context, in greetArgs) (agenttool.ToolResult, error) {
			return agenttool.OK("Hello, " + in.Name + "!"), nil
		}, &functool.Options{ConcurrencySafe: true})
	if err != nil {
		panic(err)
	}
	return greet
}

// greetRegistry holds sleep and greet.
func greetRegistry() *agenttool.Registry {
	reg, err := agenttool.NewRegistry(append(agenttool.DefaultTools(), greetTool())...)
	if err != nil {
		panic(err)
	}
	return reg
}

func Example() {
	turns, err := temporaltool.New(greetRegistry(), nil)
	if err != nil {
		panic(err)
	}

	// The SDK's test environment stands in for a worker of a cluster (see
	// the package doc): it skips the hour of the sleep.
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := suite.NewTestWorkflowEnvironment()
	if err := turns.Register(env); err != nil {
		panic(err)
	}
	env.RegisterActivityWithOptions(scriptedModel("3600"), activity.RegisterOptions{Name: "model"})
	env.RegisterWorkflowWithOptions(agentWorkflow(turns), workflow.RegisterOptions{Name: "agent"})

	env.ExecuteWorkflow("agent")
	var answer string
	if err := env.GetWorkflowResult(&answer); err != nil {
		panic(err)
	}
	fmt.Println(answer)

	v, err := env.QueryWorkflow(temporaltool.QuerySnapshot)
	if err != nil {
		panic(err)
	}
	var snap agenttool.Snapshot
	if err := v.Get(&snap); err != nil {
		panic(err)
	}
	for _, b := range snap.Blocks {
		fmt.Printf("%s %s %s: %s (%v)\n", b.Call.ID, b.Call.Name, b.Status, b.Result.Output, b.EndedAt.Sub(b.StartedAt))
	}
	// Output:
	// Done: Hello, Ada! Hello, Grace! Slept for 3600 second(s).
	// c1 greet succeeded: Hello, Ada! (0s)
	// c2 greet succeeded: Hello, Grace! (0s)
	// c3 sleep succeeded: Slept for 3600 second(s). (1h0m0s)
}

func Example_turnWorkflow() {
	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	if err != nil {
		panic(err)
	}
	turns, err := temporaltool.New(reg, nil)
	if err != nil {
		panic(err)
	}
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := suite.NewTestWorkflowEnvironment()
	if err := turns.Register(env); err != nil {
		panic(err)
	}

	// A client starts the same workflow with client.ExecuteWorkflow(ctx,
	// opts, temporaltool.TurnWorkflow, calls) and reads the same result.
	env.ExecuteWorkflow(temporaltool.TurnWorkflow, []agenttool.ToolCall{
		{ID: "1", Name: "sleep", Args: []byte(`{"seconds":86400}`)},
		{ID: "2", Name: "sleep", Args: []byte(`{"seconds":"soon"}`)},
	})
	var snap agenttool.Snapshot
	if err := env.GetWorkflowResult(&snap); err != nil {
		panic(err)
	}
	fmt.Println("final:", snap.Final)
	for _, b := range snap.Blocks {
		fmt.Println(b.Call.ID, b.Status, b.Result.Output+b.Result.Error)
	}
	// Output:
	// final: true
	// 1 succeeded Slept for 86400 second(s).
	// 2 failed "seconds" must be an integer from 0 to 86400, got "soon"
}
