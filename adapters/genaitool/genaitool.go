// Package genaitool connects an [agenttool.Registry] and an [agenttool.Turn]
// to Gemini through the Google Gen AI Go SDK (google.golang.org/genai): the
// registry's tools become one [genai.Tool] of function declarations, the
// model's function calls become the Turn's calls, and the Turn's blocks
// become the function responses of the next request.
//
//	tool, err := genaitool.Tool(reg.Definitions())
//	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{tool}}
//	// ... in the loop, after resp, err := client.Models.GenerateContent(ctx, model, contents, config):
//	calls := genaitool.Calls(resp) // none: resp is the final answer
//	blocks, err := turn.Run(calls)
//	contents = append(contents, resp.Candidates[0].Content, genaitool.Results(blocks))
//
// # History
//
// Append the model's content to the history as it came,
// resp.Candidates[0].Content itself, before the [Results] content. Gemini
// signs its reasoning with a thoughtSignature on the parts of that content
// (the first function call part, for thinking models) and needs the
// signature back unchanged in the next request; rebuilding the model's
// turn from the calls would lose it.
//
// # Schemas
//
// [Tool] sends each Definition's Parameters as the declaration's
// ParametersJsonSchema, the JSON Schema field, never as Parameters, the
// OpenAPI subset that drops much of JSON Schema. The schema is passed as the
// raw JSON of the Definition; only a schema without "type" gets
// "type": "object" added, as Gemini needs a schema that describes an object.
// The SDK itself passes the whole request through a map[string]any before
// sending it, so numbers reach the wire as float64 writes them: 86400 stays
// 86400, but an integer beyond 2^53 loses digits there.
//
// # Arguments and ids
//
// The SDK hands a call's arguments over already decoded, as a
// map[string]any with numbers as float64, so [Calls] cannot pass the API's
// bytes on: it encodes the map once, with encoding/json and without HTML
// escaping. The tools' own validation is the judge of the result.
//
// A call without an id (Gemini API calls often have none) gets one made up
// by Calls, "genaitool-" followed by 26 random characters, unique across
// every turn and every call of Calls. It is for the Turn and your records
// only: [Results] never sends it, and takes every id with that prefix for
// one made up. Each function response carries the
// model's own id, empty when the model gave none, and the call's name, and
// Results keeps call order, which is how Gemini matches responses to calls
// without ids.
//
// # Results
//
// [Results] answers every call of the batch, in call order, with one
// function response part whose Response has a single key:
//
//	block status        FunctionResponse.Response
//	succeeded           {"output": Result.Output}
//	failed              {"error": Result.Error}, or "the tool call failed" when empty
//	cancelled           {"error": Result.Error}, or "the tool call was cancelled" when empty
//	pending, running    {"error": "the tool call did not finish (it is running)"}
//
// A Turn reports every call of a batch, cancelled ones included, even when
// [agenttool.Turn.Run] returns an error, so Results of its blocks answers
// every function call of the response.
//
// # Bad input from the API
//
// Calls never drops a function call and never panics. A call with an empty
// name stays a call with that name, and the Turn fails it (unknown tool
// ""). A call without arguments has nil Args, which tools read as {}.
// Arguments that cannot be encoded as JSON (a NaN put in the map by hand;
// decoded JSON never holds one) become Args that are not JSON and say why,
// so the tool fails the call as it fails any arguments that are not JSON.
// Parts of a kind this SDK does not model reach Calls empty, since the SDK
// drops what it does not know, and are not calls.
//
// The functions keep nothing between calls and are safe for concurrent use.
package genaitool

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/agenttool/agenttool"
)

// ErrInvalidDefinition is returned (wrapped) by [Tool] when a Definition
// cannot be sent to the API: a bad or duplicate name, or Parameters that are
// not a JSON object schema.
var ErrInvalidDefinition = errors.New("genaitool: invalid tool definition")

// idPrefix starts every id that Calls makes up; Results recognises them by it.
const idPrefix = "genaitool-"

// Tool returns one [genai.Tool] holding a function declaration per
// Definition, in order, for GenerateContentConfig.Tools: the name, the
// description and the Parameters as ParametersJsonSchema (see Schemas in
// the package doc). The result shares no memory with defs.
//
// It returns an error wrapping [ErrInvalidDefinition] for a name that does
// not match ^[a-zA-Z0-9_-]{1,64}$ or that two Definitions share, and for
// Parameters that are not a JSON object or whose "type" is not "object".
// Definitions from [agenttool.Registry.Definitions] always pass.
func Tool(defs []agenttool.Definition) (*genai.Tool, error) {
	decls := make([]*genai.FunctionDeclaration, 0, len(defs))
	seen := make(map[string]bool, len(defs))
	for i, d := range defs {
		if !agenttool.ValidName(d.Name) {
			return nil, fmt.Errorf("%w: tool %d: name %q must be 1 to 64 letters, digits, '_' or '-'", ErrInvalidDefinition, i, d.Name)
		}
		if seen[d.Name] {
			return nil, fmt.Errorf("%w: tool %d: name %q is used twice", ErrInvalidDefinition, i, d.Name)
		}
		seen[d.Name] = true
		schema, err := objectSchema(d.Parameters)
		if err != nil {
			return nil, fmt.Errorf("%w: tool %q: %w", ErrInvalidDefinition, d.Name, err)
		}
		decls = append(decls, &genai.FunctionDeclaration{Name: d.Name, Description: d.Description, ParametersJsonSchema: schema})
	}
	return &genai.Tool{FunctionDeclarations: decls}, nil
}

// objectSchema returns a copy of params, with "type": "object" added when
// it has no type. Member values stay raw JSON: a decoded number would lose
// the digits of large integers.
func objectSchema(params json.RawMessage) (json.RawMessage, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(params, &members); err != nil || members == nil {
		return nil, errors.New("parameters must be a JSON object schema")
	}
	typ, ok := members["type"]
	if ok {
		var s string
		if err := json.Unmarshal(typ, &s); err != nil || s != "object" {
			return nil, fmt.Errorf(`parameters "type" is %s; a function takes only "object"`, typ)
		}
		return json.RawMessage(bytes.Clone(params)), nil
	}
	members["type"] = json.RawMessage(`"object"`)
	return json.Marshal(members)
}

// Calls returns the function calls of the first candidate of resp, the one
// whose content goes back into the history, one per function call part, in
// order: the model's id (or one made up, see the package doc), its name and
// its arguments encoded once as JSON. A nil resp, or one without function
// calls, has no calls: that response is the model's answer. See Bad input
// from the API in the package doc for calls that are not well-formed.
func Calls(resp *genai.GenerateContentResponse) []agenttool.ToolCall {
	if resp == nil || len(resp.Candidates) == 0 || resp.Candidates[0] == nil || resp.Candidates[0].Content == nil {
		return nil
	}
	var calls []agenttool.ToolCall
	for _, part := range resp.Candidates[0].Content.Parts {
		if part == nil || part.FunctionCall == nil {
			continue
		}
		fc := part.FunctionCall
		call := agenttool.ToolCall{ID: fc.ID, Name: fc.Name, Args: encodeArgs(fc.Args)}
		if call.ID == "" {
			call.ID = idPrefix + rand.Text()
		}
		calls = append(calls, call)
	}
	return calls
}

// encodeArgs encodes the SDK's decoded arguments once. HTML escaping is off
// so that the bytes say what the model wrote ("<" stays "<").
func encodeArgs(args map[string]any) json.RawMessage {
	if args == nil {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		return json.RawMessage("genaitool: the arguments cannot be encoded as JSON: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// Results returns the content that answers a batch: role "user", one
// function response part per block, in the order given, mapped as the table
// in the package doc shows, with the model's own id (never one that
// [Calls] made up) and the call's name. Pass the blocks
// [agenttool.Turn.Run] returned for the calls of one response, whether or
// not Run returned an error, so that every call is answered, and append the
// content after the model's own (see History in the package doc). No blocks
// give a content with no parts, which the API rejects: when [Calls] finds
// no calls, the loop is over.
func Results(blocks []agenttool.ToolBlock) *genai.Content {
	parts := make([]*genai.Part, 0, len(blocks))
	for _, b := range blocks {
		text, isError := outcome(b)
		key := "output"
		if isError {
			key = "error"
		}
		id := b.Call.ID
		if strings.HasPrefix(id, idPrefix) {
			id = ""
		}
		parts = append(parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{
			ID: id, Name: b.Call.Name, Response: map[string]any{key: text},
		}})
	}
	return &genai.Content{Role: genai.RoleUser, Parts: parts}
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
