// Package functool builds an [agenttool.Tool] from a Go function whose
// arguments are a struct: the JSON Schema is inferred from the struct with
// github.com/google/jsonschema-go, and every call's arguments are validated
// against it before the function runs.
//
//	type weatherArgs struct {
//		City string `json:"city" jsonschema:"the city to report on"`
//		Days int    `json:"days,omitempty" jsonschema:"how many days ahead"`
//	}
//	schema, err := jsonschema.For[weatherArgs](nil)
//	if err != nil { ... }
//	schema.Properties["days"].Maximum = jsonschema.Ptr(14.0) // a rule no struct tag states
//	weather, err := functool.New("weather", "Forecast for a city.",
//		func(ctx context.Context, in weatherArgs) (agenttool.ToolResult, error) {
//			return agenttool.OK(forecast(in.City, in.Days)), nil
//		}, &functool.Options{Schema: schema, ConcurrencySafe: true})
//
// # One judge of the arguments
//
// Every call is judged by one complete pass of jsonschema-go's validator over
// the whole schema; nothing in the input can switch it off. A violation is an
// unsuccessful [agenttool.ToolResult] whose Error names the member and the
// rule in words a model can act on (`"city" is required`, `"days" must be at
// most 14`, `"mode" must match one of: ...`), never a JSON pointer or a Go
// value; the function never sees invalid arguments. The validator reports
// the first violation it meets.
//
// # What the function sees
//
// Keys match case-sensitively, unlike encoding/json's struct decoding: a
// member "City" does not fill the field "city". A `null` for a member that
// the schema does not list in "required", at any depth, is treated as if the
// member were absent: a Go struct cannot tell the two apart, and OpenAI's
// strict mode makes every optional member nullable, so models send `null`
// for members they leave out. A `null` for a required member is still an
// error. Numbers are judged by value, as JSON Schema says (`2.0` is an
// integer to the schema); a Go integer field still refuses `2.0`, with a
// message saying it must be an integer. A number too large for a float64
// (`1e999`) is refused before validation.
package functool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agenttool/agenttool"
)

// Options configures [New]. A nil *Options means the zero value.
type Options struct {
	// Schema, if set, is used instead of the schema inferred from In. Start
	// from jsonschema.For[In](nil) to add rules a struct tag cannot state,
	// such as a maximum. It must describe a JSON object. New works on a copy.
	Schema *jsonschema.Schema
	// RejectUnknown makes a member that the schema does not list an error
	// naming it. By default unknown members are ignored, as the native tools
	// ignore them, and the advertised schema drops the
	// `"additionalProperties": false` that inference writes, so that it says
	// only what is enforced.
	RejectUnknown bool
	// ConcurrencySafe marks the tool [agenttool.ConcurrencySafe]: fn may run
	// at the same time as other calls, itself included.
	ConcurrencySafe bool
}

var (
	// ErrNotObject is returned (wrapped) by [New] when the schema does not
	// describe a JSON object, for example because In is a string or an interface.
	ErrNotObject = errors.New("functool: arguments schema must describe a JSON object")
	// ErrStringOption is returned (wrapped) by [New] when a field of In uses
	// the `json:",string"` option: encoding/json then wants the number
	// inside a JSON string, which the inferred schema does not say, so the
	// schema would accept what decoding then rejects.
	ErrStringOption = errors.New(`functool: the json ",string" option is not supported`)
)

// New returns a tool named name that decodes each call's arguments into an
// In and calls fn with it.
//
// New infers the schema from In (see [jsonschema.For]: exported fields by
// their JSON names, required unless omitempty or omitzero, descriptions from
// `jsonschema:"..."` tags) unless opts.Schema is set. It returns an error
// when fn is nil, name is not a valid tool name (wrapping
// [agenttool.ErrInvalidName]), In holds a type JSON Schema cannot describe
// (channels, funcs, complex numbers, maps with non-string keys, cycles), a
// field of In uses `json:",string"` ([ErrStringOption], naming the field),
// the schema does not describe an object ([ErrNotObject]), or it does not
// resolve (an invalid pattern, say).
//
// Execute treats nil, empty and `null` arguments as `{}`. Arguments that are
// not valid JSON, not an object, or break a rule of the schema get an
// unsuccessful result saying so, and fn is not called (see the package doc).
// Members that the schema does not list and that additionalProperties does
// not describe are ignored (or rejected, with RejectUnknown) and dropped
// before decoding. Execute may be called concurrently, so fn must allow
// that; whether a Turn runs it next to other calls is opts.ConcurrencySafe.
// When fn returns an error satisfying errors.Is with [context.Canceled] or
// [context.DeadlineExceeded], Execute returns it as the Go error (the call
// produced no result); any other error becomes an unsuccessful result with
// the error's message.
func New[In any](name, description string, fn func(context.Context, In) (agenttool.ToolResult, error), opts *Options) (agenttool.Tool, error) {
	if opts == nil {
		opts = &Options{}
	}
	if fn == nil {
		return nil, fmt.Errorf("functool: tool %q: nil function", name)
	}
	if !agenttool.ValidName(name) {
		return nil, fmt.Errorf("functool: %w: %q must be 1 to 64 letters, digits, '_' or '-'", agenttool.ErrInvalidName, name)
	}
	if field := stringOptionField(reflect.TypeFor[In]()); field != "" {
		return nil, fmt.Errorf("%w: tool %q: field %s; use a string or a number field instead", ErrStringOption, name, field)
	}
	var schema *jsonschema.Schema
	if opts.Schema != nil {
		schema = opts.Schema.CloneSchemas()
	} else {
		var err error
		if schema, err = jsonschema.For[In](nil); err != nil {
			return nil, fmt.Errorf("functool: tool %q: cannot describe %s as JSON Schema: %w", name, reflect.TypeFor[In](), err)
		}
	}
	if len(schema.Types) == 2 && schema.Types[0] == "null" && schema.Types[1] == "object" {
		// In is a pointer to a struct: the arguments are still an object.
		schema.Type, schema.Types = "object", nil
	}
	if schema.Type != "object" {
		return nil, fmt.Errorf("%w: tool %q: %s gives type %s", ErrNotObject, name, reflect.TypeFor[In](), typeOf(schema))
	}
	setUnknownPolicy(schema, opts.RejectUnknown)
	j, err := newJudge(schema)
	if err != nil {
		return nil, fmt.Errorf("functool: tool %q: schema does not resolve: %w", name, err)
	}
	params, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("functool: tool %q: schema does not marshal: %w", name, err)
	}
	return &tool[In]{
		name:        name,
		description: description,
		params:      params,
		judge:       j,
		fn:          fn,
		safe:        opts.ConcurrencySafe,
	}, nil
}

func typeOf(s *jsonschema.Schema) string {
	switch {
	case s.Type != "":
		return fmt.Sprintf("%q", s.Type)
	case len(s.Types) > 0:
		return fmt.Sprintf("%q", s.Types)
	}
	return "unrestricted (any JSON value)"
}

// stringOptionField returns the dotted Go path of the first field reachable
// from t that uses the `json:",string"` option, or "".
func stringOptionField(t reflect.Type) string {
	return findStringOption(t, "", map[reflect.Type]bool{})
}

func findStringOption(t reflect.Type, path string, seen map[reflect.Type]bool) string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return ""
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name := f.Name
		if path != "" {
			name = path + "." + f.Name
		}
		_, opts, _ := strings.Cut(tag, ",")
		if slices.Contains(strings.Split(opts, ","), "string") {
			return name
		}
		if found := findStringOption(f.Type, name, seen); found != "" {
			return found
		}
	}
	return ""
}

type tool[In any] struct {
	name, description string
	params            json.RawMessage
	judge             *judge
	fn                func(context.Context, In) (agenttool.ToolResult, error)
	safe              bool
}

func (t *tool[In]) Name() string                { return t.name }
func (t *tool[In]) Description() string         { return t.description }
func (t *tool[In]) Parameters() json.RawMessage { return bytes.Clone(t.params) }
func (t *tool[In]) ConcurrencySafe() bool       { return t.safe }

func (t *tool[In]) Execute(ctx context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
	var in In
	if problem := t.judge.decode(args, &in); problem != "" {
		return agenttool.ToolResult{Error: problem}, nil
	}
	res, err := t.fn(ctx, in)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return agenttool.ToolResult{}, err
		}
		return agenttool.ToolResult{Error: err.Error()}, nil
	}
	return res, nil
}

// setUnknownPolicy makes every object schema that lists properties say what
// Execute enforces about other members.
func setUnknownPolicy(s *jsonschema.Schema, reject bool) {
	walk(s, func(s *jsonschema.Schema) {
		if s.Properties == nil && !isFalse(s.AdditionalProperties) {
			return
		}
		switch {
		case reject && s.AdditionalProperties == nil:
			s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
		case !reject && isFalse(s.AdditionalProperties):
			s.AdditionalProperties = nil
		}
	})
}

// walk calls f on s and every schema below it that describes a value
// (properties, items, additionalProperties, definitions and the branches of
// anyOf, allOf and oneOf).
func walk(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	f(s)
	for _, p := range s.Properties {
		walk(p, f)
	}
	walk(s.Items, f)
	if !isFalse(s.AdditionalProperties) {
		walk(s.AdditionalProperties, f)
	}
	for _, group := range [][]*jsonschema.Schema{s.AnyOf, s.AllOf, s.OneOf, s.PrefixItems} {
		for _, sub := range group {
			walk(sub, f)
		}
	}
	for _, defs := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions} {
		for _, sub := range defs {
			walk(sub, f)
		}
	}
}

// isFalse reports whether s is the schema that matches nothing, as
// jsonschema-go writes `false`.
func isFalse(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}
