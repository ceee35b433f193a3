package einotool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/eino-contrib/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/einotool"
)

// einoSchema returns the JSON Schema Eino holds for a tool whose
// Parameters are params, and that schema as a model adapter writes it.
func einoSchema(t testing.TB, params string) (*jsonschema.Schema, []byte, bool) {
	t.Helper()
	reg, err := agenttool.NewRegistry(&agenttool.FuncTool{ToolName: "t", Schema: json.RawMessage(params)})
	if err != nil {
		return nil, nil, false
	}
	tools, err := einotool.Tools(reg)
	require.NoError(t, err)
	info, err := tools[0].Info(context.Background())
	require.NoError(t, err)
	js, err := info.ToJSONSchema()
	require.NoError(t, err)
	b, err := json.Marshal(js)
	require.NoError(t, err)
	return js, b, true
}

// propertyOrder returns the names of the members of the top-level
// "properties" of a schema, in the order written; a name written twice
// counts where it first appears. It is nil when "properties" is not an
// object.
func propertyOrder(t testing.TB, schema []byte) []string {
	t.Helper()
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(schema, &top))
	raw, ok := top["properties"]
	if !ok {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	if open, err := d.Token(); err != nil || open != json.Delim('{') {
		return nil
	}
	var names []string
	for d.More() {
		key, err := d.Token()
		require.NoError(t, err)
		if !slices.Contains(names, key.(string)) {
			names = append(names, key.(string))
		}
		var skip json.RawMessage
		require.NoError(t, d.Decode(&skip))
	}
	return names
}

func TestSchemaReachesEinoWhole(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
	}{
		{"sleep", string(agenttool.SleepTool{}.Parameters())},
		{"empty", `{}`},
		{"order of properties", `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"},"mid":{}}}`},
		{"numbers as written", `{"type":"object","properties":{"n":{"type":"number","minimum":1.0,"maximum":1e3,"multipleOf":0.50,"default":2.0,"enum":[1.0,2]}}}`},
		{"nullable and extensions", `{"type":"object","nullable":true,"x-order":["a"],"propertyOrdering":["a"],"properties":{"a":{"type":"string","x-secret":{"deep":[1,{"k":null}]}}}}`},
		{"draft-07 definitions", `{"type":"object","definitions":{"pt":{"type":"object","properties":{"x":{"type":"number"}}}},"properties":{"p":{"$ref":"#/definitions/pt"}}}`},
		{"draft-04 forms", `{"type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true},"t":{"type":"array","items":[{"type":"string"}],"additionalItems":false}}}`},
		{"nulls that mean something", `{"type":"object","properties":{"c":{"const":null},"d":{"default":null,"type":["string","null"]}}}`},
		{"keywords in other cases", `{"type":"object","Minimum":3,"Description":"not a keyword","Properties":{"x":{}}}`},
		{"escaped property names", `{"type":"object","properties":{"a\u0062":{"type":"string"},"q\"uote":{},"\u00e9t\u00e9":{}}}`},
		{"falsy values kept", `{"type":"object","uniqueItems":false,"required":[],"allOf":[],"$defs":{},"properties":{},"title":"","maxLength":0,"deprecated":false}`},
		{"boolean subschemas", `{"type":"object","properties":{"any":true,"none":false},"additionalProperties":false}`},
		{"2020-12 everything", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"urn:t","type":"object",
			"$defs":{"pos":{"type":"integer","exclusiveMinimum":0}},
			"properties":{
				"a":{"anyOf":[{"$ref":"#/$defs/pos"},{"type":"null"}]},
				"b":{"oneOf":[{"type":"string","pattern":"^x","minLength":1,"maxLength":9,"format":"email"},{"type":"boolean"}]},
				"c":{"allOf":[{"type":"object","properties":{"z":{"type":"string"}},"required":["z"]}],"not":{"required":["q"]}},
				"d":{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"number"},"contains":{"const":1},"minContains":1,"maxContains":2,"minItems":1,"maxItems":3,"uniqueItems":true},
				"e":{"type":"object","patternProperties":{"^s_":{"type":"string"}},"propertyNames":{"maxLength":8},"dependentSchemas":{"a":{"required":["b"]}},"dependentRequired":{"x":["y"]},"minProperties":1,"maxProperties":4,"unevaluatedProperties":false},
				"f":{"if":{"const":1},"then":{"minimum":1},"else":{"maximum":0}},
				"g":{"type":"string","contentEncoding":"base64","contentMediaType":"application/json","contentSchema":{"type":"object"},"examples":["e30="],"readOnly":true,"writeOnly":false,"$comment":"c","$anchor":"g"}
			},
			"required":["a","b"],"additionalProperties":{"type":"string"},"description":"Everything."}`},
		{"wrong shapes kept verbatim", `{"type":"object","properties":{"a":5},"items":"x","allOf":{},"$defs":[],"maxLength":-1,"minItems":1.5,"type2":1}`},
		{"duplicate keys keep the last", `{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"integer"}},"required":["x"],"required":["a"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got, ok := einoSchema(t, tc.schema)
			require.True(t, ok, "the registry must accept the schema")
			requireSameJSON(t, []byte(tc.schema), got)
			assert.Equal(t, propertyOrder(t, []byte(tc.schema)), propertyOrder(t, got))
		})
	}
}

func TestSchemaFieldsAreFilledForEino(t *testing.T) {
	js, _, ok := einoSchema(t, `{"type":"object","nullable":true,
		"properties":{"zeta":{"type":"integer","minimum":1.0,"x-unit":"s"},"alpha":{"type":"array","items":{"type":"string"}}},
		"required":["zeta"],"additionalProperties":false,"$defs":{"d":{"type":"null"}}}`)
	require.True(t, ok)
	assert.Equal(t, "object", js.Type)
	assert.Equal(t, []string{"zeta"}, js.Required)
	assert.Equal(t, map[string]any{"nullable": json.RawMessage("true")}, js.Extras)
	require.NotNil(t, js.Properties)
	var names []string
	for p := js.Properties.Oldest(); p != nil; p = p.Next() {
		names = append(names, p.Key)
	}
	assert.Equal(t, []string{"zeta", "alpha"}, names)
	zeta, _ := js.Properties.Get("zeta")
	require.NotNil(t, zeta)
	assert.Equal(t, "integer", zeta.Type)
	assert.Equal(t, json.Number("1.0"), zeta.Minimum)
	assert.Equal(t, map[string]any{"x-unit": json.RawMessage(`"s"`)}, zeta.Extras)
	alpha, _ := js.Properties.Get("alpha")
	require.NotNil(t, alpha)
	require.NotNil(t, alpha.Items)
	assert.Equal(t, "string", alpha.Items.Type)
	b, err := json.Marshal(js.AdditionalProperties)
	require.NoError(t, err)
	assert.JSONEq(t, `false`, string(b))
	require.Contains(t, js.Definitions, "d")
	assert.Equal(t, "null", js.Definitions["d"].Type)
}

func FuzzSchemaReachesEinoWhole(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		string(agenttool.SleepTool{}.Parameters()),
		`{"type":"object","properties":{"b":{"type":"string"},"a":{"const":null}},"definitions":{"x":{}}}`,
		`{"properties":{"a":{"items":[true,{"minimum":1.0}]}},"allOf":[{"not":{}}],"$defs":{"k":false}}`,
		`{"Type":"object","required":[],"enum":[1.0]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, params string) {
		_, got, ok := einoSchema(t, params)
		if !ok {
			return
		}
		requireSameJSON(t, []byte(params), got)
		assert.Equal(t, propertyOrder(t, []byte(params)), propertyOrder(t, got))
	})
}
