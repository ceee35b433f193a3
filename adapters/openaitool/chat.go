package openaitool

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agenttool/agenttool"
)

// ChatTools returns defs as Chat Completions function tools, in order, for
// ChatCompletionNewParams.Tools. Each tool carries the definition's name,
// its description (left out when empty) and its parameters, with
// "type": "object" added where the schema has none. With opts.Strict, a
// tool whose schema [StrictSchema] rewrites is sent with "strict": true and
// the rewritten schema, and any other with "strict": false and its schema
// as it is; without, "strict" is left out, which the Chat Completions API
// reads as false.
//
// It returns an error wrapping [ErrInvalidDefinition] when a name is not 1
// to 64 letters, digits, '_' or '-', when two definitions share a name, or
// when Parameters are not a JSON object schema. No schema value is decoded
// on its way to the wire: each top-level member of Parameters is a
// json.RawMessage, which the SDK writes as that JSON (compacted), so
// numbers keep the lexemes they were written with.
func ChatTools(defs []agenttool.Definition, opts *Options) ([]openai.ChatCompletionToolUnionParam, error) {
	fns, err := functions(defs, opts)
	if err != nil {
		return nil, err
	}
	out := make([]openai.ChatCompletionToolUnionParam, len(fns))
	for i, f := range fns {
		def := shared.FunctionDefinitionParam{Name: f.name, Parameters: f.params}
		if f.description != "" {
			def.Description = openai.String(f.description)
		}
		if opts != nil && opts.Strict {
			def.Strict = openai.Bool(f.strict)
		}
		out[i] = openai.ChatCompletionFunctionTool(def)
	}
	return out, nil
}

// ChatCalls returns the tool calls of an assistant message, one for each
// entry of msg.ToolCalls, in order, with the model's ids; none when the
// message has none.
//
// A function call's Args are its arguments as the model wrote them, never
// decoded: text that is not JSON reaches the tool, which refuses it with an
// error the model reads. Any other kind of call gets a Name that no tool
// can have, so a Turn fails it as an unknown tool and the model reads why:
// a custom tool call is "custom:" and the tool's name, with its free-text
// input as Args; a type this package does not know is that type, ':' and
// the name, with the call's raw JSON as Args. A call with an empty name
// fails as unknown too. The legacy function_call field is not read: it
// comes only from requests with functions, not tools.
func ChatCalls(msg openai.ChatCompletionMessage) []agenttool.ToolCall {
	if len(msg.ToolCalls) == 0 {
		return nil
	}
	out := make([]agenttool.ToolCall, len(msg.ToolCalls))
	for i, tc := range msg.ToolCalls {
		switch tc.Type {
		case "function":
			out[i] = agenttool.ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: rawArgs(tc.Function.Arguments, tc.Function.JSON.Arguments)}
		case "custom":
			out[i] = agenttool.ToolCall{ID: tc.ID, Name: customPrefix + tc.Custom.Name, Args: json.RawMessage(tc.Custom.Input)}
		default:
			kind := tc.Type
			if kind == "" {
				kind = "untyped"
			}
			out[i] = agenttool.ToolCall{ID: tc.ID, Name: kind + ":" + tc.Function.Name + tc.Custom.Name, Args: json.RawMessage(tc.RawJSON())}
		}
	}
	return out
}

// ChatResults returns one tool message for each block, in order, to append
// to the conversation after the assistant message that made the calls. Each
// message answers its call's ID with the text the package doc's table
// gives: the Output of a call that succeeded, "error: " and the Error of any
// other, cancelled calls included, so that every call of the assistant
// message gets its answer.
func ChatResults(blocks []agenttool.ToolBlock) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, len(blocks))
	for i, b := range blocks {
		out[i] = openai.ToolMessage(resultText(b), b.Call.ID)
	}
	return out
}
