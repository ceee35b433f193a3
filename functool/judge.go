package functool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agenttool/agenttool/internal/jsonarg"
)

// judge validates the arguments of one tool against its schema and decodes
// them. jsonschema-go's validator is the one judge of validity; judge only
// prepares the input for it (optional nulls dropped, numbers as Go numbers)
// and words its verdict for a model (see words.go).
type judge struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	// alone holds the items and additionalProperties schemas that resolve on
	// their own (they refer to nothing outside themselves), so that a message
	// can name the item or member that broke a rule.
	alone map[*jsonschema.Schema]*jsonschema.Resolved
}

func newJudge(schema *jsonschema.Schema) (*judge, error) {
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return nil, err
	}
	j := &judge{schema: schema, resolved: resolved, alone: map[*jsonschema.Schema]*jsonschema.Resolved{}}
	walk(schema, func(s *jsonschema.Schema) {
		for _, sub := range []*jsonschema.Schema{s.Items, s.AdditionalProperties} {
			if sub == nil || isFalse(sub) {
				continue
			}
			if r, err := sub.CloneSchemas().Resolve(nil); err == nil {
				j.alone[sub] = r
			}
		}
	})
	return j, nil
}

// decode judges args and decodes them into out, or says what is wrong.
func (j *judge) decode(args json.RawMessage, out any) (problem string) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return "arguments are not valid JSON; send a JSON object" + j.hint()
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var value any
	if err := dec.Decode(&value); err != nil {
		return "arguments are not valid JSON; send a JSON object" + j.hint()
	}
	obj, ok := value.(map[string]any)
	if !ok {
		return "arguments must be a JSON object" + j.hint() + ", got " + describe(value)
	}
	j.dropOptionalNulls(obj, j.schema)
	plain, problem := plainNumbers(obj, "")
	if problem != "" {
		return problem
	}
	if err := j.resolved.Validate(plain); err != nil {
		return j.explain(err, obj)
	}
	prune(obj, j.schema)
	clean, err := json.Marshal(obj)
	if err == nil {
		err = json.Unmarshal(clean, out)
	}
	if err != nil {
		return decodeProblem(err)
	}
	return ""
}

// hint lists the fields the tool takes, for messages about the whole object.
func (j *judge) hint() string {
	if len(j.schema.Properties) == 0 {
		return ""
	}
	names := j.schema.PropertyOrder
	if len(names) == 0 {
		names = sortedKeys(j.schema.Properties)
	}
	quotedNames := make([]string, len(names))
	for i, n := range names {
		quotedNames[i] = strconv.Quote(n)
	}
	return " (fields: " + strings.Join(quotedNames, ", ") + ")"
}

// deref follows local references ("#/$defs/name", "#/definitions/name").
func (j *judge) deref(s *jsonschema.Schema) *jsonschema.Schema {
	for hops := 0; s != nil && s.Ref != "" && hops < 32; hops++ {
		s = j.at(strings.TrimPrefix(s.Ref, "#"))
	}
	return s
}

// dropOptionalNulls deletes, at every depth, the members whose value is
// null and which their object's schema lists but does not require: a Go
// struct cannot tell null from absent, and models in OpenAI's strict mode
// send null for every member they leave out.
func (j *judge) dropOptionalNulls(value any, s *jsonschema.Schema) {
	s = j.deref(s)
	if s == nil {
		return
	}
	switch x := value.(type) {
	case map[string]any:
		for key, v := range x {
			ps, listed := s.Properties[key]
			switch {
			case listed && v == nil && !slices.Contains(s.Required, key):
				delete(x, key)
			case listed:
				j.dropOptionalNulls(v, ps)
			case s.AdditionalProperties != nil && !isFalse(s.AdditionalProperties):
				j.dropOptionalNulls(v, s.AdditionalProperties)
			}
		}
	case []any:
		for _, e := range x {
			j.dropOptionalNulls(e, s.Items)
		}
	}
}

// plainNumbers returns a copy of value with every json.Number made an
// int64, uint64 or float64, as jsonschema-go judges numbers. A number no
// float64 can hold is a problem: no Go field could hold it either.
func plainNumbers(value any, path string) (any, string) {
	switch x := value.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n, ""
			}
			if n, err := strconv.ParseUint(s, 10, 64); err == nil {
				return n, ""
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && (math.IsInf(f, 0) || !errors.Is(err, strconv.ErrRange)) {
			return nil, fmt.Sprintf("%s must be a number a 64-bit float can hold, got %s", quoted(path), jsonarg.Excerpt(s))
		}
		return f, ""
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range sortedKeys(x) {
			v, problem := plainNumbers(x[k], child(path, k))
			if problem != "" {
				return nil, problem
			}
			out[k] = v
		}
		return out, ""
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			v, problem := plainNumbers(e, fmt.Sprintf("%s[%d]", path, i))
			if problem != "" {
				return nil, problem
			}
			out[i] = v
		}
		return out, ""
	}
	return value, ""
}

// prune drops, at every level whose schema lists properties and allows no
// others, the members that do not match a property name exactly. After it,
// encoding/json's case-insensitive field matching can no longer pick up a
// member such as "City" for a field named "city".
func prune(value any, s *jsonschema.Schema) {
	if s == nil {
		return
	}
	switch x := value.(type) {
	case map[string]any:
		for key, e := range x {
			if ps, ok := s.Properties[key]; ok {
				prune(e, ps)
				continue
			}
			if s.AdditionalProperties != nil && !isFalse(s.AdditionalProperties) {
				prune(e, s.AdditionalProperties)
				continue
			}
			if s.Properties != nil {
				delete(x, key)
			}
		}
	case []any:
		for _, e := range x {
			prune(e, s.Items)
		}
	}
}

// decodeProblem turns an error from decoding judged JSON into the Go type
// (2.0 for an int field, an integer out of the field's range) into a message.
func decodeProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := "the arguments"
		if typeErr.Field != "" {
			field = strconv.Quote(typeErr.Field)
		}
		value, isNumber := strings.CutPrefix(typeErr.Value, "number ")
		switch {
		case isNumber && isIntKind(typeErr.Type.Kind().String()) && strings.ContainsAny(value, ".eE"):
			return fmt.Sprintf("%s must be an integer, got %s", field, jsonarg.Excerpt(value))
		case isNumber:
			return fmt.Sprintf("%s must fit in a Go %s, got %s", field, typeErr.Type, jsonarg.Excerpt(value))
		}
		return fmt.Sprintf("%s must fit in a Go %s, got %s", field, typeErr.Type, jsonarg.Excerpt(typeErr.Value))
	}
	return "arguments could not be decoded: " + jsonarg.Excerpt(err.Error())
}

func isIntKind(kind string) bool {
	return strings.HasPrefix(kind, "int") || strings.HasPrefix(kind, "uint")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
