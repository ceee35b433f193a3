// Package genkittool makes the tools of an [agenttool.Registry] tools of
// Firebase Genkit for Go (github.com/firebase/genkit/go).
//
//	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
//	tools, err := genkittool.Tools(reg)
//	refs := make([]ai.ToolRef, len(tools))
//	for i, t := range tools {
//		refs[i] = t
//	}
//	g := genkit.Init(ctx, genkit.WithPlugins(&googlegenai.GoogleAI{}))
//	resp, err := genkit.Generate(ctx, g, ai.WithModelName("googleai/gemini-2.5-flash"),
//		ai.WithPrompt("Wait 5 seconds."), ai.WithTools(refs...))
//
// Each [ai.Tool] is its own Genkit action: ai.WithTools takes it as it is,
// and genkit.Generate registers it for the call; it may also be registered
// once with its Register method. Tools whose names are already registered in
// the Genkit instance are not replaced: Generate uses the registered ones.
//
// # What the model sees
//
// A tool is described with its name, its description and its whole
// Parameters schema as the action's input schema (decoded to the
// map[string]any Genkit holds schemas in; integers beyond 2^53 in a schema
// would be rounded). The answer to a call is text: the tool's Output when the
// call succeeded, and "error: " followed by why when it failed. Arguments
// the tool rejects, an unsuccessful result and a panic in the tool are
// failed calls: the model reads why and may try again, and the generation
// goes on, where a Go error from a tool would abort the whole Generate. (A
// request for a tool that Generate was not given is Genkit's to answer: it
// aborts Generate with ai.ErrToolNotFound.)
//
// # Arguments
//
// The tool is the one judge of its arguments. A tool made with ai.NewTool
// and an input schema is a core.Action, which checks every input against
// its schema and aborts the whole Generate on a mismatch before the tool
// runs; these tools are actions of their own that advertise the schema
// without checking it, so the tool's own error reaches the model instead.
// Genkit hands a tool the arguments already parsed into Go values (numbers
// are float64), and encodes them to JSON again for the action, so the JSON a
// tool receives is equal in meaning to what the model sent, not in spelling:
// key order is not kept, a number loses its spelling (`1.0` arrives as `1`,
// `1e3` as `1000`), and an integer beyond 2^53 may already have been rounded
// by the parsing. So a tool that rejects fractional spellings, as sleep
// rejects `{"seconds":1.0}`, accepts them through Genkit.
//
// # Concurrency and cancellation
//
// Generate runs the tool requests of one model response in parallel. The
// tools made by one [Tools] call share one [agenttool.Caller], so the batch
// rule of a [agenttool.Turn] holds across them: a tool that is not
// [agenttool.ConcurrencySafe] runs with no other of those tools, while safe
// tools run side by side. When the context ends, a call waiting for its turn
// or running returns at once with a Go error wrapping
// [agenttool.ErrTurnEnded] and the context's error, and Generate returns it.
// These tools never interrupt.
package genkittool

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	"github.com/firebase/genkit/go/core/api"
	"github.com/firebase/genkit/go/core/tracing"

	"github.com/agenttool/agenttool"
)

// FailurePrefix starts the text the model reads when a call failed; why it
// failed follows.
const FailurePrefix = "error: "

// Tools returns one Genkit tool for each tool of reg, in registration
// order, for ai.WithTools. A nil reg is an empty registry. The tools share
// one [agenttool.Caller] (see the package doc); they are safe for concurrent
// use and may serve several Generate calls and Genkit instances at once. The
// error is reserved for tools a Genkit version cannot take; none is refused
// today.
func Tools(reg *agenttool.Registry) ([]ai.Tool, error) {
	caller := agenttool.NewCaller(reg, nil)
	defs := reg.Definitions()
	out := make([]ai.Tool, 0, len(defs))
	for _, def := range defs {
		out = append(out, &genkitTool{def: def, caller: caller})
	}
	return out, nil
}

// genkitTool is one registry tool as both an [ai.Tool] and the
// [api.Action] that Generate looks up and runs for it.
type genkitTool struct {
	def    agenttool.Definition
	caller *agenttool.Caller
}

var (
	_ ai.Tool    = (*genkitTool)(nil)
	_ api.Action = (*genkitTool)(nil)
)

// outputSchema describes the answer of every call: text.
var outputSchema = map[string]any{"type": "string"}

// Name returns the tool's name.
func (t *genkitTool) Name() string { return t.def.Name }

// Definition returns the tool's definition for a model, with its
// Parameters as the input schema, decoded anew for each caller.
func (t *genkitTool) Definition() *ai.ToolDefinition {
	return &ai.ToolDefinition{
		Name:         t.def.Name,
		Description:  t.def.Description,
		InputSchema:  t.inputSchema(),
		OutputSchema: maps.Clone(outputSchema),
		Metadata:     map[string]any{"multipart": false},
	}
}

// Desc describes the action as Genkit's own tools are described, so that
// ai.LookupTool and Generate treat it as one of them.
func (t *genkitTool) Desc() api.ActionDesc {
	return api.ActionDesc{
		Type:         api.ActionTypeToolV2,
		Key:          api.KeyFromName(api.ActionTypeToolV2, t.def.Name),
		Name:         t.def.Name,
		Description:  t.def.Description,
		InputSchema:  t.inputSchema(),
		OutputSchema: maps.Clone(outputSchema),
		Metadata: map[string]any{
			"type":        api.ActionTypeToolV2,
			"name":        t.def.Name,
			"description": t.def.Description,
			"tool":        map[string]any{"multipart": false},
		},
	}
}

// inputSchema decodes the Parameters into a new map, so that no caller
// shares one with another.
func (t *genkitTool) inputSchema() map[string]any {
	var schema map[string]any
	// The registry accepted Parameters only as a JSON object.
	_ = json.Unmarshal(t.def.Parameters, &schema)
	return schema
}

// Register registers the action under the "tool.v2" key Generate looks up
// first, and under the legacy "tool" key, as Genkit's own tools are. Like
// them, it panics if r already holds a tool of that name.
func (t *genkitTool) Register(r api.Registry) {
	r.RegisterAction(api.KeyFromName(api.ActionTypeToolV2, t.def.Name), t)
	r.RegisterAction(api.KeyFromName(api.ActionTypeTool, t.def.Name), t)
}

// RunRaw runs one call with input, the arguments as parsed values (nil
// meaning none), and returns the text the model reads. The error is non-nil
// only when the call's context ended or input cannot be encoded as JSON. A
// nil ctx means context.Background(), here and in the other Run methods.
func (t *genkitTool) RunRaw(ctx context.Context, input any) (any, error) {
	resp, err := t.RunRawMultipart(ctx, input)
	if err != nil {
		return nil, err
	}
	return resp.Output, nil
}

// RunRawMultipart runs one call as [genkitTool.RunRaw] does, input encoded
// to JSON once, and returns the text as the response's Output.
func (t *genkitTool) RunRawMultipart(ctx context.Context, input any) (*ai.MultipartToolResponse, error) {
	args, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("genkittool: encoding the arguments of %q: %w", t.def.Name, err)
	}
	text, _, err := t.run(ctx, args)
	if err != nil {
		return nil, err
	}
	return &ai.MultipartToolResponse{Output: text}, nil
}

// RunJSON runs one call with input, the arguments as JSON, and returns the
// JSON of the multipart response whose output is the text the model reads.
// Nothing checks input against the schema first; the tool judges it. This
// is the method Generate reaches, through the [ai.Tool] it looks up for the
// registered action. The error is non-nil only when the call's context
// ended.
func (t *genkitTool) RunJSON(ctx context.Context, input json.RawMessage, cb func(context.Context, json.RawMessage) error) (json.RawMessage, error) {
	res, err := t.RunJSONWithTelemetry(ctx, input, cb)
	if err != nil {
		return nil, err
	}
	return res.Result, nil
}

// wireResponse is ai.MultipartToolResponse on the wire with an output that
// is never omitted, so that an empty Output still reaches the model as "".
type wireResponse struct {
	Output string `json:"output"`
}

// RunJSONWithTelemetry is [genkitTool.RunJSON] that also returns the IDs of
// the call's trace span. The tools do not stream, so cb is not called.
func (t *genkitTool) RunJSONWithTelemetry(ctx context.Context, input json.RawMessage, _ func(context.Context, json.RawMessage) error) (*api.ActionRunResult[json.RawMessage], error) {
	text, info, err := t.run(ctx, input)
	res := &api.ActionRunResult[json.RawMessage]{TraceId: info.TraceID, SpanId: info.SpanID}
	if err != nil {
		return res, err
	}
	res.Result, err = json.Marshal(wireResponse{Output: text})
	return res, err
}

// run runs one call through the shared Caller, in a trace span shaped as
// the span Genkit opens for its own tools, and returns the text the model
// reads, or the Go error of a call whose context ended. A nil ctx means
// context.Background().
func (t *genkitTool) run(ctx context.Context, args json.RawMessage) (string, tracing.TraceInfo, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	span := &tracing.SpanMetadata{
		Name:            t.def.Name,
		Type:            "action",
		Subtype:         string(api.ActionTypeToolV2),
		Metadata:        map[string]string{},
		TelemetryLabels: tracing.TelemetryLabelsFromContext(ctx),
	}
	if flow := core.FlowNameFromContext(ctx); flow != "" {
		span.Metadata["flow:name"] = flow
	}
	var info tracing.TraceInfo
	text, err := tracing.RunInNewSpan(ctx, span, args, func(ctx context.Context, args json.RawMessage) (string, error) {
		info = tracing.SpanTraceInfo(ctx)
		block, err := t.caller.Call(ctx, agenttool.ToolCall{Name: t.def.Name, Args: args})
		if err != nil {
			return "", err
		}
		if block.Status == agenttool.StatusSucceeded {
			return block.Result.Output, nil
		}
		return FailurePrefix + block.Result.Error, nil
	})
	return text, info, err
}

// Respond builds the response part for an interrupted request of this
// tool, as Genkit's own tools do; these tools never interrupt, so it serves
// code that handles every tool's interrupts alike. It returns nil when
// toolReq is not a tool request.
func (t *genkitTool) Respond(toolReq *ai.Part, output any, opts *ai.RespondOptions) *ai.Part {
	if toolReq == nil || !toolReq.IsToolRequest() {
		return nil
	}
	part := ai.NewResponseForToolRequest(toolReq, output)
	part.Metadata = map[string]any{"interruptResponse": true}
	if opts != nil && opts.Metadata != nil {
		part.Metadata["interruptResponse"] = opts.Metadata
	}
	return part
}

// Restart builds the part that runs an interrupted request of this tool
// again, as Genkit's own tools do, with the input replaced and the resumed
// metadata set as opts say. It returns nil when toolReq is not a tool
// request.
func (t *genkitTool) Restart(toolReq *ai.Part, opts *ai.RestartOptions) *ai.Part {
	if toolReq == nil || !toolReq.IsToolRequest() {
		return nil
	}
	if opts == nil {
		opts = &ai.RestartOptions{}
	}
	meta := maps.Clone(toolReq.Metadata)
	if meta == nil {
		meta = map[string]any{}
	}
	delete(meta, "interrupt")
	meta["resumed"] = true
	if opts.ResumedMetadata != nil {
		meta["resumed"] = opts.ResumedMetadata
	}
	input := toolReq.ToolRequest.Input
	if opts.ReplaceInput != nil {
		meta["replacedInput"] = input
		input = opts.ReplaceInput
	}
	part := ai.NewToolRequestPart(&ai.ToolRequest{Name: toolReq.ToolRequest.Name, Ref: toolReq.ToolRequest.Ref, Input: input})
	part.Metadata = meta
	return part
}
