package functool

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agenttool/agenttool/internal/jsonarg"
)

// explain words a verdict of jsonschema-go for a model. The validator's
// error is a chain of "validating <schema location>: " wrappers around the
// rule that failed; explain follows the locations through the arguments to
// name the member that broke the rule ("ship.zip", "notes[1]"), and states
// the rule from the schema itself, so that no JSON pointer and no Go value
// reaches the model.
func (j *judge) explain(err error, args map[string]any) string {
	var locs []string
	for {
		inner := errors.Unwrap(err)
		msg := err.Error()
		if inner == nil || !strings.HasPrefix(msg, "validating ") || len(msg) < len(inner.Error())+len("validating : ") {
			break
		}
		locs = append(locs, msg[len("validating "):len(msg)-len(inner.Error())-2])
		err = inner
	}
	p := place{value: args, known: true}
	for k := 1; k < len(locs); k++ {
		prev, next := locs[k-1], locs[k]
		if prev == "root" {
			prev = ""
		}
		if rel, ok := strings.CutPrefix(next, prev+"/"); ok {
			p = j.follow(p, prev, strings.Split(rel, "/"))
		}
		// Otherwise the validator followed a $ref: same value, another schema.
	}
	var node *jsonschema.Schema
	if len(locs) > 0 {
		node = j.at(strings.TrimPrefix(locs[len(locs)-1], "root"))
	}
	return j.rule(p, node, err.Error())
}

// place is where in the arguments a rule failed.
type place struct {
	path  string // "ship.zip", "notes[1]"; "" for the arguments as a whole
	value any    // the value there, when known
	known bool
}

// follow moves p along the schema location segments below the location at.
func (j *judge) follow(p place, at string, segs []string) place {
	for i := 0; i < len(segs); i++ {
		seg := unescape(segs[i])
		switch seg {
		case "properties", "prefixItems":
			if i+1 >= len(segs) {
				return p
			}
			i++
			name := unescape(segs[i])
			at += "/" + seg + "/" + segs[i]
			if seg == "properties" {
				p = p.member(name)
			} else {
				n, _ := strconv.Atoi(name)
				p = p.item(n)
			}
		case "items":
			at += "/items"
			arr, _ := p.value.([]any)
			p = p.item(j.firstFailing(j.at(at), len(arr), func(i int) any { return arr[i] }))
		case "additionalProperties":
			parent := j.at(at)
			at += "/additionalProperties"
			obj, _ := p.value.(map[string]any)
			var extra []string
			for _, k := range sortedKeys(obj) {
				if _, listed := parent.Properties[k]; parent == nil || !listed {
					extra = append(extra, k)
				}
			}
			n := j.firstFailing(j.at(at), len(extra), func(i int) any { return obj[extra[i]] })
			if n < 0 {
				p = place{path: child(p.path, "*")}
			} else {
				p = p.member(extra[n])
			}
		case "anyOf", "allOf", "oneOf", "$defs", "definitions", "dependentSchemas", "patternProperties":
			// The same value under another schema, or a member not known here.
			if seg == "patternProperties" {
				p = place{path: child(p.path, "*")}
			}
			if i+1 < len(segs) {
				at += "/" + seg + "/" + segs[i+1]
				i++
			}
		default: // not, if, then, else, contains, ...: the same value
			at += "/" + seg
		}
	}
	return p
}

func (p place) member(name string) place {
	obj, ok := p.value.(map[string]any)
	v, has := obj[name]
	return place{path: child(p.path, name), value: v, known: ok && has}
}

func (p place) item(n int) place {
	if n < 0 {
		return place{path: p.path + "[]"}
	}
	arr, ok := p.value.([]any)
	q := place{path: fmt.Sprintf("%s[%d]", p.path, n)}
	if ok && n < len(arr) {
		q.value, q.known = arr[n], true
	}
	return q
}

// firstFailing returns the first of n values that s, resolved on its own,
// refuses, or -1 when s does not resolve on its own or none is refused.
func (j *judge) firstFailing(s *jsonschema.Schema, n int, value func(int) any) int {
	r := j.alone[s]
	if r == nil {
		return -1
	}
	for i := range n {
		plain, problem := plainNumbers(value(i), "")
		if problem != "" || r.Validate(plain) != nil {
			return i
		}
	}
	return -1
}

// at returns the schema at a location below the root ("/properties/ship"),
// or nil when there is none.
func (j *judge) at(loc string) *jsonschema.Schema {
	s := j.schema
	segs := strings.Split(strings.TrimPrefix(loc, "/"), "/")
	if loc == "" {
		segs = nil
	}
	for i := 0; i < len(segs) && s != nil; i++ {
		seg := unescape(segs[i])
		next := func() string {
			if i+1 < len(segs) {
				i++
				return unescape(segs[i])
			}
			return ""
		}
		switch seg {
		case "properties":
			s = s.Properties[next()]
		case "$defs":
			s = s.Defs[next()]
		case "definitions":
			s = s.Definitions[next()]
		case "patternProperties":
			s = s.PatternProperties[next()]
		case "dependentSchemas":
			s = s.DependentSchemas[next()]
		case "anyOf", "allOf", "oneOf", "prefixItems":
			list := map[string][]*jsonschema.Schema{"anyOf": s.AnyOf, "allOf": s.AllOf, "oneOf": s.OneOf, "prefixItems": s.PrefixItems}[seg]
			n, err := strconv.Atoi(next())
			if err != nil || n < 0 || n >= len(list) {
				return nil
			}
			s = list[n]
		case "items":
			s = s.Items
		case "additionalProperties":
			s = s.AdditionalProperties
		case "not":
			s = s.Not
		case "if":
			s = s.If
		case "then":
			s = s.Then
		case "else":
			s = s.Else
		case "contains":
			s = s.Contains
		case "propertyNames":
			s = s.PropertyNames
		default:
			return nil
		}
	}
	return s
}

func unescape(seg string) string {
	return strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
}

var quotedStrings = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// names returns the quoted strings in a validator message, unquoted.
func names(msg string) []string {
	var out []string
	for _, q := range quotedStrings.FindAllString(msg, -1) {
		if s, err := strconv.Unquote(q); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// rule states the rule that failed at p, from the schema node that holds
// it; leaf is the validator's own message for it.
func (j *judge) rule(p place, node *jsonschema.Schema, leaf string) string {
	name := quoted(p.path)
	keyword, detail, _ := strings.Cut(leaf, ": ")
	if strings.HasPrefix(leaf, "unexpected additional properties") {
		keyword, detail = "additionalProperties", strings.TrimPrefix(leaf, "unexpected additional properties")
	}
	if node == nil {
		node = &jsonschema.Schema{}
	}
	switch keyword {
	case "type":
		return fmt.Sprintf("%s must be %s, got %s", name, wantTypes(node), p.got(detail))
	case "enum":
		return fmt.Sprintf("%s must be one of %s", name, listJSON(node.Enum))
	case "const":
		if node.Const != nil {
			return fmt.Sprintf("%s must be %s", name, jsonText(*node.Const))
		}
	case "minimum":
		return bound(name, "at least", node.Minimum)
	case "maximum":
		return bound(name, "at most", node.Maximum)
	case "exclusiveMinimum":
		return bound(name, "greater than", node.ExclusiveMinimum)
	case "exclusiveMaximum":
		return bound(name, "less than", node.ExclusiveMaximum)
	case "multipleOf":
		return bound(name, "a multiple of", node.MultipleOf)
	case "minLength", "maxLength":
		n, limit, word := 0, node.MinLength, "least"
		if keyword == "maxLength" {
			limit, word = node.MaxLength, "most"
		}
		if s, ok := p.value.(string); ok {
			n = utf8.RuneCountInString(s)
		}
		if limit != nil {
			return fmt.Sprintf("%s must be at %s %d characters long, got %d", name, word, *limit, n)
		}
	case "pattern":
		return fmt.Sprintf("%s must match the pattern %q", name, node.Pattern)
	case "minItems", "maxItems":
		limit, word := node.MinItems, "least"
		if keyword == "maxItems" {
			limit, word = node.MaxItems, "most"
		}
		arr, _ := p.value.([]any)
		if limit != nil {
			return fmt.Sprintf("%s must have at %s %d items, got %d", name, word, *limit, len(arr))
		}
	case "uniqueItems":
		return fmt.Sprintf("%s must not repeat items: %s", name, detail)
	case "minProperties", "maxProperties":
		limit, word := node.MinProperties, "least"
		if keyword == "maxProperties" {
			limit, word = node.MaxProperties, "most"
		}
		obj, _ := p.value.(map[string]any)
		if limit != nil {
			return fmt.Sprintf("%s must have at %s %d fields, got %d", name, word, *limit, len(obj))
		}
	case "required":
		var parts []string
		for _, missing := range names(detail) {
			parts = append(parts, quoted(child(p.path, missing))+" is required")
		}
		if len(parts) > 0 {
			return strings.Join(parts, "; ")
		}
	case "additionalProperties":
		extra := names(detail)
		quotedExtra := make([]string, len(extra))
		for i, e := range extra {
			quotedExtra[i] = quoted(child(p.path, e))
		}
		verb := " is not a known field"
		if len(extra) > 1 {
			verb = " are not known fields"
		}
		return strings.Join(quotedExtra, ", ") + verb + knownFields(node)
	case "anyOf":
		return fmt.Sprintf("%s must match one of: %s", name, j.forms(node.AnyOf))
	case "oneOf":
		return fmt.Sprintf("%s must match exactly one of: %s", name, j.forms(node.OneOf))
	case "not":
		return fmt.Sprintf("%s must not be %s", name, j.form(node.Not))
	}
	if k := strings.IndexAny(keyword, "[ "); k > 0 {
		keyword = keyword[:k]
	}
	return fmt.Sprintf("%s does not meet the schema's %q rule", name, jsonarg.Excerpt(keyword))
}

func bound(name, relation string, limit *float64) string {
	if limit == nil {
		return name + " is out of range"
	}
	return fmt.Sprintf("%s must be %s %s", name, relation, strconv.FormatFloat(*limit, 'f', -1, 64))
}

// got describes the value at p, or, when it is not known, the type the
// validator's message names.
func (p place) got(detail string) string {
	if p.known {
		return describe(p.value)
	}
	if _, rest, ok := strings.Cut(detail, "has type "); ok {
		if n := names(rest); len(n) > 0 {
			return typeName(n[0])
		}
	}
	return "another type"
}

func wantTypes(s *jsonschema.Schema) string {
	want := s.Types
	if s.Type != "" {
		want = []string{s.Type}
	}
	words := make([]string, len(want))
	for i, w := range want {
		words[i] = typeName(w)
	}
	return strings.Join(words, " or ")
}

// forms describes the branches of an anyOf or oneOf, for a model to pick one.
func (j *judge) forms(branches []*jsonschema.Schema) string {
	const most = 5
	parts := make([]string, 0, most+1)
	for i, b := range branches {
		if i == most {
			parts = append(parts, fmt.Sprintf("%d more", len(branches)-most))
			break
		}
		parts = append(parts, j.form(b))
	}
	return strings.Join(parts, "; or ")
}

// form describes what one schema accepts, in a few words.
func (j *judge) form(s *jsonschema.Schema) string {
	s = j.deref(s)
	switch {
	case s == nil:
		return "a value"
	case s.Const != nil:
		return jsonText(*s.Const)
	case len(s.Enum) > 0:
		return jsonarg.Excerpt("one of " + listJSON(s.Enum))
	}
	out := wantTypes(s)
	if len(s.Required) > 0 {
		if out == "" {
			out = "an object"
		}
		quotedReq := make([]string, len(s.Required))
		for i, r := range s.Required {
			quotedReq[i] = strconv.Quote(r)
		}
		out += " with " + jsonarg.Excerpt(strings.Join(quotedReq, ", "))
	}
	if out == "" {
		return "the schema's other form"
	}
	return out
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

// describe names a decoded argument value (numbers as json.Number) for a
// message: literals as written, containers by kind.
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

func knownFields(s *jsonschema.Schema) string {
	quotedNames := make([]string, 0, len(s.Properties))
	for _, name := range sortedKeys(s.Properties) {
		quotedNames = append(quotedNames, strconv.Quote(name))
	}
	if len(quotedNames) == 0 {
		return "; this object takes no fields"
	}
	return "; known fields: " + strings.Join(quotedNames, ", ")
}

func jsonText(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		return "a value"
	}
	return jsonarg.Excerpt(string(out))
}

func listJSON(values []any) string {
	parts := make([]string, len(values))
	for i, e := range values {
		parts[i] = jsonText(e)
	}
	return strings.Join(parts, ", ")
}
