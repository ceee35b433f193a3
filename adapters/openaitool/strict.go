package openaitool

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNotStrict is returned (wrapped, with the place and the reason) by
// [StrictSchema] when a schema cannot be rewritten into the subset of JSON
// Schema that OpenAI's strict mode accepts.
var ErrNotStrict = errors.New("openaitool: schema cannot be made strict")

// StrictSchema returns params rewritten as OpenAI's strict mode requires, or
// an error wrapping [ErrNotStrict] that names the first place that stops it.
// [ChatTools] and [ResponsesTools] call it for every tool when
// [Options].Strict is set, and send a tool whose schema it refuses
// non-strict. params is not modified; the rewritten schema keeps every
// other keyword, the property order and each number's lexeme as they are.
//
// The rewrite, at every level (nested objects, array items, anyOf branches,
// $defs and definitions):
//   - an object gets "additionalProperties": false, and "properties": {} when
//     it has none;
//   - every property goes into "required", in the order of "properties", and
//     a property that was not required is made nullable: "null" joins its
//     "type" (["integer","null"]), or, when an enum, const, anyOf or $ref also
//     constrains it, the schema becomes {"anyOf":[schema,{"type":"null"}]};
//   - a root without "type" gets "type": "object".
//
// A model then sends null for a member it leaves out, so a tool that gets
// strict calls must read null for a member that is not required as absent,
// as functool does.
//
// It refuses, so that the tool goes non-strict rather than the request
// failing: an object open to other members (additionalProperties true or a
// schema, or no "properties" and no "additionalProperties": false: a map);
// an array without a single "items" schema; a schema with no "type", "anyOf"
// or "$ref" (any value); a root that is not an object; a type strict mode
// lacks; a boolean schema; a $ref that is not "#" or "#/$defs/name" (or
// "#/definitions/name") of the root, or that has siblings other than
// annotations; a "required" name without a property; a string format
// outside date-time, time, date, duration, email, hostname, ipv4, ipv6 and
// uuid; and the keywords strict mode does not support: allOf, oneOf, not,
// if, then, else, dependentRequired, dependentSchemas, dependencies,
// patternProperties, propertyNames, unevaluatedProperties,
// unevaluatedItems, prefixItems, additionalItems, contains, minContains,
// maxContains, uniqueItems, minProperties, maxProperties, contentSchema,
// $dynamicRef, $dynamicAnchor, $recursiveRef, and $id below the root. The
// limits on size (properties in all, nesting depth, enum values) are left
// to the API.
func StrictSchema(params json.RawMessage) (json.RawMessage, error) {
	s := strictifier{defs: map[string]bool{}}
	root, err := objectSchema(params)
	if err != nil {
		return nil, s.refuse("", "%v", err)
	}
	for _, kw := range []string{"$defs", "definitions"} {
		if raw, ok := root.get(kw); ok {
			defs, err := parseObject(raw)
			if err != nil {
				return nil, s.refuse("/"+kw, "%v", err)
			}
			for _, d := range defs {
				s.defs["#/"+kw+"/"+pointerToken(d.key)] = true
			}
		}
	}
	return s.node(root.marshal(), "")
}

// unsupported lists the keywords strict mode rejects, as OpenAI's
// Structured Outputs guide and its SDKs' strict-schema helpers do, with
// oneOf too: OpenAI's Python agents SDK turns it into anyOf, which changes
// what it means when branches overlap, so it is left non-strict here.
var unsupported = []string{
	"allOf", "oneOf", "not", "if", "then", "else",
	"dependentRequired", "dependentSchemas", "dependencies",
	"patternProperties", "propertyNames", "unevaluatedProperties", "unevaluatedItems",
	"prefixItems", "additionalItems", "contains", "minContains", "maxContains", "uniqueItems",
	"minProperties", "maxProperties", "contentSchema",
	"$dynamicRef", "$dynamicAnchor", "$recursiveRef",
}

// annotations may stand next to a $ref: they do not constrain the value.
var annotations = []string{"description", "title", "$comment", "examples", "default", "deprecated", "readOnly", "writeOnly"}

var (
	strictTypes   = []string{"string", "number", "integer", "boolean", "object", "array", "null"}
	strictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)

type strictifier struct {
	defs map[string]bool // the local $ref targets: "#/$defs/name"
}

func (s strictifier) refuse(path, format string, args ...any) error {
	if path == "" {
		path = "the root"
	}
	return fmt.Errorf("%w: at %s: %s", ErrNotStrict, path, fmt.Sprintf(format, args...))
}

// node rewrites the schema at path ("" for the root, then JSON Pointer
// tokens such as /properties/city).
func (s strictifier) node(raw json.RawMessage, path string) (json.RawMessage, error) {
	if isTrue(raw) || isFalse(raw) {
		return nil, s.refuse(path, "the schema is %s; a boolean schema has no strict form", raw)
	}
	o, err := parseObject(raw)
	if err != nil {
		return nil, s.refuse(path, "the schema is %v", err)
	}
	for _, kw := range unsupported {
		if _, ok := o.get(kw); ok {
			return nil, s.refuse(path, "strict mode does not support %q", kw)
		}
	}
	if _, ok := o.get("$id"); ok && path != "" {
		return nil, s.refuse(path, `strict mode does not support "$id" below the root`)
	}
	if ref, ok := o.get("$ref"); ok {
		if err := s.checkRef(o, ref, path); err != nil {
			return nil, err
		}
		return raw, nil
	}
	types, err := s.types(o, path)
	if err != nil {
		return nil, err
	}
	if format, ok := o.get("format"); ok {
		var f string
		if json.Unmarshal(format, &f) != nil || !slices.Contains(strictFormats, f) {
			return nil, s.refuse(path, "strict mode does not support the format %s", format)
		}
	}
	if err := s.children(&o, "anyOf", path); err != nil {
		return nil, err
	}
	for _, kw := range []string{"$defs", "definitions"} {
		if _, err := s.members(&o, kw, path); err != nil {
			return nil, err
		}
	}
	if slices.Contains(types, "object") {
		if err := s.object(&o, path); err != nil {
			return nil, err
		}
	}
	if slices.Contains(types, "array") {
		items, ok := o.get("items")
		if !ok {
			return nil, s.refuse(path, "an array needs an \"items\" schema")
		}
		if items, err = s.node(items, path+"/items"); err != nil {
			return nil, err
		}
		o.set("items", items)
	}
	return o.marshal(), nil
}

// types returns the schema's types, checking them. A schema without a type
// must be an anyOf: anything else would accept any value.
func (s strictifier) types(o object, path string) ([]string, error) {
	raw, ok := o.get("type")
	if !ok {
		if _, ok := o.get("anyOf"); ok {
			return nil, nil
		}
		return nil, s.refuse(path, `a schema needs a "type", an "anyOf" or a "$ref" (strict mode has no "any value")`)
	}
	types, ok := typeNames(raw)
	if !ok {
		return nil, s.refuse(path, "\"type\" is %s; want a type name or a list of them", raw)
	}
	for _, t := range types {
		if !slices.Contains(strictTypes, t) {
			return nil, s.refuse(path, "strict mode has no type %q", t)
		}
	}
	if _, ok := o.get("anyOf"); ok && path == "" {
		return nil, s.refuse(path, `the root must be an object schema, not an anyOf`)
	}
	return types, nil
}

func (s strictifier) checkRef(o object, ref json.RawMessage, path string) error {
	var target string
	if json.Unmarshal(ref, &target) != nil {
		return s.refuse(path, "\"$ref\" is %s; want a string", ref)
	}
	if target != "#" && !s.defs[target] {
		return s.refuse(path, "\"$ref\" %q is not \"#\" or a schema of the root's $defs or definitions", target)
	}
	for _, m := range o {
		if m.key != "$ref" && !slices.Contains(annotations, m.key) {
			return s.refuse(path, "\"$ref\" stands next to %q; strict mode allows only annotations there", m.key)
		}
	}
	return nil
}

// children rewrites each schema of the array under kw.
func (s strictifier) children(o *object, kw, path string) error {
	raw, ok := o.get(kw)
	if !ok {
		return nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return s.refuse(path, "%q is %s; want a list of schemas", kw, raw)
	}
	for i := range list {
		var err error
		if list[i], err = s.node(list[i], fmt.Sprintf("%s/%s/%d", path, kw, i)); err != nil {
			return err
		}
	}
	out, err := json.Marshal(list)
	if err != nil {
		return s.refuse(path, "%q does not encode: %v", kw, err)
	}
	o.set(kw, out)
	return nil
}

// members rewrites each schema of the object under kw.
func (s strictifier) members(o *object, kw, path string) (object, error) {
	raw, ok := o.get(kw)
	if !ok {
		return nil, nil
	}
	schemas, err := parseObject(raw)
	if err != nil {
		return nil, s.refuse(path, "%q is %v; want an object of schemas", kw, err)
	}
	for i := range schemas {
		sub := path + "/" + kw + "/" + pointerToken(schemas[i].key)
		if schemas[i].value, err = s.node(schemas[i].value, sub); err != nil {
			return nil, err
		}
	}
	o.set(kw, schemas.marshal())
	return schemas, nil
}

// object closes an object schema and makes every property required,
// nullable where it was optional.
func (s strictifier) object(o *object, path string) error {
	if extra, ok := o.get("additionalProperties"); ok && !isFalse(extra) {
		return s.refuse(path, "the object is open to other members (\"additionalProperties\": %s); strict mode needs false", extra)
	}
	props, err := s.members(o, "properties", path)
	if err != nil {
		return err
	}
	if _, ok := o.get("properties"); !ok {
		if _, closed := o.get("additionalProperties"); !closed {
			return s.refuse(path, "an object without \"properties\" is a map; strict mode has no open objects")
		}
		o.set("properties", json.RawMessage(`{}`))
	}
	var required []string
	if raw, ok := o.get("required"); ok && json.Unmarshal(raw, &required) != nil {
		return s.refuse(path, "\"required\" is %s; want a list of names", raw)
	}
	for _, name := range required {
		if _, ok := props.get(name); !ok {
			return s.refuse(path, "%q is required but not among the properties", name)
		}
	}
	all := make([]string, len(props))
	for i, p := range props {
		all[i] = p.key
		if !slices.Contains(required, p.key) {
			props[i].value = nullable(p.value)
		}
	}
	o.set("properties", props.marshal())
	names, _ := json.Marshal(all) // strings always marshal
	o.set("required", names)
	o.set("additionalProperties", json.RawMessage(`false`))
	return nil
}

// nullable returns a strict schema that also accepts null. The schema has
// passed [strictifier.node], so it is an object.
func nullable(raw json.RawMessage) json.RawMessage {
	o, err := parseObject(raw)
	if err != nil || acceptsNull(o) {
		return raw
	}
	_, hasEnum := o.get("enum")
	_, hasConst := o.get("const")
	_, hasAnyOf := o.get("anyOf")
	typ, _ := o.get("type")
	if types, ok := typeNames(typ); ok && !hasEnum && !hasConst && !hasAnyOf {
		out, _ := json.Marshal(append(types, "null")) // strings always marshal
		o.set("type", out)
		return o.marshal()
	}
	return json.RawMessage(`{"anyOf":[` + string(raw) + `,{"type":"null"}]}`)
}

// acceptsNull reports whether the schema already lets null through: its
// type includes "null" and no enum or const leaves null out, or one of its
// anyOf branches does.
func acceptsNull(o object) bool {
	if raw, ok := o.get("anyOf"); ok {
		var branches []json.RawMessage
		if json.Unmarshal(raw, &branches) == nil {
			for _, b := range branches {
				if bo, err := parseObject(b); err == nil && acceptsNull(bo) {
					return true
				}
			}
		}
		return false
	}
	typ, _ := o.get("type")
	if types, _ := typeNames(typ); !slices.Contains(types, "null") {
		return false
	}
	if raw, ok := o.get("enum"); ok {
		var values []json.RawMessage
		if json.Unmarshal(raw, &values) != nil || !slices.ContainsFunc(values, isNull) {
			return false
		}
	}
	if raw, ok := o.get("const"); ok && !isNull(raw) {
		return false
	}
	return true
}

// typeNames reads the value of "type": a name or a list of names.
func typeNames(raw json.RawMessage) ([]string, bool) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	var names []string
	if json.Unmarshal(raw, &names) != nil || len(names) == 0 {
		return nil, false
	}
	return names, true
}

func isNull(raw json.RawMessage) bool  { return strings.TrimSpace(string(raw)) == "null" }
func isFalse(raw json.RawMessage) bool { return strings.TrimSpace(string(raw)) == "false" }
func isTrue(raw json.RawMessage) bool  { return strings.TrimSpace(string(raw)) == "true" }

// pointerToken escapes a key as a JSON Pointer token, for error paths.
func pointerToken(key string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}
