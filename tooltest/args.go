package tooltest

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
)

// exampleArgs builds arguments from a tool's schema that are meant to get
// past its validation: one object with just the required members, and one
// with every listed member. It understands the common keywords (type, enum,
// const, minimum and maximum, minLength, minItems, items, properties,
// required) and ignores the rest, so the arguments are a best effort.
func exampleArgs(params json.RawMessage) []json.RawMessage {
	var schema map[string]any
	if json.Unmarshal(params, &schema) != nil {
		return nil
	}
	var out []json.RawMessage
	for _, all := range []bool{false, true} {
		value := exampleObject(schema, all, 0)
		encoded, err := json.Marshal(value)
		if err != nil || slices.ContainsFunc(out, func(o json.RawMessage) bool { return string(o) == string(encoded) }) {
			continue
		}
		out = append(out, encoded)
	}
	return out
}

const maxDepth = 8

func exampleObject(schema map[string]any, all bool, depth int) map[string]any {
	obj := map[string]any{}
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]any)
	for _, r := range required {
		if name, ok := r.(string); ok {
			sub, _ := props[name].(map[string]any)
			obj[name] = exampleValue(sub, depth+1)
		}
	}
	if all {
		for name, p := range props {
			if _, done := obj[name]; !done {
				sub, _ := p.(map[string]any)
				obj[name] = exampleValue(sub, depth+1)
			}
		}
	}
	return obj
}

func exampleValue(schema map[string]any, depth int) any {
	if schema == nil || depth > maxDepth {
		return "x"
	}
	if c, ok := schema["const"]; ok {
		return c
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	switch schemaType(schema) {
	case "integer":
		return math.Round(clamp(schema, 1))
	case "number":
		return clamp(schema, 1)
	case "boolean":
		return true
	case "null":
		return nil
	case "array":
		items, _ := schema["items"].(map[string]any)
		n := int(number(schema, "minItems", 0))
		list := make([]any, n)
		for i := range list {
			list[i] = exampleValue(items, depth+1)
		}
		return list
	case "object":
		return exampleObject(schema, false, depth)
	}
	return strings.Repeat("x", max(1, int(number(schema, "minLength", 1))))
}

// schemaType returns the schema's type, preferring a non-null one from a list.
func schemaType(schema map[string]any) string {
	switch t := schema["type"].(type) {
	case string:
		return t
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && s != "null" {
				return s
			}
		}
	}
	return ""
}

func number(schema map[string]any, key string, fallback float64) float64 {
	if f, ok := schema[key].(float64); ok {
		return f
	}
	return fallback
}

// clamp moves want into the schema's [minimum, maximum].
func clamp(schema map[string]any, want float64) float64 {
	if lo, ok := schema["minimum"].(float64); ok && want < lo {
		want = lo
	}
	if lo, ok := schema["exclusiveMinimum"].(float64); ok && want <= lo {
		want = math.Floor(lo) + 1
	}
	if hi, ok := schema["maximum"].(float64); ok && want > hi {
		want = hi
	}
	if hi, ok := schema["exclusiveMaximum"].(float64); ok && want >= hi {
		want = math.Ceil(hi) - 1
	}
	return want
}
