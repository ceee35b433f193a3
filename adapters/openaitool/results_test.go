package openaitool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/openaitool"
)

// The one mapping of statuses, as the package doc's table gives it, for
// both APIs.
func TestResultsStatusMapping(t *testing.T) {
	tests := []struct {
		status agenttool.ToolStatus
		result agenttool.ToolResult
		want   string
	}{
		{agenttool.StatusSucceeded, agenttool.OK("Slept for 0 second(s)."), "Slept for 0 second(s)."},
		{agenttool.StatusSucceeded, agenttool.OK(""), ""},
		{agenttool.StatusFailed, agenttool.Failf(`"city" is required`), `error: "city" is required`},
		{agenttool.StatusCancelled, agenttool.Failf("cancelled: the turn was closed"), "error: cancelled: the turn was closed"},
		{agenttool.StatusFailed, agenttool.ToolResult{}, "error: the call failed without a message"},
		{agenttool.StatusCancelled, agenttool.ToolResult{}, "error: the call was cancelled"},
		{agenttool.StatusPending, agenttool.ToolResult{}, "error: the call is still pending"},
		{agenttool.StatusRunning, agenttool.ToolResult{}, "error: the call is still running"},
		// The status decides, not the result's own fields.
		{agenttool.StatusSucceeded, agenttool.ToolResult{Output: "out", Error: "ignored"}, "out"},
	}
	blocks := make([]agenttool.ToolBlock, len(tests))
	for i, tt := range tests {
		blocks[i] = agenttool.ToolBlock{Call: agenttool.ToolCall{ID: "call_" + tt.status.String(), Name: "weather"}, Status: tt.status, Result: tt.result}
	}
	chat := openaitool.ChatResults(blocks)
	resp := openaitool.ResponsesResults(blocks)
	require.Len(t, chat, len(tests))
	require.Len(t, resp, len(tests))
	for i, tt := range tests {
		t.Run(tt.status.String(), func(t *testing.T) {
			require.NotNil(t, chat[i].OfTool)
			assert.Equal(t, blocks[i].Call.ID, chat[i].OfTool.ToolCallID)
			assert.Equal(t, tt.want, chat[i].OfTool.Content.OfString.Value)

			require.NotNil(t, resp[i].OfFunctionCallOutput)
			assert.Equal(t, blocks[i].Call.ID, resp[i].OfFunctionCallOutput.CallID.Value)
			assert.Equal(t, tt.want, resp[i].OfFunctionCallOutput.Output.OfString.Value)
		})
	}
}

// The wire shape of the results, as the API references show them.
func TestResultsWire(t *testing.T) {
	blocks := []agenttool.ToolBlock{
		{Call: agenttool.ToolCall{ID: "call_1", Name: "sleep"}, Status: agenttool.StatusSucceeded, Result: agenttool.OK("Slept for 0 second(s).")},
		{Call: agenttool.ToolCall{ID: "call_2", Name: "custom:sql"}, Status: agenttool.StatusFailed, Result: agenttool.Failf("unknown tool")},
	}
	got, err := json.Marshal(openaitool.ChatResults(blocks))
	require.NoError(t, err)
	assert.JSONEq(t, `[{"role":"tool","tool_call_id":"call_1","content":"Slept for 0 second(s)."},`+
		`{"role":"tool","tool_call_id":"call_2","content":"error: unknown tool"}]`, string(got))
	got, err = json.Marshal(openaitool.ResponsesResults(blocks))
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"function_call_output","call_id":"call_1","output":"Slept for 0 second(s)."},`+
		`{"type":"custom_tool_call_output","call_id":"call_2","output":"error: unknown tool"}]`, string(got))
}

// A turn that ends mid-batch still answers every call, in call order.
func TestResultsOfCancelledCalls(t *testing.T) {
	mock := clock.NewMock()
	reg := newRegistry(t, mock)
	var turn *agenttool.Turn
	turn = agenttool.NewTurn(context.Background(), reg, &agenttool.TurnOptions{
		Clock: mock,
		OnSnapshot: func(s agenttool.Snapshot) {
			if !s.Final && s.Blocks[0].Status == agenttool.StatusRunning {
				turn.Close() // the sleep waits on the mock clock, which never moves
			}
		},
	})
	defer turn.Close()
	blocks, err := turn.Run([]agenttool.ToolCall{
		{ID: "call_1", Name: "sleep", Args: json.RawMessage(`{"seconds":60}`)},
		{ID: "call_2", Name: "weather", Args: json.RawMessage(`{"city":"Oslo"}`)},
	})
	require.ErrorIs(t, err, agenttool.ErrTurnEnded)
	require.Len(t, blocks, 2)

	chat := openaitool.ChatResults(blocks)
	resp := openaitool.ResponsesResults(blocks)
	for i, id := range []string{"call_1", "call_2"} {
		assert.Equal(t, agenttool.StatusCancelled, blocks[i].Status)
		require.NotEmpty(t, blocks[i].Result.Error)
		want := "error: " + blocks[i].Result.Error
		assert.Equal(t, id, chat[i].OfTool.ToolCallID)
		assert.Equal(t, want, chat[i].OfTool.Content.OfString.Value)
		assert.Equal(t, id, resp[i].OfFunctionCallOutput.CallID.Value)
		assert.Equal(t, want, resp[i].OfFunctionCallOutput.Output.OfString.Value)
	}
}
