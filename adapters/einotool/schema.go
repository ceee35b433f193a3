package einotool

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"

	"github.com/eino-contrib/jsonschema"
)

// schemaOf converts a JSON Schema to the *jsonschema.Schema that eino's
// [schema.NewParamsOneOfByJSONSchema] takes, such that marshalling the result
// gives back the same JSON value: every keyword with its value, the order of
// "properties", and number lexemes as written.
//
// Unmarshalling into jsonschema.Schema alone loses meaning, so we convert
// keyword by keyword. Its decoder drops keywords it does not model ("nullable",
// draft-07 "definitions", "unevaluatedProperties", any extension), drops
// "const": null, matches keywords case-insensitively ("Minimum" becomes
// "minimum"), rejects draft-04 forms ("exclusiveMinimum": true, "items": [...])
// and keeps escapes in property names (an escaped "a\u0062" stays six
// characters). A keyword whose value the library reproduces exactly goes into
// its field, a keyword holding subschemas is converted recursively, and
// everything else is kept verbatim in Extras, which the library writes back
// next to the fields. Fields are filled where possible because eino reads
// them (ToolsNode reads Properties for argument aliases, model adapters read
// the rest).
func schemaOf(raw json.RawMessage) (*jsonschema.Schema, error) {
	s, ok := subschema(raw)
	if !ok {
		return nil, errors.New("parameters are not a JSON Schema object")
	}
	return s, nil
}

// subschema converts a schema, an object or a boolean; ok is false for any
// other JSON value.
func subschema(raw json.RawMessage) (*jsonschema.Schema, bool) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "true" || string(raw) == "false" {
		s := new(jsonschema.Schema)
		return s, json.Unmarshal(raw, s) == nil
	}
	members, ok := objectMembers(raw)
	if !ok {
		return nil, false
	}
	// A non-nil Extras keeps an empty schema "{}" rather than letting
	// MarshalJSON write it as "true": equal in meaning, but not every model
	// API accepts boolean schemas.
	s := &jsonschema.Schema{Extras: map[string]any{}}
	plain := make(map[string]json.RawMessage)
	for _, m := range members {
		if known, ok := setSubschemas(s, m.key, m.value); known {
			if ok {
				continue
			}
		} else if reproduces(m.key, m.value) {
			plain[m.key] = m.value
			continue
		}
		s.Extras[m.key] = m.value
	}
	if len(plain) == 0 {
		return s, true
	}
	// Only keywords that decode on their own are in plain, and none of them
	// holds a subschema, so decoding them together cannot fail or touch the
	// fields set above.
	b, err := json.Marshal(plain)
	if err != nil || json.Unmarshal(b, s) != nil {
		return nil, false
	}
	return s, true
}

// reproduces reports whether jsonschema.Schema decodes the keyword key with
// value into a field and encodes it back as the same JSON value.
func reproduces(key string, value json.RawMessage) bool {
	in, err := json.Marshal(map[string]json.RawMessage{key: value})
	if err != nil {
		return false
	}
	var s jsonschema.Schema
	if json.Unmarshal(in, &s) != nil {
		return false
	}
	out, err := json.Marshal(&s)
	return err == nil && sameJSON(in, out)
}

// sameJSON reports whether a and b hold the same JSON value: members in any
// order, numbers compared as written.
func sameJSON(a, b []byte) bool {
	va, okA := decodeJSON(a)
	vb, okB := decodeJSON(b)
	return okA && okB && reflect.DeepEqual(va, vb)
}

func decodeJSON(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	_, err := d.Token()
	return v, errors.Is(err, io.EOF)
}

// member is one member of a JSON object.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers returns the members of a JSON object in the order written,
// their keys unescaped; a key written twice keeps its first place and its
// last value, as encoding/json keeps the last. ok is false for anything that
// is not one JSON object.
func objectMembers(raw []byte) ([]member, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var out []member
	at := make(map[string]int)
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, false
		}
		key, _ := t.(string)
		var value json.RawMessage
		if err := d.Decode(&value); err != nil {
			return nil, false
		}
		if i, dup := at[key]; dup {
			out[i].value = value
			continue
		}
		at[key] = len(out)
		out = append(out, member{key, value})
	}
	if _, err := d.Token(); err != nil {
		return nil, false
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return out, true
}

// setSubschemas converts the value of a keyword that holds subschemas into
// its field of s. known is false for any other keyword; ok is false when the
// value does not have the shape the field needs. An empty array or map is
// not ok because the field's omitempty would drop it.
func setSubschemas(s *jsonschema.Schema, key string, raw json.RawMessage) (known, ok bool) {
	switch key {
	case "properties":
		return true, setProperties(s, raw)
	case "$defs":
		return true, setByName((*map[string]*jsonschema.Schema)(&s.Definitions), raw)
	case "dependentSchemas":
		return true, setByName(&s.DependentSchemas, raw)
	case "patternProperties":
		return true, setByName(&s.PatternProperties, raw)
	case "allOf":
		return true, setList(&s.AllOf, raw)
	case "anyOf":
		return true, setList(&s.AnyOf, raw)
	case "oneOf":
		return true, setList(&s.OneOf, raw)
	case "prefixItems":
		return true, setList(&s.PrefixItems, raw)
	case "not":
		return true, setSingle(&s.Not, raw)
	case "if":
		return true, setSingle(&s.If, raw)
	case "then":
		return true, setSingle(&s.Then, raw)
	case "else":
		return true, setSingle(&s.Else, raw)
	case "items":
		return true, setSingle(&s.Items, raw)
	case "contains":
		return true, setSingle(&s.Contains, raw)
	case "additionalProperties":
		return true, setSingle(&s.AdditionalProperties, raw)
	case "propertyNames":
		return true, setSingle(&s.PropertyNames, raw)
	case "contentSchema":
		return true, setSingle(&s.ContentSchema, raw)
	}
	return false, false
}

// setProperties converts "properties", keeping the order of its members.
func setProperties(s *jsonschema.Schema, raw json.RawMessage) bool {
	members, ok := objectMembers(raw)
	if !ok {
		return false
	}
	props := jsonschema.NewProperties()
	for _, m := range members {
		sub, ok := subschema(m.value)
		if !ok {
			return false
		}
		props.Set(m.key, sub)
	}
	s.Properties = props
	return true
}

func setSingle(field **jsonschema.Schema, raw json.RawMessage) bool {
	sub, ok := subschema(raw)
	if ok {
		*field = sub
	}
	return ok
}

func setList(field *[]*jsonschema.Schema, raw json.RawMessage) bool {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return false
	}
	subs := make([]*jsonschema.Schema, len(items))
	for i, item := range items {
		sub, ok := subschema(item)
		if !ok {
			return false
		}
		subs[i] = sub
	}
	*field = subs
	return true
}

func setByName(field *map[string]*jsonschema.Schema, raw json.RawMessage) bool {
	members, ok := objectMembers(raw)
	if !ok || len(members) == 0 {
		return false
	}
	subs := make(map[string]*jsonschema.Schema, len(members))
	for _, m := range members {
		sub, ok := subschema(m.value)
		if !ok {
			return false
		}
		subs[m.key] = sub
	}
	*field = subs
	return true
}
