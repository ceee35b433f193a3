package agenttool

import (
	"context"
	"encoding/json"
	"fmt"
)

// Tool is something a model can call.
//
// Execute receives the model's JSON arguments and returns a [ToolResult] for
// the model to read. A bad call (arguments that do not validate, an action
// that failed) is an ordinary result with Success false, a clear Error and a
// nil Go error, so the model can correct itself. A non-nil Go error means the
// call produced no result: either its context ended, in which case the error
// satisfies errors.Is(err, context.Canceled) or errors.Is(err,
// context.DeadlineExceeded) (possibly next to [context.Cause]), or the tool
// hit an internal fault.
//
// Execute must treat nil, empty and `null` args as `{}`, must return promptly
// once ctx is done, and may be called concurrently; a tool that is not safe to
// run next to itself or other tools says so by not implementing
// [ConcurrencySafe], and a [Turn] then runs it alone.
type Tool interface {
	// Name is unique within a Registry and matches ^[a-zA-Z0-9_-]{1,64}$.
	Name() string
	// Description is what the model reads to decide when to call the tool.
	Description() string
	// Parameters is the JSON Schema of the arguments, an object schema.
	Parameters() json.RawMessage
	// Execute runs one call.
	Execute(ctx context.Context, args json.RawMessage) (ToolResult, error)
}

// ToolResult is what the model reads after a call.
//
// On success Output holds the answer; on failure Error says what went wrong
// in words the model can act on.
type ToolResult struct {
	Success bool   `json:"success"`
	Output  string `json:"output"`
	Error   string `json:"error,omitempty"`
}

// OK returns a successful result with the given output.
func OK(output string) ToolResult { return ToolResult{Success: true, Output: output} }

// Failf returns an unsuccessful result whose Error is formatted as by
// [fmt.Sprintf].
func Failf(format string, args ...any) ToolResult {
	return ToolResult{Error: fmt.Sprintf(format, args...)}
}

// ConcurrencySafe is implemented by tools that may run at the same time as
// other calls, including calls to themselves. A tool that does not implement
// it, or returns false, is not safe: that is the default, and a [Turn] runs a
// batch holding such a tool one call at a time.
type ConcurrencySafe interface {
	ConcurrencySafe() bool
}

// IsConcurrencySafe reports whether t implements [ConcurrencySafe] and says
// it is safe. A nil tool is not safe.
func IsConcurrencySafe(t Tool) bool {
	cs, ok := t.(ConcurrencySafe)
	return ok && cs.ConcurrencySafe()
}

// FuncTool adapts a function to [Tool], so that a tool needs no type of its
// own. Fn receives the arguments exactly as the model sent them; it must
// follow the [Tool] contract for Execute. Safe marks the tool
// [ConcurrencySafe]. A nil Fn makes every call an unsuccessful result.
//
// For a tool whose arguments are a Go struct, with the schema inferred and
// the arguments validated before the function runs, see package functool.
type FuncTool struct {
	ToolName        string
	ToolDescription string
	Schema          json.RawMessage
	Fn              func(ctx context.Context, args json.RawMessage) (ToolResult, error)
	Safe            bool
}

var (
	_ Tool            = (*FuncTool)(nil)
	_ ConcurrencySafe = (*FuncTool)(nil)
)

// Name returns f.ToolName.
func (f *FuncTool) Name() string { return f.ToolName }

// Description returns f.ToolDescription.
func (f *FuncTool) Description() string { return f.ToolDescription }

// Parameters returns f.Schema.
func (f *FuncTool) Parameters() json.RawMessage { return f.Schema }

// ConcurrencySafe returns f.Safe.
func (f *FuncTool) ConcurrencySafe() bool { return f.Safe }

// Execute calls f.Fn.
func (f *FuncTool) Execute(ctx context.Context, args json.RawMessage) (ToolResult, error) {
	if f.Fn == nil {
		return Failf("tool %q has no implementation", f.ToolName), nil
	}
	return f.Fn(ctx, args)
}
