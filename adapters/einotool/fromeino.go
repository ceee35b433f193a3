package einotool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/cloudwego/eino/components/tool"

	"github.com/agenttool/agenttool"
)

// ErrInvalidEinoTool is returned (wrapped) by [FromEino] when the Eino tool
// is nil, its Info fails or panics, or its parameters cannot be written as
// JSON Schema.
var ErrInvalidEinoTool = errors.New("einotool: invalid eino tool")

// FromEino returns an [agenttool.Tool] that runs the Eino tool t, so that an
// [agenttool.Turn] or a [agenttool.Registry] can hold it next to native
// tools.
//
// t's [schema.ToolInfo] is read once, here: its Name and Desc become the
// tool's Name and Description, and its parameters, written as JSON Schema
// (ParamsOneOf.ToJSONSchema), its Parameters; a tool without parameters
// gets {"type":"object","properties":{}}. Whether the name is valid is
// judged by [agenttool.NewRegistry], as for any tool.
//
// Execute hands t the arguments unchanged, or "{}" when they are nil, empty
// or `null`, and returns t's string result as a successful Output. An error
// from t becomes an unsuccessful result whose Error is the error's text,
// so the model can correct its call; but when ctx has ended, Execute
// returns ctx's error (and cause) as the Go error instead: the call
// produced no result. t must honour ctx for Execute to return promptly.
//
// The tool is not [agenttool.ConcurrencySafe]: Eino tools are written to be
// called from several goroutines, since Eino's ToolsNode runs calls in
// parallel, but nothing says that their effects may interleave with other
// tools' (two writes to one file, a read after a write), so a Turn runs it
// alone. Wrap it in a type with a ConcurrencySafe method to say otherwise.
func FromEino(t tool.InvokableTool) (agenttool.Tool, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil tool", ErrInvalidEinoTool)
	}
	if v := reflect.ValueOf(t); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, fmt.Errorf("%w: nil %T", ErrInvalidEinoTool, t)
	}
	return fromEino(t)
}

func fromEino(t tool.InvokableTool) (_ *einoTool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %T panicked describing itself: %v", ErrInvalidEinoTool, t, p)
		}
	}()
	info, err := t.Info(context.Background())
	if err != nil {
		return nil, fmt.Errorf("%w: %T: info: %w", ErrInvalidEinoTool, t, err)
	}
	if info == nil {
		return nil, fmt.Errorf("%w: %T: info is nil", ErrInvalidEinoTool, t)
	}
	params := json.RawMessage(`{"type":"object","properties":{}}`)
	js, err := info.ToJSONSchema()
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: parameters: %w", ErrInvalidEinoTool, info.Name, err)
	}
	if js != nil {
		if params, err = json.Marshal(js); err != nil {
			return nil, fmt.Errorf("%w: tool %q: parameters: %w", ErrInvalidEinoTool, info.Name, err)
		}
		// The library writes a schema with no keywords as `true`, which
		// means the same as {} but is not an object.
		if string(params) == "true" {
			params = json.RawMessage(`{}`)
		}
	}
	return &einoTool{tool: t, name: info.Name, description: info.Desc, params: params}, nil
}

// einoTool is an Eino tool as agenttool sees it.
type einoTool struct {
	tool        tool.InvokableTool
	name        string
	description string
	params      json.RawMessage
}

var _ agenttool.Tool = (*einoTool)(nil)

func (e *einoTool) Name() string                { return e.name }
func (e *einoTool) Description() string         { return e.description }
func (e *einoTool) Parameters() json.RawMessage { return bytes.Clone(e.params) }

// Execute runs the Eino tool; see [FromEino].
func (e *einoTool) Execute(ctx context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
	in := string(args)
	if trimmed := bytes.TrimSpace(args); len(trimmed) == 0 || string(trimmed) == "null" {
		in = "{}"
	}
	out, err := e.tool.InvokableRun(ctx, in)
	if err != nil {
		if ctx.Err() != nil {
			return agenttool.ToolResult{}, contextError(ctx)
		}
		return agenttool.ToolResult{Error: err.Error()}, nil
	}
	return agenttool.OK(out), nil
}

// contextError is the error of an ended ctx: its cause, next to ctx.Err()
// when the cause does not already say it.
func contextError(ctx context.Context) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if errors.Is(cause, err) {
		return cause
	}
	return fmt.Errorf("%w: %w", err, cause)
}
