package openaitool

import (
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agenttool/agenttool"
)

// ResponsesTools returns defs as Responses API function tools, in order, for
// ResponseNewParams.Tools. Each tool carries the definition's name, its
// description (left out when empty), its parameters, with "type": "object"
// added where the schema has none, and "strict" always: the Responses API
// reads a tool without it as strict, which would reject most schemas as
// they are. With opts.Strict, a tool whose schema [StrictSchema] rewrites
// is sent with "strict": true and the rewritten schema, and any other with
// "strict": false and its schema as it is; without, every tool is sent
// with "strict": false.
//
// It returns an error wrapping [ErrInvalidDefinition] as [ChatTools] does,
// and writes the schemas as it does.
func ResponsesTools(defs []agenttool.Definition, opts *Options) ([]responses.ToolUnionParam, error) {
	fns, err := functions(defs, opts)
	if err != nil {
		return nil, err
	}
	out := make([]responses.ToolUnionParam, len(fns))
	for i, f := range fns {
		tool := &responses.FunctionToolParam{Name: f.name, Parameters: f.params, Strict: openai.Bool(f.strict)}
		if f.description != "" {
			tool.Description = openai.String(f.description)
		}
		out[i] = responses.ToolUnionParam{OfFunction: tool}
	}
	return out, nil
}

// ResponsesCalls returns the calls of resp's output that wait for an answer
// from this package, in output order, each with the item's call_id as its
// ID (the id the answer must name, not the item's own id); none for a nil
// resp.
//
// A function_call's Args are its arguments as the model wrote them, never
// decoded: text that is not JSON reaches the tool, which refuses it with an
// error the model reads. A custom_tool_call is named "custom:" and the
// tool's name, which no tool can have, so a Turn fails it as an unknown tool
// and [ResponsesResults] answers it with a custom_tool_call_output; its
// free-text input is its Args. A call with an empty name fails as unknown
// too. Every other item is left alone: messages and reasoning are not
// calls, OpenAI runs its hosted tools itself, and the client-side built-in
// tools (computer use, shell, apply_patch) are declared by the caller, who
// answers them with the outputs only its own harness can produce.
func ResponsesCalls(resp *responses.Response) []agenttool.ToolCall {
	if resp == nil {
		return nil
	}
	var out []agenttool.ToolCall
	for _, item := range resp.Output {
		switch item.Type {
		case "function_call":
			out = append(out, agenttool.ToolCall{ID: item.CallID, Name: item.Name, Args: rawArgs(item.Arguments.OfString, item.JSON.Arguments)})
		case "custom_tool_call":
			out = append(out, agenttool.ToolCall{ID: item.CallID, Name: customPrefix + item.Name, Args: json.RawMessage(item.Input)})
		}
	}
	return out
}

// ResponsesResults returns one input item for each block, in order, to send
// as the next request's input (with PreviousResponseID, or after the
// previous output items): a function_call_output, or a
// custom_tool_call_output for a custom tool call from [ResponsesCalls],
// naming the call's ID as call_id, with the text the package doc's table
// gives: the Output of a call that succeeded, "error: " and the Error of any
// other, cancelled calls included, so that every call gets its answer.
func ResponsesResults(blocks []agenttool.ToolBlock) []responses.ResponseInputItemUnionParam {
	out := make([]responses.ResponseInputItemUnionParam, len(blocks))
	for i, b := range blocks {
		text := resultText(b)
		if strings.HasPrefix(b.Call.Name, customPrefix) {
			out[i] = responses.ResponseInputItemUnionParam{OfCustomToolCallOutput: &responses.ResponseCustomToolCallOutputParam{
				CallID: b.Call.ID,
				Output: responses.ResponseCustomToolCallOutputOutputUnionParam{OfString: openai.String(text)},
			}}
			continue
		}
		out[i] = responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
			CallID: openai.String(b.Call.ID),
			Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String(text)},
		}}
	}
	return out
}
