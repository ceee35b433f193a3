package anthropictool_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/anthropictool"
)

func TestToolsWire(t *testing.T) {
	tests := map[string]struct {
		params string
		want   string // the input_schema on the wire
	}{
		"whole schema": {params: weatherSchema, want: weatherSchema},
		"no type gets object": {
			params: `{"properties":{"q":{"type":"string"}}}`,
			want:   `{"type":"object","properties":{"q":{"type":"string"}}}`,
		},
		"empty schema": {params: `{}`, want: `{"type":"object"}`},
		"numbers keep their digits": {
			params: `{"type":"object","properties":{"n":{"type":"integer","maximum":86400,"multipleOf":0.5,"const":12345678901234567890123}}}`,
			want:   `{"type":"object","properties":{"n":{"type":"integer","maximum":86400,"multipleOf":0.5,"const":12345678901234567890123}}}`,
		},
		"top-level extras keep their numbers": {
			params: `{"type":"object","minProperties":1,"maxProperties":86400}`,
			want:   `{"type":"object","minProperties":1,"maxProperties":86400}`,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			tools, err := anthropictool.Tools([]agenttool.Definition{{Name: "t", Description: "d", Parameters: json.RawMessage(tt.params)}})
			require.NoError(t, err)
			require.Len(t, tools, 1)
			wire, err := json.Marshal(tools[0])
			require.NoError(t, err)
			var got struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"input_schema"`
			}
			require.NoError(t, json.Unmarshal(wire, &got))
			assert.Equal(t, "t", got.Name)
			assert.Equal(t, "d", got.Description)
			assert.JSONEq(t, tt.want, string(got.InputSchema))
			// JSONEq compares numbers as float64; the digits must match too.
			var want, have map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(tt.want), &want))
			require.NoError(t, json.Unmarshal(got.InputSchema, &have))
			for k, v := range want {
				assert.JSONEq(t, string(v), string(have[k]), k)
				assert.Equal(t, compact(t, v), compact(t, have[k]), k)
			}
		})
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	out, err := json.Marshal(raw)
	require.NoError(t, err)
	return string(out)
}

func TestToolsSDKFields(t *testing.T) {
	tools, err := anthropictool.Tools([]agenttool.Definition{{Name: "weather", Parameters: json.RawMessage(weatherSchema)}})
	require.NoError(t, err)
	tool := tools[0].OfTool
	require.NotNil(t, tool)
	assert.False(t, tool.Description.Valid(), "an empty description is left out")
	assert.Equal(t, []string{"city"}, tool.InputSchema.Required)
	assert.NotNil(t, tool.InputSchema.Properties)
	assert.Contains(t, tool.InputSchema.ExtraFields, "$defs")
	assert.Contains(t, tool.InputSchema.ExtraFields, "additionalProperties")
	assert.Contains(t, tool.InputSchema.ExtraFields, "description")
}

func TestToolsCopiesParameters(t *testing.T) {
	params := []byte(`{"type":"object","properties":{"a":{"type":"string"}},"$defs":{"x":{"type":"string"}}}`)
	tools, err := anthropictool.Tools([]agenttool.Definition{{Name: "t", Parameters: params}})
	require.NoError(t, err)
	for i := range params {
		params[i] = ' '
	}
	wire, err := json.Marshal(tools[0])
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"t","input_schema":{"type":"object","properties":{"a":{"type":"string"}},"$defs":{"x":{"type":"string"}}}}`, string(wire))
}

func TestToolsRejects(t *testing.T) {
	tests := map[string][]agenttool.Definition{
		"empty name":        {{Name: "", Parameters: json.RawMessage(`{}`)}},
		"bad name":          {{Name: "a b", Parameters: json.RawMessage(`{}`)}},
		"duplicate name":    {{Name: "a", Parameters: json.RawMessage(`{}`)}, {Name: "a", Parameters: json.RawMessage(`{}`)}},
		"no parameters":     {{Name: "a"}},
		"parameters null":   {{Name: "a", Parameters: json.RawMessage(`null`)}},
		"parameters array":  {{Name: "a", Parameters: json.RawMessage(`[]`)}},
		"not JSON":          {{Name: "a", Parameters: json.RawMessage(`{"type":`)}},
		"type string":       {{Name: "a", Parameters: json.RawMessage(`{"type":"string"}`)}},
		"type list":         {{Name: "a", Parameters: json.RawMessage(`{"type":["object","null"]}`)}},
		"required not list": {{Name: "a", Parameters: json.RawMessage(`{"required":"x"}`)}},
	}
	for name, defs := range tests {
		t.Run(name, func(t *testing.T) {
			tools, err := anthropictool.Tools(defs)
			require.ErrorIs(t, err, anthropictool.ErrInvalidDefinition)
			assert.Nil(t, tools)
		})
	}
}

func TestToolsNone(t *testing.T) {
	tools, err := anthropictool.Tools(nil)
	require.NoError(t, err)
	assert.Empty(t, tools)
}
