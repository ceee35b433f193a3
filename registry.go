package agenttool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/benbjohnson/clock"
)

var (
	// ErrInvalidTool is returned (wrapped) by [NewRegistry] when a tool is
	// nil, has an invalid name, or has invalid Parameters.
	ErrInvalidTool = errors.New("agenttool: invalid tool")
	// ErrInvalidName is returned (wrapped) by [NewRegistry] when a tool's
	// name does not match ^[a-zA-Z0-9_-]{1,64}$. It wraps [ErrInvalidTool].
	ErrInvalidName = fmt.Errorf("%w: bad name", ErrInvalidTool)
	// ErrInvalidSchema is returned (wrapped) by [NewRegistry] when a tool's
	// Parameters are not a JSON object schema. It wraps [ErrInvalidTool].
	ErrInvalidSchema = fmt.Errorf("%w: bad parameters schema", ErrInvalidTool)
	// ErrDuplicateTool is returned (wrapped) by [NewRegistry] when two tools
	// share a name.
	ErrDuplicateTool = errors.New("agenttool: duplicate tool name")
)

// Definition describes a tool to a model provider: the JSON most function
// calling APIs take.
type Definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Registry is an immutable set of tools with unique names, kept in
// registration order. It is safe for concurrent use. The nil *Registry is
// an empty registry.
//
// [Registry.Only] and [Registry.Without] derive constrained registries for
// agents that may use only some tools; a tool left out is hidden from both
// listing and lookup, so a [Turn] over the derived registry cannot run it.
type Registry struct {
	entries []entry
	byName  map[string]int
}

type entry struct {
	tool Tool
	def  Definition
	safe bool // IsConcurrencySafe, read once with the rest of the metadata
}

// NewRegistry returns a registry holding tools in the given order.
//
// Each tool's Name, Description, Parameters and [IsConcurrencySafe] are read
// once, here; the registry serves those values from then on. It returns an error wrapping
// [ErrInvalidTool] for a nil tool (a nil interface or a nil pointer), a name
// that does not match ^[a-zA-Z0-9_-]{1,64}$ (also wrapping [ErrInvalidName]),
// or Parameters that are not a JSON object whose "type", if present, is
// "object" (also wrapping [ErrInvalidSchema]); and an error wrapping
// [ErrDuplicateTool] when two tools share a name. A tool whose metadata
// methods panic is reported as invalid rather than crashing the caller.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{
		entries: make([]entry, 0, len(tools)),
		byName:  make(map[string]int, len(tools)),
	}
	for i, t := range tools {
		def, safe, err := definitionOf(i, t)
		if err != nil {
			return nil, err
		}
		if j, dup := r.byName[def.Name]; dup {
			return nil, fmt.Errorf("%w: %q is tool %d and tool %d", ErrDuplicateTool, def.Name, j, i)
		}
		r.byName[def.Name] = len(r.entries)
		r.entries = append(r.entries, entry{tool: t, def: def, safe: safe})
	}
	return r, nil
}

// DefaultTools returns a fresh slice holding the native tools, today a
// [SleepTool] on the real clock. The caller owns the slice.
func DefaultTools() []Tool { return DefaultToolsWithClock(nil) }

// DefaultToolsWithClock returns the same tools as [DefaultTools], with every
// time-dependent tool waiting on clk; a nil clk means the real clock. Tests
// pass a *clock.Mock to drive sleeps without real time.
func DefaultToolsWithClock(clk clock.Clock) []Tool {
	return []Tool{SleepTool{Clock: clk}}
}

// definitionOf reads and checks the metadata of tools[i].
func definitionOf(i int, t Tool) (def Definition, safe bool, err error) {
	if t == nil {
		return def, false, fmt.Errorf("%w: tool %d is nil", ErrInvalidTool, i)
	}
	if v := reflect.ValueOf(t); v.Kind() == reflect.Pointer && v.IsNil() {
		return def, false, fmt.Errorf("%w: tool %d is a nil %T", ErrInvalidTool, i, t)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: tool %d (%T) panicked describing itself: %v", ErrInvalidTool, i, t, p)
		}
	}()
	def.Name = t.Name()
	if !ValidName(def.Name) {
		return def, false, fmt.Errorf("%w: tool %d name %q must be 1 to 64 letters, digits, '_' or '-'", ErrInvalidName, i, def.Name)
	}
	def.Description = t.Description()
	params := t.Parameters()
	if err := checkSchema(params); err != nil {
		return def, false, fmt.Errorf("%w: tool %q: %w", ErrInvalidSchema, def.Name, err)
	}
	def.Parameters = bytes.Clone(params)
	return def, IsConcurrencySafe(t), nil
}

// ValidName reports whether name is a valid tool name: 1 to 64 ASCII
// letters, digits, underscores or hyphens.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return false
		}
	}
	return true
}

func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

func checkSchema(params json.RawMessage) error {
	if len(bytes.TrimSpace(params)) == 0 {
		return errors.New("parameters are empty; want a JSON object schema such as {\"type\":\"object\"}")
	}
	var schema map[string]json.RawMessage
	if err := json.Unmarshal(params, &schema); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return fmt.Errorf("parameters are not valid JSON: %w", err)
		}
		return errors.New("parameters are not a JSON object")
	}
	if schema == nil {
		return errors.New("parameters are null; want a JSON object schema")
	}
	if typ, ok := schema["type"]; ok {
		var s string
		if json.Unmarshal(typ, &s) != nil || s != "object" {
			return fmt.Errorf(`parameters "type" is %s; want "object"`, typ)
		}
	}
	return nil
}

// Lookup returns the tool registered under name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	e, ok := r.lookup(name)
	return e.tool, ok
}

// lookup returns the entry registered under name.
func (r *Registry) lookup(name string) (entry, bool) {
	if r == nil {
		return entry{}, false
	}
	i, ok := r.byName[name]
	if !ok {
		return entry{}, false
	}
	return r.entries[i], true
}

// Len returns the number of tools.
func (r *Registry) Len() int {
	if r == nil {
		return 0
	}
	return len(r.entries)
}

// Tools returns the tools in registration order, in a new slice the caller
// owns.
func (r *Registry) Tools() []Tool {
	out := make([]Tool, r.Len())
	for i := range out {
		out[i] = r.entries[i].tool
	}
	return out
}

// Names returns the tool names in registration order, in a new slice.
func (r *Registry) Names() []string {
	out := make([]string, r.Len())
	for i := range out {
		out[i] = r.entries[i].def.Name
	}
	return out
}

// Definitions returns the tools' definitions in registration order, for a
// model provider. The slice and each Parameters are new copies the caller
// owns.
func (r *Registry) Definitions() []Definition {
	out := make([]Definition, r.Len())
	for i := range out {
		d := r.entries[i].def
		d.Parameters = bytes.Clone(d.Parameters)
		out[i] = d
	}
	return out
}

// Only returns a registry holding just the named tools, in r's registration
// order. Names that r does not hold are ignored, so Only never widens r; with
// no names it returns an empty registry.
func (r *Registry) Only(names ...string) *Registry {
	keep := make(map[string]bool, len(names))
	for _, n := range names {
		keep[n] = true
	}
	return r.filter(func(name string) bool { return keep[name] })
}

// Without returns a registry holding every tool of r except the named ones,
// in r's registration order. Names that r does not hold are ignored.
func (r *Registry) Without(names ...string) *Registry {
	drop := make(map[string]bool, len(names))
	for _, n := range names {
		drop[n] = true
	}
	return r.filter(func(name string) bool { return !drop[name] })
}

func (r *Registry) filter(keep func(name string) bool) *Registry {
	out := &Registry{byName: make(map[string]int)}
	for i := range r.Len() {
		e := r.entries[i]
		if keep(e.def.Name) {
			out.byName[e.def.Name] = len(out.entries)
			out.entries = append(out.entries, e)
		}
	}
	return out
}
