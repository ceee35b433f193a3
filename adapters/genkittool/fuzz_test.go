package genkittool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/genkittool"
)

type jsonRunner interface {
	RunJSON(ctx context.Context, input json.RawMessage, cb func(context.Context, json.RawMessage) error) (json.RawMessage, error)
}

// FuzzRunJSON checks that, for any input bytes (Generate passes what the
// model sent, encoded again; Genkit's developer tools pass what a user
// typed), the action answers exactly the text of what the agenttool tool
// answers for those bytes, without a Go error or a panic; and that a parsed
// input given to RunRaw gets the answer for its encoding.
func FuzzRunJSON(f *testing.F) {
	for _, seed := range []string{
		`{"a":2,"b":3}`, `{"a":2.0,"b":-0}`, `{"a":1e3,"b":1}`, `{"a":9007199254740993,"b":0}`,
		`{"a":"2","b":3}`, `{"A":2,"b":3}`, `{"a":null,"b":null}`, `{}`, `[]`, `null`, `"x"`, `7`, ``, `{"a":`,
		`{"a":2,"b":3,"extra":{"deep":[1,{"x":"<&>"}]}}`,
	} {
		f.Add([]byte(seed))
	}
	add := newAdd(f)
	tool := newTools(f, add)[0]
	action, ok := tool.(jsonRunner)
	require.True(f, ok)
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, err := action.RunJSON(context.Background(), data, nil)
		require.NoError(t, err)
		var got struct{ Output *string }
		require.NoError(t, json.Unmarshal(raw, &got))
		require.NotNil(t, got.Output, "the output is always there: %s", raw)
		want, err := add.Execute(context.Background(), data)
		require.NoError(t, err)
		assert.Equal(t, text(want), *got.Output)

		var input any
		if json.Unmarshal(data, &input) != nil {
			return
		}
		out, err := tool.RunRaw(context.Background(), input)
		require.NoError(t, err)
		again, err := json.Marshal(input)
		require.NoError(t, err)
		want, err = add.Execute(context.Background(), again)
		require.NoError(t, err)
		assert.Equal(t, text(want), out)
	})
}

// text is what the model reads for res.
func text(res agenttool.ToolResult) string {
	if res.Success {
		return res.Output
	}
	return genkittool.FailurePrefix + res.Error
}
