package agenttool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
)

func TestToolResultJSON(t *testing.T) {
	assert.JSONEq(t, `{"success":true,"output":"done"}`, string(mustJSON(t, agenttool.OK("done"))))
	assert.JSONEq(t, `{"success":false,"output":"","error":"bad 7"}`, string(mustJSON(t, agenttool.Failf("bad %d", 7))))
}

func TestIsConcurrencySafe(t *testing.T) {
	safe := stub("safe")
	safe.Safe = true
	assert.True(t, agenttool.IsConcurrencySafe(safe))
	assert.False(t, agenttool.IsConcurrencySafe(stub("unsafe")), "FuncTool is unsafe unless Safe is set")
	assert.False(t, agenttool.IsConcurrencySafe(agenttool.SleepTool{}), "not implementing the interface means unsafe")
	assert.False(t, agenttool.IsConcurrencySafe(nil))
}

func TestFuncTool(t *testing.T) {
	var got json.RawMessage
	tool := &agenttool.FuncTool{
		ToolName:        "echo",
		ToolDescription: "echoes",
		Schema:          json.RawMessage(`{"type":"object"}`),
		Fn: func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			got = args
			return agenttool.OK(string(args)), nil
		},
	}
	assert.Equal(t, "echo", tool.Name())
	assert.Equal(t, "echoes", tool.Description())
	assert.JSONEq(t, `{"type":"object"}`, string(tool.Parameters()))
	res, err := tool.Execute(context.Background(), json.RawMessage(`{"x":1}`))
	require.NoError(t, err)
	assert.Equal(t, agenttool.OK(`{"x":1}`), res)
	assert.JSONEq(t, `{"x":1}`, string(got))

	res, err = (&agenttool.FuncTool{ToolName: "empty"}).Execute(context.Background(), nil)
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Contains(t, res.Error, `"empty" has no implementation`)
}
