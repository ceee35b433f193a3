// Package einotool lets agents built on CloudWeGo Eino
// (github.com/cloudwego/eino) call the tools of an [agenttool.Registry],
// and lets an [agenttool.Turn] run Eino's tools.
//
//	tools, err := einotool.Tools(reg)
//	agent, err := react.NewAgent(ctx, &react.AgentConfig{
//		ToolCallingModel: chatModel,
//		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools},
//	})
//	answer, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("...")})
//
// # What Eino sees
//
// Each tool of [Tools] tells Eino its name, its description and its whole
// Parameters schema, passed through Eino's JSON Schema entry point
// ([schema.NewParamsOneOfByJSONSchema]) so that the schema a model receives
// is the same JSON value: every keyword, extensions included, the order of
// the properties and numbers as written. The arguments the model sent reach
// the tool's Execute byte for byte; the tool, not Eino, judges them.
//
// A call that fails (arguments the tool refuses, its unsuccessful result,
// its error or its panic) answers the model with "error: " and the reason,
// as an ordinary tool message, because a Go error from a tool aborts Eino's
// whole graph. Only a call whose context ended returns a Go error.
//
// # Concurrency
//
// Eino's ToolsNode runs the calls of one model message in parallel unless
// ExecuteSequentially is set. The tools made by one [Tools] call keep the
// batch rule of a [agenttool.Turn] across them all the same: a tool that is
// not [agenttool.ConcurrencySafe] runs with no other of these tools, while
// safe tools run side by side. The order in which calls that must not
// overlap run is the order in which they reach the tools, which in parallel
// mode is not the order the model wrote them; set
// compose.ToolsNodeConfig.ExecuteSequentially when that order matters.
package einotool

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agenttool/agenttool"
)

// FailurePrefix starts the text a failed call answers the model with,
// followed by the reason (the [agenttool.ToolResult] Error).
const FailurePrefix = "error: "

// Tools returns one Eino tool for each tool of reg, in registration order;
// each is a [tool.InvokableTool]. A nil reg gives an empty slice.
//
// The tools share one [agenttool.Caller], so they keep the batch rule among
// themselves (see the package doc); tools from two Tools calls, even over
// the same registry, do not see each other. They are safe for concurrent
// use. Info returns a new [schema.ToolInfo] on each call, which the caller
// may change.
//
// InvokableRun runs one call, whose ID is Eino's tool call ID
// ([compose.GetToolCallID]), and returns the tool's Output when it
// succeeded, or [FailurePrefix] and the reason with a nil error when it
// failed. When ctx ends while the call waits for its turn or runs,
// InvokableRun returns at once with an error wrapping
// [agenttool.ErrTurnEnded] and ctx's error; a tool that ignores its context
// may then still be running. Eino's tool options are ignored.
//
// Tools returns an error when a tool's Parameters are not a JSON object,
// which [agenttool.NewRegistry] already refuses.
func Tools(reg *agenttool.Registry) ([]tool.BaseTool, error) {
	caller := agenttool.NewCaller(reg, nil)
	defs := reg.Definitions()
	out := make([]tool.BaseTool, 0, len(defs))
	for _, def := range defs {
		if _, err := schemaOf(def.Parameters); err != nil {
			return nil, fmt.Errorf("einotool: tool %q: %w", def.Name, err)
		}
		out = append(out, &invokable{def: def, caller: caller})
	}
	return out, nil
}

// invokable is an agenttool tool as Eino sees it.
type invokable struct {
	def    agenttool.Definition
	caller *agenttool.Caller
}

var _ tool.InvokableTool = (*invokable)(nil)

// Info describes the tool; its schema is converted anew on each call so
// that no caller can change what another sees.
func (t *invokable) Info(context.Context) (*schema.ToolInfo, error) {
	params, err := schemaOf(t.def.Parameters)
	if err != nil {
		return nil, fmt.Errorf("einotool: tool %q: %w", t.def.Name, err)
	}
	return &schema.ToolInfo{
		Name:        t.def.Name,
		Desc:        t.def.Description,
		ParamsOneOf: schema.NewParamsOneOfByJSONSchema(params),
	}, nil
}

// InvokableRun runs one call; see [Tools].
func (t *invokable) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	block, err := t.caller.Call(ctx, agenttool.ToolCall{
		ID:   compose.GetToolCallID(ctx),
		Name: t.def.Name,
		Args: json.RawMessage(argumentsInJSON),
	})
	if err != nil {
		return "", err
	}
	if block.Status == agenttool.StatusSucceeded {
		return block.Result.Output, nil
	}
	return FailurePrefix + block.Result.Error, nil
}
