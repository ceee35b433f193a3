package openaitool_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/openaitool"
)

func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, []byte(s)), s)
	return b.String()
}

func TestStrictSchema(t *testing.T) {
	// want is compared as compact text, so order counts: the rewrite keeps the author's key
	// order and every number's lexeme, and appends what it adds.
	tests := []struct{ name, in, want string }{{
		name: "optional member made nullable",
		in:   `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","maximum":14}},"required":["city"]}`,
		want: `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":["integer","null"],"maximum":14}},"required":["city","days"],"additionalProperties":false}`,
	}, {
		name: "nested objects and arrays of objects",
		in: `{"type":"object","properties":{"trip":{"type":"object","properties":{` +
			`"from":{"type":"string"},` +
			`"stops":{"type":"array","maxItems":5,"items":{"type":"object","properties":{"city":{"type":"string"},"nights":{"type":"integer","minimum":1}},"required":["city"]}}},` +
			`"required":["from"]}},"required":["trip"]}`,
		want: `{"type":"object","properties":{"trip":{"type":"object","properties":{` +
			`"from":{"type":"string"},` +
			`"stops":{"type":["array","null"],"maxItems":5,"items":{"type":"object","properties":{"city":{"type":"string"},"nights":{"type":["integer","null"],"minimum":1}},"required":["city","nights"],"additionalProperties":false}}},` +
			`"required":["from","stops"],"additionalProperties":false}},"required":["trip"],"additionalProperties":false}`,
	}, {
		name: "properties keep their order in required",
		in:   `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"},"m":{"type":"string"}},"required":["m","z","a"]}`,
		want: `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"},"m":{"type":"string"}},"required":["z","a","m"],"additionalProperties":false}`,
	}, {
		name: "numbers keep their lexemes",
		in:   `{"type":"object","properties":{"n":{"type":"number","minimum":0.50,"maximum":1e3,"multipleOf":0.25}},"required":["n"]}`,
		want: `{"type":"object","properties":{"n":{"type":"number","minimum":0.50,"maximum":1e3,"multipleOf":0.25}},"required":["n"],"additionalProperties":false}`,
	}, {
		name: "root without type",
		in:   `{"properties":{"q":{"type":"string"}},"required":["q"]}`,
		want: `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`,
	}, {
		name: "closed object without properties",
		in:   `{"type":"object","additionalProperties":false}`,
		want: `{"type":"object","additionalProperties":false,"properties":{},"required":[]}`,
	}, {
		name: "optional member that already takes null",
		in:   `{"type":"object","properties":{"note":{"type":["string","null"]}}}`,
		want: `{"type":"object","properties":{"note":{"type":["string","null"]}},"required":["note"],"additionalProperties":false}`,
	}, {
		name: "optional enum wrapped in anyOf, since null is not among its values",
		in:   `{"type":"object","properties":{"unit":{"type":"string","enum":["c","f"],"description":"the unit"}}}`,
		want: `{"type":"object","properties":{"unit":{"anyOf":[{"type":"string","enum":["c","f"],"description":"the unit"},{"type":"null"}]}},"required":["unit"],"additionalProperties":false}`,
	}, {
		name: "optional nullable enum left alone",
		in:   `{"type":"object","properties":{"unit":{"type":["string","null"],"enum":["c","f",null]}}}`,
		want: `{"type":"object","properties":{"unit":{"type":["string","null"],"enum":["c","f",null]}},"required":["unit"],"additionalProperties":false}`,
	}, {
		name: "optional $ref wrapped in anyOf, $defs rewritten",
		in: `{"type":"object","$defs":{"point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}},` +
			`"properties":{"at":{"$ref":"#/$defs/point","description":"where"}}}`,
		want: `{"type":"object","$defs":{"point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"],"additionalProperties":false}},` +
			`"properties":{"at":{"anyOf":[{"$ref":"#/$defs/point","description":"where"},{"type":"null"}]}},"required":["at"],"additionalProperties":false}`,
	}, {
		name: "$ref to a definition whose name needs escaping",
		in:   `{"type":"object","definitions":{"a/b":{"type":"string"}},"properties":{"p":{"$ref":"#/definitions/a~1b"}},"required":["p"]}`,
		want: `{"type":"object","definitions":{"a/b":{"type":"string"}},"properties":{"p":{"$ref":"#/definitions/a~1b"}},"required":["p"],"additionalProperties":false}`,
	}, {
		name: "recursive $ref to the root",
		in:   `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},"required":["name","children"]}`,
		want: `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},"required":["name","children"],"additionalProperties":false}`,
	}, {
		name: "anyOf branches rewritten",
		in: `{"type":"object","properties":{"target":{"anyOf":[{"type":"string","format":"email"},` +
			`{"type":"object","properties":{"id":{"type":"integer"},"team":{"type":"string"}},"required":["id"]}]}},"required":["target"]}`,
		want: `{"type":"object","properties":{"target":{"anyOf":[{"type":"string","format":"email"},` +
			`{"type":"object","properties":{"id":{"type":"integer"},"team":{"type":["string","null"]}},"required":["id","team"],"additionalProperties":false}]}},"required":["target"],"additionalProperties":false}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := openaitool.StrictSchema(json.RawMessage(tt.in))
			require.NoError(t, err)
			assert.Equal(t, compact(t, tt.want), compact(t, string(got)))
		})
	}
}

func TestStrictSchemaRefuses(t *testing.T) {
	tests := []struct{ name, in, where, why string }{
		{"open map", `{"type":"object","properties":{"tags":{"type":"object","additionalProperties":{"type":"string"}}}}`, "/properties/tags", "open to other members"},
		{"open root", `{"type":"object","properties":{},"additionalProperties":true}`, "the root", "open to other members"},
		{"object without properties", `{"type":"object","properties":{"meta":{"type":"object"}},"required":["meta"]}`, "/properties/meta", "is a map"},
		{"allOf", `{"type":"object","properties":{"a":{"allOf":[{"type":"string"}]}}}`, "/properties/a", `"allOf"`},
		{"oneOf", `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, "/properties/a", `"oneOf"`},
		{"patternProperties", `{"type":"object","properties":{},"patternProperties":{"^x-":{"type":"string"}}}`, "the root", `"patternProperties"`},
		{"uniqueItems in array items", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"array","items":{"type":"string"},"uniqueItems":true}}}}`, "/properties/l/items", `"uniqueItems"`},
		{"if", `{"type":"object","properties":{},"if":{"required":["a"]}}`, "the root", `"if"`},
		{"array without items", `{"type":"object","properties":{"l":{"type":"array"}}}`, "/properties/l", `"items"`},
		{"tuple items", `{"type":"object","properties":{"l":{"type":"array","items":[{"type":"string"}]}}}`, "/properties/l/items", "not a JSON object"},
		{"any value", `{"type":"object","properties":{"v":{"description":"anything"}}}`, "/properties/v", `"type"`},
		{"boolean schema", `{"type":"object","properties":{"v":true}}`, "/properties/v", "boolean schema"},
		{"type strict mode lacks", `{"type":"object","properties":{"f":{"type":"file"}}}`, "/properties/f", `"file"`},
		{"format strict mode lacks", `{"type":"object","properties":{"u":{"type":"string","format":"uri"}}}`, "/properties/u", `"uri"`},
		{"external $ref", `{"type":"object","properties":{"p":{"$ref":"https://example.com/point.json"}}}`, "/properties/p", "$ref"},
		{"$ref to a missing definition", `{"type":"object","$defs":{},"properties":{"p":{"$ref":"#/$defs/point"}}}`, "/properties/p", "$ref"},
		{"$defs not an object", `{"type":"object","$defs":[],"properties":{}}`, "/$defs", "not a JSON object"},
		{"$ref with a constraint beside it", `{"type":"object","$defs":{"n":{"type":"number"}},"properties":{"p":{"$ref":"#/$defs/n","minimum":1}}}`, "/properties/p", `"minimum"`},
		{"required name without a property", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}`, "the root", `"b"`},
		{"root anyOf", `{"anyOf":[{"type":"object","properties":{}}]}`, "the root", "anyOf"},
		{"root array", `{"type":"array","items":{"type":"string"}}`, "the root", `"object"`},
		{"nested $id", `{"type":"object","properties":{"a":{"$id":"x","type":"string"}}}`, "/properties/a", `"$id"`},
		{"escaped key in the path", `{"type":"object","properties":{"a/b~c":{"type":"array"}}}`, "/properties/a~1b~0c", `"items"`},
		{"not an object", `[]`, "the root", "not a JSON object"},
		{"duplicate key", `{"type":"object","type":"object"}`, "the root", "appears twice"},
		{"trailing data", `{"type":"object"} {}`, "", "single JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := openaitool.StrictSchema(json.RawMessage(tt.in))
			require.ErrorIs(t, err, openaitool.ErrNotStrict)
			assert.Nil(t, got)
			assert.Contains(t, err.Error(), tt.where)
			assert.Contains(t, err.Error(), tt.why)
		})
	}
}

func TestStrictSchemaDoesNotChangeItsInput(t *testing.T) {
	in := json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"integer"}}}}}`)
	before := string(in)
	_, err := openaitool.StrictSchema(in)
	require.NoError(t, err)
	assert.Equal(t, before, string(in))
}

// A tool whose schema cannot be strict goes out non-strict, as it is, next
// to strict ones, in both APIs.
func TestStrictFallsBackPerTool(t *testing.T) {
	open := `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}},"required":["labels"]}`
	defs := []agenttool.Definition{
		{Name: "label", Description: "Set labels.", Parameters: json.RawMessage(open)},
		{Name: "weather", Description: "Forecast for a city.", Parameters: json.RawMessage(weatherSchema)},
	}
	opts := &openaitool.Options{Strict: true}

	chat, err := openaitool.ChatTools(defs, opts)
	require.NoError(t, err)
	got, err := json.Marshal(chat)
	require.NoError(t, err)
	assert.JSONEq(t, `[`+
		`{"type":"function","function":{"name":"label","description":"Set labels.","strict":false,"parameters":`+open+`}},`+
		`{"type":"function","function":{"name":"weather","description":"Forecast for a city.","strict":true,"parameters":`+strictWeatherSchema+`}}]`, string(got))

	resp, err := openaitool.ResponsesTools(defs, opts)
	require.NoError(t, err)
	got, err = json.Marshal(resp)
	require.NoError(t, err)
	assert.JSONEq(t, `[`+
		`{"type":"function","name":"label","description":"Set labels.","strict":false,"parameters":`+open+`},`+
		`{"type":"function","name":"weather","description":"Forecast for a city.","strict":true,"parameters":`+strictWeatherSchema+`}]`, string(got))
}

func TestToolsWithoutOptions(t *testing.T) {
	defs := []agenttool.Definition{{Name: "weather", Description: "Forecast for a city.", Parameters: json.RawMessage(weatherSchema)}}
	for _, opts := range []*openaitool.Options{nil, {}} {
		chat, err := openaitool.ChatTools(defs, opts)
		require.NoError(t, err)
		got, err := json.Marshal(chat)
		require.NoError(t, err)
		assert.JSONEq(t, `[{"type":"function","function":{"name":"weather","description":"Forecast for a city.","parameters":`+weatherSchema+`}}]`, string(got),
			"Chat Completions reads a missing strict as false")

		resp, err := openaitool.ResponsesTools(defs, opts)
		require.NoError(t, err)
		got, err = json.Marshal(resp)
		require.NoError(t, err)
		assert.JSONEq(t, `[{"type":"function","name":"weather","description":"Forecast for a city.","strict":false,"parameters":`+weatherSchema+`}]`, string(got),
			"the Responses API reads a missing strict as true")
	}
}

func TestToolsKeepSchemaBytes(t *testing.T) {
	schema := `{"type":"object","properties":{"n":{"type":"integer","minimum":-9007199254740993,"maximum":1e3,"default":0.10}}}`
	defs := []agenttool.Definition{{Name: "n", Parameters: json.RawMessage(schema)}}
	chat, err := openaitool.ChatTools(defs, nil)
	require.NoError(t, err)
	got, err := json.Marshal(chat)
	require.NoError(t, err)
	assert.Contains(t, string(got), `"properties":{"n":{"type":"integer","minimum":-9007199254740993,"maximum":1e3,"default":0.10}}`)
	resp, err := openaitool.ResponsesTools(defs, nil)
	require.NoError(t, err)
	got, err = json.Marshal(resp)
	require.NoError(t, err)
	assert.Contains(t, string(got), `"properties":{"n":{"type":"integer","minimum":-9007199254740993,"maximum":1e3,"default":0.10}}`)
}

func TestToolsRefuseInvalidDefinitions(t *testing.T) {
	ok := json.RawMessage(`{"type":"object"}`)
	tests := []struct {
		name string
		defs []agenttool.Definition
		why  string
	}{
		{"empty name", []agenttool.Definition{{Name: "", Parameters: ok}}, `name ""`},
		{"name with a colon", []agenttool.Definition{{Name: "custom:x", Parameters: ok}}, `"custom:x"`},
		{"duplicate", []agenttool.Definition{{Name: "a", Parameters: ok}, {Name: "a", Parameters: ok}}, `"a" is tool 0 and tool 1`},
		{"no parameters", []agenttool.Definition{{Name: "a"}}, "empty"},
		{"parameters not an object", []agenttool.Definition{{Name: "a", Parameters: json.RawMessage(`[1]`)}}, "not a JSON object"},
		{"parameters not JSON", []agenttool.Definition{{Name: "a", Parameters: json.RawMessage(`{"type":`)}}, "not valid JSON"},
		{"parameters of another type", []agenttool.Definition{{Name: "a", Parameters: json.RawMessage(`{"type":"string"}`)}}, `"type" is "string"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, opts := range []*openaitool.Options{nil, {Strict: true}} {
				chat, err := openaitool.ChatTools(tt.defs, opts)
				require.ErrorIs(t, err, openaitool.ErrInvalidDefinition)
				assert.Contains(t, err.Error(), tt.why)
				assert.Nil(t, chat)
				resp, err := openaitool.ResponsesTools(tt.defs, opts)
				require.ErrorIs(t, err, openaitool.ErrInvalidDefinition)
				assert.Contains(t, err.Error(), tt.why)
				assert.Nil(t, resp)
			}
		})
	}
}
