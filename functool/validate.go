package functool

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agenttool/agenttool/internal/jsonarg"
)

// maxProblems bounds how many violations one result reports.
const maxProblems = 5

// validator checks decoded arguments (from a json.Decoder with UseNumber)
// against a schema and says what is wrong in words a model can act on.
type validator struct {
	rejectUnknown bool
	patterns      map[string]*regexp.Regexp
	problems      []string
}

func (v *validator) report(format string, args ...any) {
	if len(v.problems) < maxProblems {
		v.problems = append(v.problems, fmt.Sprintf(format, args...))
	}
}

// quoted names a value's place for a message: "city", "address.zip", "tags[2]".
func quoted(path string) string {
	if path == "" {
		return "the arguments"
	}
	return strconv.Quote(path)
}

func child(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (v *validator) validate(value any, s *jsonschema.Schema, path string) {
	if s == nil {
		return
	}
	if !v.checkType(value, s, path) {
		return
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return sameJSON(e, value) }) {
		v.report("%s must be one of %s", quoted(path), listJSON(s.Enum))
		return
	}
	if s.Const != nil && !sameJSON(*s.Const, value) {
		v.report("%s must be %s", quoted(path), jsonText(*s.Const))
		return
	}
	switch x := value.(type) {
	case json.Number:
		v.checkNumber(x, s, path)
	case string:
		v.checkString(x, s, path)
	case []any:
		v.checkArray(x, s, path)
	case map[string]any:
		v.checkObject(x, s, path)
	}
}

func types(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

func (v *validator) checkType(value any, s *jsonschema.Schema, path string) bool {
	want := types(s)
	if len(want) == 0 {
		return true
	}
	got := jsonType(value)
	for _, w := range want {
		if w == got || (w == "number" && got == "integer") {
			return true
		}
	}
	names := make([]string, len(want))
	for i, w := range want {
		names[i] = typeName(w)
	}
	v.report("%s must be %s, got %s", quoted(path), strings.Join(names, " or "), describe(value))
	return false
}

// jsonType is the JSON Schema type of a decoded value. An integer is a
// number written without a fraction or exponent, as Go's integer fields
// require: 1.0 and 1e3 are numbers, not integers.
func jsonType(value any) string {
	switch x := value.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "number"
		}
		return "integer"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", value)
}

func typeName(t string) string {
	switch t {
	case "integer", "array", "object":
		return "an " + t
	case "boolean":
		return "true or false"
	case "null":
		return "null"
	}
	return "a " + t
}

func describe(value any) string {
	switch x := value.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return jsonarg.Excerpt(string(x))
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "an unexpected value"
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func (v *validator) checkNumber(n json.Number, s *jsonschema.Schema, path string) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !math.IsInf(f, 0) {
		v.report("%s must be a number, got %s", quoted(path), jsonarg.Excerpt(string(n)))
		return
	}
	switch {
	case s.Minimum != nil && f < *s.Minimum:
		v.report("%s must be at least %s", quoted(path), num(*s.Minimum))
	case s.Maximum != nil && f > *s.Maximum:
		v.report("%s must be at most %s", quoted(path), num(*s.Maximum))
	case s.ExclusiveMinimum != nil && f <= *s.ExclusiveMinimum:
		v.report("%s must be greater than %s", quoted(path), num(*s.ExclusiveMinimum))
	case s.ExclusiveMaximum != nil && f >= *s.ExclusiveMaximum:
		v.report("%s must be less than %s", quoted(path), num(*s.ExclusiveMaximum))
	case s.MultipleOf != nil && *s.MultipleOf > 0 && math.Abs(math.Remainder(f, *s.MultipleOf)) > 1e-9*math.Abs(*s.MultipleOf):
		v.report("%s must be a multiple of %s", quoted(path), num(*s.MultipleOf))
	}
}

func (v *validator) checkString(str string, s *jsonschema.Schema, path string) {
	n := utf8.RuneCountInString(str)
	switch {
	case s.MinLength != nil && n < *s.MinLength:
		v.report("%s must be at least %d characters long, got %d", quoted(path), *s.MinLength, n)
	case s.MaxLength != nil && n > *s.MaxLength:
		v.report("%s must be at most %d characters long, got %d", quoted(path), *s.MaxLength, n)
	case s.Pattern != "" && v.patterns[s.Pattern] != nil && !v.patterns[s.Pattern].MatchString(str):
		v.report("%s must match the pattern %q", quoted(path), s.Pattern)
	}
}

func (v *validator) checkArray(items []any, s *jsonschema.Schema, path string) {
	switch {
	case s.MinItems != nil && len(items) < *s.MinItems:
		v.report("%s must have at least %d items, got %d", quoted(path), *s.MinItems, len(items))
	case s.MaxItems != nil && len(items) > *s.MaxItems:
		v.report("%s must have at most %d items, got %d", quoted(path), *s.MaxItems, len(items))
	}
	if s.UniqueItems {
		for i := range items {
			for j := range i {
				if sameJSON(items[i], items[j]) {
					v.report("%s must not repeat items: items %d and %d are equal", quoted(path), j, i)
				}
			}
		}
	}
	for i, item := range items {
		v.validate(item, s.Items, fmt.Sprintf("%s[%d]", path, i))
	}
}

func (v *validator) checkObject(obj map[string]any, s *jsonschema.Schema, path string) {
	for _, name := range s.Required {
		if _, ok := obj[name]; !ok {
			v.report("%s is required", quoted(child(path, name)))
		}
	}
	switch {
	case s.MinProperties != nil && len(obj) < *s.MinProperties:
		v.report("%s must have at least %d fields, got %d", quoted(path), *s.MinProperties, len(obj))
	case s.MaxProperties != nil && len(obj) > *s.MaxProperties:
		v.report("%s must have at most %d fields, got %d", quoted(path), *s.MaxProperties, len(obj))
	}
	for _, key := range sortedKeys(obj) {
		if ps, ok := s.Properties[key]; ok {
			v.validate(obj[key], ps, child(path, key))
			continue
		}
		switch {
		case s.AdditionalProperties != nil && !isFalse(s.AdditionalProperties):
			v.validate(obj[key], s.AdditionalProperties, child(path, key))
		case v.rejectUnknown && s.Properties != nil:
			v.report("%s is not a known field%s", quoted(child(path, key)), knownFields(s))
		}
	}
}

func knownFields(s *jsonschema.Schema) string {
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, strconv.Quote(name))
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "; this object takes no fields"
	}
	return "; known fields: " + strings.Join(names, ", ")
}

func sortedKeys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// isFalse reports whether s is the schema that matches nothing, as
// jsonschema-go writes `false`.
func isFalse(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

// sameJSON compares two values as JSON: numbers by value, whatever their Go
// representation.
func sameJSON(a, b any) bool {
	return jsonText(normalize(a)) == jsonText(normalize(b))
}

func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = normalize(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	}
	return v
}

func jsonText(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(out)
}

func listJSON(values []any) string {
	parts := make([]string, len(values))
	for i, e := range values {
		parts[i] = jsonText(e)
	}
	return strings.Join(parts, ", ")
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
