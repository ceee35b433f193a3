package genkittool_test

import (
	"bytes"
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
// typed), the action answers, without a Go error or a panic, exactly the
// text of what its tool answers for those bytes, and a parsed input given to
// RunRaw the answer for its encoding: the echo tool shows what it received.
func FuzzRunJSON(f *testing.F) {
	for _, seed := range []string{
		`{"a":2,"b":3}`, `{"a":2.0,"b":-0}`, `{"a":1e3,"b":1}`, `{"a":9007199254740993,"b":0}`,
		`{"a":"2","b":3}`, `{"A":2,"b":3}`, `{"a":null,"b":null}`, `{}`, `[]`, `null`, `"x"`, `7`, ``, `{"a":`,
		`{"a":2,"b":3,"extra":{"deep":[1,{"x":"<&>"}]}}`,
	} {
		f.Add([]byte(seed))
	}
	echo := newEcho(f)
	tool := newTools(f, echo)[0]
	action, ok := tool.(jsonRunner)
	require.True(f, ok)
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, err := action.RunJSON(context.Background(), data, nil)
		require.NoError(t, err)
		var got struct{ Output *string }
		require.NoError(t, json.Unmarshal(raw, &got))
		require.NotNil(t, got.Output, "the output is always there: %s", raw)
		want, err := echo.Execute(context.Background(), data)
		require.NoError(t, err)
		assert.Equal(t, throughJSON(t, text(want)), *got.Output)

		var input any
		if json.Unmarshal(data, &input) != nil {
			return
		}
		out, err := tool.RunRaw(context.Background(), input)
		require.NoError(t, err)
		again, err := json.Marshal(input)
		require.NoError(t, err)
		want, err = echo.Execute(context.Background(), again)
		require.NoError(t, err)
		assert.Equal(t, text(want), out)
	})
}

// throughJSON returns s as a JSON string carries it, with U+FFFD for each
// byte that is not valid UTF-8.
func throughJSON(t *testing.T, s string) string {
	t.Helper()
	raw, err := json.Marshal(s)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &s))
	return s
}

// text is what the model reads for res.
func text(res agenttool.ToolResult) string {
	if res.Success {
		return res.Output
	}
	return genkittool.FailurePrefix + res.Error
}

// newEcho returns a tool that answers the arguments it received when they
// are a JSON object and fails naming them otherwise: an answer that shows
// what reached the tool, the same on every call.
func newEcho(t testing.TB) agenttool.Tool {
	t.Helper()
	return &agenttool.FuncTool{
		ToolName: "echo", ToolDescription: "Answer the arguments.", Schema: json.RawMessage(`{"type":"object"}`),
		Fn: func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			if trimmed := bytes.TrimSpace(args); !json.Valid(trimmed) || len(trimmed) == 0 || trimmed[0] != '{' {
				return agenttool.Failf("arguments %q are not a JSON object", args), nil
			}
			return agenttool.OK(string(args)), nil
		},
	}
}
