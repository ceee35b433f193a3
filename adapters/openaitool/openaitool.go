package openaitool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/agenttool/agenttool"
)

// Options configures [ChatTools] and [ResponsesTools]. A nil *Options, like
// the zero value, means non-strict tools.
type Options struct {
	// Strict sends each tool whose schema [StrictSchema] can rewrite in
	// strict mode, with the rewritten schema; a tool whose schema it refuses
	// is sent non-strict, as it is.
	Strict bool
}

// ErrInvalidDefinition is returned (wrapped) by [ChatTools] and
// [ResponsesTools] when a definition has a name OpenAI refuses, shares its
// name with another, or has Parameters that are not a JSON object schema.
var ErrInvalidDefinition = errors.New("openaitool: invalid tool definition")

// customPrefix starts the Name of a call to a custom tool (free-text input,
// not JSON arguments), and ':' is never in a registered tool's name, so a
// Turn fails the call as unknown; [ResponsesResults] knows it by the prefix.
const customPrefix = "custom:"

// function is a definition checked and ready for either API.
type function struct {
	name, description string
	params            map[string]any
	strict            bool
}

// functions checks defs and prepares their parameters, strict where asked
// and possible.
func functions(defs []agenttool.Definition, opts *Options) ([]function, error) {
	strict := opts != nil && opts.Strict
	out := make([]function, len(defs))
	seen := make(map[string]int, len(defs))
	for i, d := range defs {
		if !agenttool.ValidName(d.Name) {
			return nil, fmt.Errorf("%w: tool %d: name %q must be 1 to 64 letters, digits, '_' or '-'", ErrInvalidDefinition, i, d.Name)
		}
		if j, dup := seen[d.Name]; dup {
			return nil, fmt.Errorf("%w: %q is tool %d and tool %d", ErrInvalidDefinition, d.Name, j, i)
		}
		seen[d.Name] = i
		params, err := objectSchema(d.Parameters)
		if err != nil {
			return nil, fmt.Errorf("%w: tool %q: %w", ErrInvalidDefinition, d.Name, err)
		}
		f := function{name: d.Name, description: d.Description, params: params.sdkMap()}
		if strict {
			if s, err := StrictSchema(d.Parameters); err == nil {
				o, _ := parseObject(s) // StrictSchema writes one object
				f.params, f.strict = o.sdkMap(), true
			}
		}
		out[i] = f
	}
	return out, nil
}

// objectSchema parses params as an object schema, adding "type": "object"
// where it is missing, since OpenAI requires it of parameters.
func objectSchema(params json.RawMessage) (object, error) {
	if len(bytes.TrimSpace(params)) == 0 {
		return nil, errors.New("parameters are empty; want a JSON object schema")
	}
	o, err := parseObject(params)
	if err != nil {
		return nil, fmt.Errorf("parameters are %w", err)
	}
	typ, ok := o.get("type")
	if !ok {
		return append(object{{key: "type", value: json.RawMessage(`"object"`)}}, o...), nil
	}
	if string(bytes.TrimSpace(typ)) != `"object"` {
		return nil, fmt.Errorf(`parameters "type" is %s; want "object"`, typ)
	}
	return o, nil
}

// resultText is what the model reads for a block: the Output of a call
// that succeeded, "error: " and the Error of any other.
func resultText(b agenttool.ToolBlock) string {
	if b.Status == agenttool.StatusSucceeded {
		return b.Result.Output
	}
	msg := b.Result.Error
	switch {
	case msg != "":
	case b.Status == agenttool.StatusFailed:
		msg = "the call failed without a message"
	case b.Status == agenttool.StatusCancelled:
		msg = "the call was cancelled"
	default:
		msg = "the call is still " + b.Status.String()
	}
	return "error: " + msg
}

// rawArgs returns a call's arguments as the model sent them: the text of
// the JSON string that carries them or, when a server sent them as JSON
// rather than in a string, those JSON bytes (field holds the raw value). It
// returns nil when there are none.
func rawArgs(text string, field respjson.Field) json.RawMessage {
	raw := strings.TrimSpace(field.Raw())
	if text == "" && raw != "" && raw != respjson.Null && raw[0] != '"' {
		return json.RawMessage(raw)
	}
	if text == "" {
		return nil
	}
	return json.RawMessage(text)
}
