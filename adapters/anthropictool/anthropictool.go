// Package anthropictool connects an [agenttool.Registry] and an
// [agenttool.Turn] to Claude through the official Anthropic Go SDK
// (github.com/anthropics/anthropic-sdk-go/v2): the registry's tools become
// the request's tools, the model's tool_use blocks become the Turn's calls,
// and the Turn's blocks become the tool_result message of the next request.
//
//	tools, err := anthropictool.Tools(reg.Definitions())
//	// ... in the loop, after msg, err := client.Messages.New(ctx, params):
//	calls := anthropictool.Calls(msg) // none: msg is the final answer
//	blocks, err := turn.Run(calls)
//	params.Messages = append(params.Messages, msg.ToParam(), anthropictool.Results(blocks))
//
// # Schemas
//
// [Tools] sends each Definition's Parameters whole as the tool's
// input_schema: "properties" and "required" in the SDK's fields, every other
// member ("additionalProperties", "$defs", "anyOf", "description", ...) in
// ExtraFields. Each member's value is passed as the raw JSON of the
// Definition, never decoded, so numbers stay JSON numbers with their digits
// ("maximum": 86400).
//
// # Arguments
//
// A tool_use block's input reaches the Turn as the bytes the API sent (the
// SDK keeps them raw), never decoded and re-encoded. The tools' own
// validation is the judge of them.
//
// # Results
//
// [Results] answers every call of the batch, in call order, with one
// tool_result block whose tool_use_id is the call's ID:
//
//	block status        is_error  tool_result content
//	succeeded           false     Result.Output (no content when empty: the API rejects empty text)
//	failed              true      Result.Error, or "the tool call failed" when empty
//	cancelled           true      Result.Error, or "the tool call was cancelled" when empty
//	pending, running    true      "the tool call did not finish (it is running)"
//
// A Turn reports every call of a batch, cancelled ones included, even when
// [agenttool.Turn.Run] returns an error, so Results of its blocks answers
// every tool_use of the message, as the API requires.
//
// # Bad input from the API
//
// Calls never drops a block the API may expect an answer to, and never
// panics. A tool_use block with an empty name, or with input that is not a
// JSON object, becomes a call like any other, and the Turn fails it: unknown
// tool "", or the tool's own error for arguments that are not an object. A
// block of a
// type this SDK version does not know that carries an id is taken for a
// call the model waits on: its call gets a name that no tool can have,
// saying "content block of unsupported type <type>", so the Turn fails it
// without running any tool and Results answers its id with is_error. Blocks
// the API resolves itself (server_tool_use and the server tools' results)
// and content (text, thinking) are not calls.
package anthropictool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agenttool/agenttool"
)

// ErrInvalidDefinition is returned (wrapped) by [Tools] when a Definition
// cannot be sent to the API: a bad or duplicate name, or Parameters that are
// not a JSON object schema.
var ErrInvalidDefinition = errors.New("anthropictool: invalid tool definition")

// Tools returns one custom tool per Definition, in order, for
// MessageNewParams.Tools: the name, the description (left out when empty)
// and the whole Parameters schema as input_schema (see Schemas in the
// package doc). The result shares no memory with defs.
//
// It returns an error wrapping [ErrInvalidDefinition] for a name that does
// not match ^[a-zA-Z0-9_-]{1,64}$ or that two Definitions share, and for
// Parameters that are not a JSON object, whose "type" is not "object", or
// whose "required" is not an array of strings. Definitions from
// [agenttool.Registry.Definitions] always pass.
func Tools(defs []agenttool.Definition) ([]anthropic.ToolUnionParam, error) {
	tools := make([]anthropic.ToolUnionParam, 0, len(defs))
	seen := make(map[string]bool, len(defs))
	for i, d := range defs {
		if !agenttool.ValidName(d.Name) {
			return nil, fmt.Errorf("%w: tool %d: name %q must be 1 to 64 letters, digits, '_' or '-'", ErrInvalidDefinition, i, d.Name)
		}
		if seen[d.Name] {
			return nil, fmt.Errorf("%w: tool %d: name %q is used twice", ErrInvalidDefinition, i, d.Name)
		}
		seen[d.Name] = true
		schema, err := inputSchema(d.Parameters)
		if err != nil {
			return nil, fmt.Errorf("%w: tool %q: %w", ErrInvalidDefinition, d.Name, err)
		}
		tool := anthropic.ToolParam{Name: d.Name, InputSchema: schema}
		if d.Description != "" {
			tool.Description = anthropic.String(d.Description)
		}
		tools = append(tools, anthropic.ToolUnionParam{OfTool: &tool})
	}
	return tools, nil
}

// inputSchema splits params into the SDK's fields, keeping every value as
// raw JSON. Decoding the values instead would be wrong twice over: a
// float64 loses the digits of large integers, and a json.Number (UseNumber)
// is written by this SDK as a JSON string.
func inputSchema(params json.RawMessage) (anthropic.ToolInputSchemaParam, error) {
	// A set Type keeps an empty schema ({}) from being the zero value,
	// which the SDK would leave out of the request.
	schema := anthropic.ToolInputSchemaParam{Type: "object"}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(params, &members); err != nil || members == nil {
		return schema, errors.New("parameters must be a JSON object schema")
	}
	for key, value := range members {
		switch key {
		case "type":
			var typ string
			if err := json.Unmarshal(value, &typ); err != nil || typ != "object" {
				return schema, fmt.Errorf(`parameters "type" is %s; the API takes only "object"`, value)
			}
		case "properties":
			schema.Properties = json.RawMessage(bytes.Clone(value))
		case "required":
			if err := json.Unmarshal(value, &schema.Required); err != nil {
				return schema, fmt.Errorf(`parameters "required" must be an array of strings, got %s`, value)
			}
		default:
			if schema.ExtraFields == nil {
				schema.ExtraFields = make(map[string]any, len(members))
			}
			schema.ExtraFields[key] = json.RawMessage(bytes.Clone(value))
		}
	}
	return schema, nil
}

// Calls returns the tool calls of msg, one per tool_use block, in the order
// of its content: the block's id, its name and its input as the API sent it
// (a copy). A nil msg, or one without tool_use blocks, has no calls: that
// message is the model's answer. See Bad input from the API in the package
// doc for blocks that are not well-formed calls.
func Calls(msg *anthropic.Message) []agenttool.ToolCall {
	if msg == nil {
		return nil
	}
	var calls []agenttool.ToolCall
	for _, b := range msg.Content {
		switch {
		case b.Type == "tool_use":
			calls = append(calls, agenttool.ToolCall{ID: b.ID, Name: b.Name, Args: bytes.Clone(b.Input)})
		case b.ID != "" && b.AsAny() == nil:
			calls = append(calls, agenttool.ToolCall{ID: b.ID, Name: unsupportedName(b.Type), Args: bytes.Clone(b.Input)})
		}
	}
	return calls
}

// unsupportedName is the name given to the call of a block of unknown type.
// Its spaces make it an invalid tool name, so that no registry holds it and
// the Turn fails the call with this text in its error.
func unsupportedName(typ string) string {
	return "content block of unsupported type " + typ
}

// Results returns the user message that answers a batch: one tool_result
// block per block, in the order given, mapped as the table in the package
// doc shows. Pass the blocks [agenttool.Turn.Run] returned for the calls of
// one message, whether or not Run returned an error, so that every tool_use
// is answered. The API wants the tool_result blocks first in the message:
// append any text block after them. No blocks give a message with no
// content, which the API rejects: when [Calls] finds no calls, the loop is
// over.
func Results(blocks []agenttool.ToolBlock) anthropic.MessageParam {
	content := make([]anthropic.ContentBlockParamUnion, 0, len(blocks))
	for _, b := range blocks {
		text, isError := outcome(b)
		result := anthropic.ToolResultBlockParam{ToolUseID: b.Call.ID, IsError: anthropic.Bool(isError)}
		if text != "" {
			result.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: text}}}
		}
		content = append(content, anthropic.ContentBlockParamUnion{OfToolResult: &result})
	}
	return anthropic.NewUserMessage(content...)
}

// outcome is the one mapping of a block's status to what the model reads
// and whether it is an error.
func outcome(b agenttool.ToolBlock) (text string, isError bool) {
	switch b.Status {
	case agenttool.StatusSucceeded:
		return b.Result.Output, false
	case agenttool.StatusFailed:
		return orDefault(b.Result.Error, "the tool call failed"), true
	case agenttool.StatusCancelled:
		return orDefault(b.Result.Error, "the tool call was cancelled"), true
	default:
		return fmt.Sprintf("the tool call did not finish (it is %s)", b.Status), true
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
