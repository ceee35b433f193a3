// Package adktool makes the tools of an [agenttool.Registry] tools of an
// agent built with Google's Agent Development Kit (google.golang.org/adk/v2).
//
//	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
//	tools, err := adktool.Tools(reg)
//	a, err := llmagent.New(llmagent.Config{Name: "assistant", Model: m, Tools: tools})
//	r, err := runner.New(runner.Config{AppName: "app", Agent: a, SessionService: session.InMemoryService()})
//	for ev, err := range r.Run(ctx, "user", sessionID, genai.NewContentFromText("Wait 5 seconds.", genai.RoleUser), agent.RunConfig{}) { ... }
//
// # What the model sees
//
// Each tool is declared with its name, its description and its whole
// Parameters schema as the declaration's JSON Schema
// (genai.FunctionDeclaration.ParametersJsonSchema), byte for byte, never
// converted to genai's narrower Schema type. A call's answer is the function
// response {"result": output} when the call succeeded and {"error": why} when
// it failed, the shapes ADK itself uses for a function's result and for a
// tool error. Arguments the tool rejects, an unsuccessful result and a
// panic in the tool are failed calls: the model reads why and may try again,
// and the agent run goes on.
//
// # Arguments
//
// The tool is the one judge of its arguments: unlike ADK's functiontool,
// nothing validates them against the schema before the tool runs. ADK hands
// a tool the arguments already parsed into Go values (a map[string]any whose
// numbers are float64), so the JSON the tool receives is that value encoded
// again: equal in meaning to what the model sent, not in spelling. Key order
// is not kept, a number loses its spelling (`1.0` arrives as `1`, `1e3` as
// `1000`), and an integer beyond 2^53 may already have been rounded by the
// parsing. So a tool that rejects fractional spellings, as sleep rejects
// `{"seconds":1.0}`, accepts them through ADK.
//
// # Concurrency and cancellation
//
// ADK runs the calls of one model response in parallel. The tools made by
// one [Tools] call share one [agenttool.Caller], so the batch rule of a
// [agenttool.Turn] holds across them: a tool that is not
// [agenttool.ConcurrencySafe] runs with no other of those tools, while safe
// tools run side by side. When the run's context ends, a call waiting for its
// turn or running returns at once with a Go error wrapping
// [agenttool.ErrTurnEnded] and the context's error, as ADK expects of a tool
// whose context ended.
package adktool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/genai"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/toolutils"

	"github.com/agenttool/agenttool"
)

// ErrReservedName is returned (wrapped) by [Tools] when a tool's name is one
// that ADK's flow answers itself without running any tool, so that a tool of
// that name could never run.
var ErrReservedName = errors.New("adktool: tool name reserved by ADK")

// reserved holds the function names that ADK's flow intercepts before
// looking up a tool: "stop_streaming" ends live streaming tools.
var reserved = map[string]bool{"stop_streaming": true}

// Tools returns one ADK tool for each tool of reg, in registration order, for
// an llmagent's Tools. A nil reg is an empty registry. The tools share one
// [agenttool.Caller] (see the package doc); they are safe for concurrent use
// and may serve several agents and runs at once. It returns an error
// wrapping [ErrReservedName] when a tool's name is one ADK keeps for itself.
func Tools(reg *agenttool.Registry) ([]tool.Tool, error) {
	caller := agenttool.NewCaller(reg, nil)
	defs := reg.Definitions()
	out := make([]tool.Tool, 0, len(defs))
	for _, def := range defs {
		if reserved[def.Name] {
			return nil, fmt.Errorf("%w: %q", ErrReservedName, def.Name)
		}
		out = append(out, &adkTool{def: def, caller: caller})
	}
	return out, nil
}

// adkTool is one registry tool as an ADK function tool: the methods of
// tool.Tool, plus Declaration and Run, which ADK's flow looks for to call a
// function, and ProcessRequest, through which the llmagent declares it to
// the model.
type adkTool struct {
	def    agenttool.Definition
	caller *agenttool.Caller
}

// The interfaces ADK's flow asserts at run time, held to here so that a
// change in ADK fails the build rather than hiding the tools.
var (
	_ tool.Tool      = (*adkTool)(nil)
	_ toolutils.Tool = (*adkTool)(nil)
	_ requestPacker  = (*adkTool)(nil)
	_ functionRunner = (*adkTool)(nil)
)

type requestPacker interface {
	ProcessRequest(ctx agent.Context, req *model.LLMRequest) error
}

type functionRunner interface {
	Run(ctx agent.Context, args any) (map[string]any, error)
}

// Name returns the tool's name.
func (t *adkTool) Name() string { return t.def.Name }

// Description returns the tool's description.
func (t *adkTool) Description() string { return t.def.Description }

// IsLongRunning reports false: a call returns its answer when it ends.
func (t *adkTool) IsLongRunning() bool { return false }

// Declaration declares the tool with its Parameters as JSON Schema, in a new
// copy on every call, so that whoever edits the declaration it got (a model
// adapter, a callback) changes nothing for the next request.
func (t *adkTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name:                 t.def.Name,
		Description:          t.def.Description,
		ParametersJsonSchema: json.RawMessage(bytes.Clone(t.def.Parameters)),
	}
}

// ProcessRequest adds the tool to the request, as ADK's own function tools
// do.
func (t *adkTool) ProcessRequest(_ agent.Context, req *model.LLMRequest) error {
	return toolutils.PackTool(req, t)
}

// Run runs one call, as ADK's flow does for each function call of a model
// response: args, the parsed arguments (nil meaning none), are encoded to
// JSON once, and the call runs through the shared Caller. It returns
// {"result": output} or {"error": why} with a nil error, or a nil map and
// the error of a call whose context ended (or whose args JSON cannot hold).
// A nil ctx means context.Background().
func (t *adkTool) Run(ctx agent.Context, args any) (map[string]any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("adktool: encoding the arguments of %q: %w", t.def.Name, err)
	}
	var id string
	var runCtx context.Context = ctx
	if ctx == nil {
		runCtx = context.Background()
	} else {
		id = ctx.FunctionCallID()
	}
	block, err := t.caller.Call(runCtx, agenttool.ToolCall{ID: id, Name: t.def.Name, Args: raw})
	if err != nil {
		return nil, err
	}
	if block.Status == agenttool.StatusSucceeded {
		return map[string]any{"result": block.Result.Output}, nil
	}
	return map[string]any{"error": block.Result.Error}, nil
}
