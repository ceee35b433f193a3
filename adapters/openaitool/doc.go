// Package openaitool connects an [agenttool.Registry] and an [agenttool.Turn]
// to OpenAI's Chat Completions and Responses APIs through the official Go SDK
// (github.com/openai/openai-go/v3): the registry's definitions become the
// request's tools, the model's tool calls become [agenttool.ToolCall]s, and
// the turn's blocks become the tool results of the next request.
//
//	tools, err := openaitool.ChatTools(reg.Definitions(), nil)
//	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5, Messages: messages, Tools: tools}
//	completion, err := client.Chat.Completions.New(ctx, params)
//	msg := completion.Choices[0].Message
//	blocks, err := turn.Run(openaitool.ChatCalls(msg))
//	params.Messages = append(append(params.Messages, msg.ToParam()), openaitool.ChatResults(blocks)...)
//
// Repeat until the model answers without tool calls. With the Responses API,
// [ResponsesTools], [ResponsesCalls] and [ResponsesResults] play the same
// parts; send the results as the next request's input with
// PreviousResponseID set to the response's ID, or, without stored
// responses, after the response's output items.
//
// Every function here is a pure conversion: safe for concurrent use, no I/O,
// nothing kept.
//
// # Arguments
//
// A call's arguments reach the tool as the model wrote them: the text of
// the JSON string the API carries them in, never decoded and re-encoded. The
// tool is the judge of them, so arguments that are not JSON, or break the
// schema, become a failed block whose error the model reads and can act on.
//
// # Results
//
// OpenAI's tool results have no error flag, so the text says it. One mapping
// serves both APIs, for a Chat Completions tool message and a Responses
// function_call_output (or custom_tool_call_output) alike:
//
//	block status        content sent to the model
//	------------------  -------------------------------------------------------
//	succeeded           Result.Output
//	failed              "error: " + Result.Error
//	cancelled           "error: " + Result.Error (the turn ended before the call did)
//	pending, running    "error: the call is still pending" (or running), for a
//	                    block taken from a snapshot before the call ended
//
// A failed block without an Error reads "error: the call failed without a
// message", a cancelled one "error: the call was cancelled". Every block gets its result, in block
// order, answering the model's own id for the call, so that no call of the
// model is left without an answer, which would fail the next request.
//
// # Strict mode
//
// With [Options].Strict, each tool whose schema [StrictSchema] can rewrite is
// sent with "strict": true: every object closed with
// "additionalProperties": false, nested ones and array items included, every
// property required, and the optional ones made nullable, ["integer","null"]
// or an anyOf with {"type":"null"}. The model then sends null for a member
// it leaves out, and the arguments still pass through as they are: a tool
// that gets strict calls must read null for a member that is not required
// as absent, as functool does. A schema that cannot be made strict is sent
// non-strict, as it is, with "strict": false: an open map
// (additionalProperties true or a schema, or an object without properties),
// a schema that accepts any value, or a keyword strict mode does not
// support such as allOf, oneOf, patternProperties or uniqueItems;
// [StrictSchema] says which and where. The Responses API reads a tool
// without "strict" as strict, so [ResponsesTools] always sends it. OpenAI's
// function calling guide warns that parallel calls may not follow strict
// schemas; set ParallelToolCalls to false where every call must conform
// (the tools judge the arguments either way).
//
// Schemas keep their numbers as JSON numbers on the wire ("maximum": 86400,
// never "86400"): nothing is decoded into Go values on the way to the SDK.
//
// # Calls that are not function calls
//
// A call of another kind, such as a custom tool call with free-text input,
// is never dropped: it becomes a call named with its kind, ':' and the
// tool's name ("custom:grammar_check"), a name no tool can have, so a Turn
// fails it as an unknown tool and the model reads which tools there are.
// Its answer goes back in the call's own shape. The Responses API's
// built-in client tools (computer use, shell, apply_patch), which only a
// caller that declares them receives, are left to that caller.
package openaitool
