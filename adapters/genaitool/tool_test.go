package genaitool_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/genaitool"
)

func TestToolDeclarations(t *testing.T) {
	tests := map[string]struct {
		params string
		want   string // parametersJsonSchema on the wire
	}{
		"whole schema":  {params: weatherSchema, want: weatherSchema},
		"no type":       {params: `{"properties":{"q":{"type":"string"}}}`, want: `{"type":"object","properties":{"q":{"type":"string"}}}`},
		"empty schema":  {params: `{}`, want: `{"type":"object"}`},
		"large numbers": {params: `{"type":"object","maxProperties":12345678901234567890123}`, want: `{"type":"object","maxProperties":12345678901234567890123}`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			tool, err := genaitool.Tool([]agenttool.Definition{{Name: "t", Description: "d", Parameters: json.RawMessage(tt.params)}})
			require.NoError(t, err)
			require.Len(t, tool.FunctionDeclarations, 1)
			decl := tool.FunctionDeclarations[0]
			assert.Equal(t, "t", decl.Name)
			assert.Equal(t, "d", decl.Description)
			assert.Nil(t, decl.Parameters, "the OpenAPI subset must stay unset")
			wire, err := json.Marshal(decl)
			require.NoError(t, err)
			var got struct {
				Schema json.RawMessage `json:"parametersJsonSchema"`
			}
			require.NoError(t, json.Unmarshal(wire, &got))
			assert.JSONEq(t, tt.want, string(got.Schema))
			// JSONEq compares numbers as float64; the digits must match too.
			assert.Equal(t, compact(t, tt.want), compact(t, string(got.Schema)))
		})
	}
}

// compact re-encodes a JSON object with its members sorted and its values
// as written, so that two encodings of one schema compare byte for byte.
func compact(t *testing.T, s string) string {
	t.Helper()
	var members map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(s), &members))
	out, err := json.Marshal(members)
	require.NoError(t, err)
	return string(out)
}

func TestToolCopiesParameters(t *testing.T) {
	params := []byte(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	tool, err := genaitool.Tool([]agenttool.Definition{{Name: "t", Parameters: params}})
	require.NoError(t, err)
	for i := range params {
		params[i] = ' '
	}
	wire, err := json.Marshal(tool)
	require.NoError(t, err)
	assert.JSONEq(t, `{"functionDeclarations":[{"name":"t","parametersJsonSchema":{"type":"object","properties":{"a":{"type":"string"}}}}]}`, string(wire))
}

func TestToolRejects(t *testing.T) {
	tests := map[string][]agenttool.Definition{
		"empty name":       {{Name: "", Parameters: json.RawMessage(`{}`)}},
		"bad name":         {{Name: "a.b", Parameters: json.RawMessage(`{}`)}},
		"duplicate name":   {{Name: "a", Parameters: json.RawMessage(`{}`)}, {Name: "a", Parameters: json.RawMessage(`{}`)}},
		"no parameters":    {{Name: "a"}},
		"parameters null":  {{Name: "a", Parameters: json.RawMessage(`null`)}},
		"parameters array": {{Name: "a", Parameters: json.RawMessage(`[]`)}},
		"not JSON":         {{Name: "a", Parameters: json.RawMessage(`{"type":`)}},
		"type string":      {{Name: "a", Parameters: json.RawMessage(`{"type":"string"}`)}},
		"type list":        {{Name: "a", Parameters: json.RawMessage(`{"type":["object","null"]}`)}},
	}
	for name, defs := range tests {
		t.Run(name, func(t *testing.T) {
			tool, err := genaitool.Tool(defs)
			require.ErrorIs(t, err, genaitool.ErrInvalidDefinition)
			assert.Nil(t, tool)
		})
	}
}

func TestToolNone(t *testing.T) {
	tool, err := genaitool.Tool(nil)
	require.NoError(t, err)
	assert.Empty(t, tool.FunctionDeclarations)
}
