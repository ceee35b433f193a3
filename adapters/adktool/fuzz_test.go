package adktool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
)

// FuzzRun checks that, for any arguments a model client can parse, the ADK
// tool answers, in ADK's shapes and without a Go error or a panic, exactly
// what its tool answers when called directly with the arguments encoded
// once: the echo tool shows that this encoding is what it received.
func FuzzRun(f *testing.F) {
	for _, seed := range []string{
		`{"a":2,"b":3}`, `{"a":2.0,"b":-0}`, `{"a":1e3,"b":1}`, `{"a":9007199254740993,"b":0}`,
		`{"a":"2","b":3}`, `{"A":2,"b":3}`, `{"a":null,"b":null}`, `{}`, `[]`, `null`, `"x"`, `7`,
		`{"a":2,"b":3,"extra":{"deep":[1,{"x":"<&>"}]}}`,
	} {
		f.Add([]byte(seed))
	}
	echo := newEcho(f)
	run := runnable(f, newTools(f, echo)[0])
	f.Fuzz(func(t *testing.T, data []byte) {
		var args any
		if json.Unmarshal(data, &args) != nil {
			t.Skip("a model client hands ADK only parsed JSON")
		}
		got, err := run.Run(callCtx{ctx: context.Background(), id: "fuzz"}, args)
		require.NoError(t, err)
		raw, err := json.Marshal(args)
		require.NoError(t, err)
		want, err := echo.Execute(context.Background(), raw)
		require.NoError(t, err)
		assert.Equal(t, shape(want), got)
	})
}

// shape is the function response ADK's model reads for res.
func shape(res agenttool.ToolResult) map[string]any {
	if res.Success {
		return map[string]any{"result": res.Output}
	}
	return map[string]any{"error": res.Error}
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
