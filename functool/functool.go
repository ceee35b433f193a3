// Package functool builds an [agenttool.Tool] from a Go function whose
// arguments are a struct: the JSON Schema is inferred from the struct with
// github.com/google/jsonschema-go, and every call's arguments are validated
// against it before the function runs.
//
//	type weatherArgs struct {
//		City string `json:"city" jsonschema:"the city to report on"`
//		Days int    `json:"days,omitempty" jsonschema:"how many days ahead, 1 to 14"`
//	}
//	weather, err := functool.New("weather", "Forecast for a city.",
//		func(ctx context.Context, in weatherArgs) (agenttool.ToolResult, error) {
//			return agenttool.OK(forecast(in.City, in.Days)), nil
//		}, &functool.Options{ConcurrencySafe: true})
//
// A violation is an unsuccessful [agenttool.ToolResult] whose Error names the
// field and the rule (`"city" is required`, `"days" must be at most 14`), so
// the model can correct its call; the function never sees invalid arguments.
// Keys match case-sensitively, unlike encoding/json's struct decoding: a
// member "City" does not fill the field "city".
package functool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/internal/jsonarg"
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

// ErrNotObject is returned (wrapped) by [New] when the schema does not
// describe a JSON object, for example because In is a string or an interface.
var ErrNotObject = errors.New("functool: arguments schema must describe a JSON object")

// New returns a tool named name that decodes each call's arguments into an
// In and calls fn with it.
//
// New infers the schema from In (see [jsonschema.For]: exported fields by
// their JSON names, required unless omitempty or omitzero, descriptions from
// `jsonschema:"..."` tags) unless opts.Schema is set. It returns an error
// when fn is nil, name is not a valid tool name (wrapping
// [agenttool.ErrInvalidName]), In holds a type JSON Schema cannot describe
// (channels, funcs, complex numbers, maps with non-string keys, cycles), the
// schema does not describe an object ([ErrNotObject]), or it does not
// resolve.
//
// Execute treats nil, empty and `null` arguments as `{}`. Arguments that are
// not valid JSON, not an object, or break a rule of the schema get an
// unsuccessful result saying so, and fn is not called. Members that the
// schema does not list and that additionalProperties does not describe are
// ignored (or rejected, with RejectUnknown) and dropped before decoding.
// Execute may be called concurrently, so fn must allow that; whether a Turn
// runs it next to other calls is opts.ConcurrencySafe.
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
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("functool: tool %q: schema does not resolve: %w", name, err)
	}
	params, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("functool: tool %q: schema does not marshal: %w", name, err)
	}
	patterns, err := compilePatterns(schema)
	if err != nil {
		return nil, fmt.Errorf("functool: tool %q: %w", name, err)
	}
	return &tool[In]{
		name:          name,
		description:   description,
		params:        params,
		schema:        schema,
		resolved:      resolved,
		fallback:      needsFallback(schema),
		patterns:      patterns,
		fn:            fn,
		rejectUnknown: opts.RejectUnknown,
		safe:          opts.ConcurrencySafe,
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

type tool[In any] struct {
	name, description string
	params            json.RawMessage
	schema            *jsonschema.Schema
	resolved          *jsonschema.Resolved
	fallback          bool
	patterns          map[string]*regexp.Regexp
	fn                func(context.Context, In) (agenttool.ToolResult, error)
	rejectUnknown     bool
	safe              bool
}

func (t *tool[In]) Name() string                { return t.name }
func (t *tool[In]) Description() string         { return t.description }
func (t *tool[In]) Parameters() json.RawMessage { return bytes.Clone(t.params) }
func (t *tool[In]) ConcurrencySafe() bool       { return t.safe }

func (t *tool[In]) Execute(ctx context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
	in, problem := t.decode(args)
	if problem != "" {
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

// decode validates args and decodes them into an In, or says what is wrong.
func (t *tool[In]) decode(args json.RawMessage) (in In, problem string) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return in, "arguments are not valid JSON; send a JSON object" + t.hint()
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var value any
	if err := dec.Decode(&value); err != nil {
		return in, "arguments are not valid JSON; send a JSON object" + t.hint()
	}
	obj, ok := value.(map[string]any)
	if !ok {
		return in, "arguments must be a JSON object" + t.hint() + ", got " + describe(value)
	}
	v := validator{rejectUnknown: t.rejectUnknown, patterns: t.patterns}
	v.validate(obj, t.schema, "")
	if len(v.problems) > 0 {
		return in, strings.Join(v.problems, "; ")
	}
	if t.fallback {
		// jsonschema-go wants numbers as float64, not json.Number.
		var plain any
		if err := json.Unmarshal(args, &plain); err == nil {
			if err := t.resolved.Validate(plain); err != nil {
				return in, "arguments do not match the schema: " + keyword(err)
			}
		}
	}
	prune(obj, t.schema)
	clean, err := json.Marshal(obj)
	if err == nil {
		err = json.Unmarshal(clean, &in)
	}
	if err != nil {
		return in, decodeProblem(err)
	}
	return in, ""
}

// hint lists the fields the tool takes, for messages about the whole object.
func (t *tool[In]) hint() string {
	if len(t.schema.Properties) == 0 {
		return ""
	}
	names := t.schema.PropertyOrder
	if len(names) == 0 {
		for name := range t.schema.Properties {
			names = append(names, name)
		}
		slices.Sort(names)
	}
	quotedNames := make([]string, len(names))
	for i, n := range names {
		quotedNames[i] = fmt.Sprintf("%q", n)
	}
	return " (fields: " + strings.Join(quotedNames, ", ") + ")"
}

// keyword keeps the rule and place that jsonschema-go names at the front of
// an error ("validating /ship: anyOf: ..."), and leaves out the values it
// prints with Go syntax.
func keyword(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	place := ""
	if rest, ok := strings.CutPrefix(msg, "validating "); ok {
		place, msg, _ = strings.Cut(rest, ": ")
	}
	rule, _, _ := strings.Cut(msg, ":")
	out := "the " + jsonarg.Excerpt(rule) + " rule is not met"
	if place != "" && place != "root" {
		out += " at " + fmt.Sprintf("%q", jsonarg.Excerpt(place))
	}
	return out
}

// decodeProblem turns an error from decoding valid, schema-checked JSON into
// the Go type (an integer out of the field's range, say) into a message.
func decodeProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		if field == "" {
			field = "the arguments"
		} else {
			field = fmt.Sprintf("%q", field)
		}
		return fmt.Sprintf("%s must fit in a Go %s, got %s", field, typeErr.Type, jsonarg.Excerpt(typeErr.Value))
	}
	return "arguments could not be decoded: " + jsonarg.Excerpt(err.Error())
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

// walk calls f on s and every schema below it that the validator visits.
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
}

// needsFallback reports whether the schema uses keywords the validator does
// not check itself; jsonschema-go then judges what the validator passed.
func needsFallback(s *jsonschema.Schema) bool {
	fallback := false
	walk(s, func(s *jsonschema.Schema) {
		c := *s
		// Clear what the validator handles; anything left needs the fallback.
		c.Type, c.Types, c.Enum, c.Const = "", nil, nil, nil
		c.MultipleOf, c.Minimum, c.Maximum, c.ExclusiveMinimum, c.ExclusiveMaximum = nil, nil, nil, nil, nil
		c.MinLength, c.MaxLength, c.Pattern = nil, nil, ""
		c.Items, c.MinItems, c.MaxItems, c.UniqueItems = nil, nil, nil, false
		c.Required, c.Properties, c.AdditionalProperties, c.MinProperties, c.MaxProperties = nil, nil, nil, nil, nil
		c.Title, c.Description, c.Default, c.Examples, c.Format, c.PropertyOrder = "", "", nil, nil, "", nil
		c.Comment, c.Deprecated, c.ReadOnly, c.WriteOnly, c.Schema, c.ID = "", false, false, false, "", ""
		if !reflect.ValueOf(c).IsZero() {
			fallback = true
		}
	})
	return fallback
}

func compilePatterns(s *jsonschema.Schema) (map[string]*regexp.Regexp, error) {
	patterns := map[string]*regexp.Regexp{}
	var err error
	walk(s, func(s *jsonschema.Schema) {
		if s.Pattern == "" || patterns[s.Pattern] != nil || err != nil {
			return
		}
		var re *regexp.Regexp
		if re, err = regexp.Compile(s.Pattern); err != nil {
			err = fmt.Errorf("pattern %q does not compile: %w", s.Pattern, err)
			return
		}
		patterns[s.Pattern] = re
	})
	return patterns, err
}
