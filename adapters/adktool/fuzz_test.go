package adktool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
)

// FuzzRun checks that, for any arguments a model client can parse, a tool
// answers exactly what the agenttool tool answers for the arguments encoded
// again, in ADK's shapes, without a Go error or a panic.
func FuzzRun(f *testing.F) {
	for _, seed := range []string{
		`{"a":2,"b":3}`, `{"a":2.0,"b":-0}`, `{"a":1e3,"b":1}`, `{"a":9007199254740993,"b":0}`,
		`{"a":"2","b":3}`, `{"A":2,"b":3}`, `{"a":null,"b":null}`, `{}`, `[]`, `null`, `"x"`, `7`,
		`{"a":2,"b":3,"extra":{"deep":[1,{"x":"<&>"}]}}`,
	} {
		f.Add([]byte(seed))
	}
	add := newAdd(f)
	run := runnable(f, newTools(f, add)[0])
	f.Fuzz(func(t *testing.T, data []byte) {
		var args any
		if json.Unmarshal(data, &args) != nil {
			t.Skip("a model client hands ADK only parsed JSON")
		}
		got, err := run.Run(callCtx{ctx: context.Background(), id: "fuzz"}, args)
		require.NoError(t, err)
		raw, err := json.Marshal(args)
		require.NoError(t, err)
		want, err := add.Execute(context.Background(), raw)
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
