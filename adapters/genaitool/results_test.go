package genaitool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/genaitool"
)

func TestResultsStatusMapping(t *testing.T) {
	tests := map[string]struct {
		block agenttool.ToolBlock
		want  string // the response on the wire
	}{
		"succeeded is the output": {
			block: agenttool.ToolBlock{Status: agenttool.StatusSucceeded, Result: agenttool.ToolResult{Success: true, Output: "done", Error: "ignored"}},
			want:  `{"output":"done"}`,
		},
		"succeeded with no output": {
			block: agenttool.ToolBlock{Status: agenttool.StatusSucceeded, Result: agenttool.ToolResult{Success: true}},
			want:  `{"output":""}`,
		},
		"failed is the error": {
			block: agenttool.ToolBlock{Status: agenttool.StatusFailed, Result: agenttool.ToolResult{Output: "ignored", Error: "bad days"}},
			want:  `{"error":"bad days"}`,
		},
		"failed without a message": {
			block: agenttool.ToolBlock{Status: agenttool.StatusFailed},
			want:  `{"error":"the tool call failed"}`,
		},
		"cancelled is the error": {
			block: agenttool.ToolBlock{Status: agenttool.StatusCancelled, Result: agenttool.ToolResult{Error: "cancelled: turn closed"}},
			want:  `{"error":"cancelled: turn closed"}`,
		},
		"cancelled without a message": {
			block: agenttool.ToolBlock{Status: agenttool.StatusCancelled},
			want:  `{"error":"the tool call was cancelled"}`,
		},
		"running is an error": {
			block: agenttool.ToolBlock{Status: agenttool.StatusRunning},
			want:  `{"error":"the tool call did not finish (it is running)"}`,
		},
		"pending is an error": {
			block: agenttool.ToolBlock{Status: agenttool.StatusPending},
			want:  `{"error":"the tool call did not finish (it is pending)"}`,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			tt.block.Call = agenttool.ToolCall{ID: "fc_1", Name: "tool", Args: json.RawMessage(`{}`)}
			raw, err := json.Marshal(genaitool.Results([]agenttool.ToolBlock{tt.block}))
			require.NoError(t, err)
			assert.JSONEq(t, `{"role":"user","parts":[{"functionResponse":{"id":"fc_1","name":"tool","response":`+tt.want+`}}]}`, string(raw))
		})
	}
}

func TestResultsIDs(t *testing.T) {
	resp := response(t, parts(`[{"functionCall":{"name":"a","args":{}}},{"functionCall":{"id":"fc_own","name":"b","args":{}}}]`))
	calls := genaitool.Calls(resp)
	require.Len(t, calls, 2)
	blocks := []agenttool.ToolBlock{
		{Call: calls[0], Status: agenttool.StatusSucceeded, Result: agenttool.OK("x")},
		{Call: calls[1], Status: agenttool.StatusSucceeded, Result: agenttool.OK("y")},
		{Call: agenttool.ToolCall{ID: "call-7", Name: "c"}, Status: agenttool.StatusSucceeded, Result: agenttool.OK("z")},
	}
	content := genaitool.Results(blocks)
	require.Len(t, content.Parts, 3)
	assert.Empty(t, content.Parts[0].FunctionResponse.ID, "a made-up id is never sent")
	assert.Equal(t, "fc_own", content.Parts[1].FunctionResponse.ID)
	assert.Equal(t, "call-7", content.Parts[2].FunctionResponse.ID)
	for i, name := range []string{"a", "b", "c"} {
		assert.Equal(t, name, content.Parts[i].FunctionResponse.Name)
	}
}

// TestResultsAnswerCancelledCalls ends a turn in the middle of a batch: the
// running call and the one that never started are cancelled, and Results
// still answers all three calls, in call order.
func TestResultsAnswerCancelledCalls(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hang := &agenttool.FuncTool{ToolName: "hang", ToolDescription: "ends the turn, then waits for it", Schema: json.RawMessage(`{"type":"object"}`),
		Fn: func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
			cancel()
			<-ctx.Done()
			return agenttool.ToolResult{}, ctx.Err()
		}}
	done := &agenttool.FuncTool{ToolName: "done", ToolDescription: "succeeds", Schema: json.RawMessage(`{"type":"object"}`),
		Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { return agenttool.OK("ok"), nil }}
	reg, err := agenttool.NewRegistry(done, hang)
	require.NoError(t, err)
	turn := agenttool.NewTurn(ctx, reg, nil)
	defer turn.Close()

	resp := response(t, parts(`[{"functionCall":{"id":"fc_a","name":"done","args":{}}},`+
		`{"functionCall":{"name":"hang","args":{}}},{"functionCall":{"id":"fc_c","name":"done","args":{}}}]`))
	blocks, err := turn.Run(genaitool.Calls(resp))
	require.ErrorIs(t, err, agenttool.ErrTurnEnded)
	require.Len(t, blocks, 3)
	assert.Equal(t, []agenttool.ToolStatus{agenttool.StatusSucceeded, agenttool.StatusCancelled, agenttool.StatusCancelled},
		[]agenttool.ToolStatus{blocks[0].Status, blocks[1].Status, blocks[2].Status})
	assert.Contains(t, blocks[2].Result.Error, "cancel")

	raw, err := json.Marshal(genaitool.Results(blocks))
	require.NoError(t, err)
	var wire struct {
		Role  string `json:"role"`
		Parts []struct {
			FunctionResponse struct {
				ID       string            `json:"id"`
				Name     string            `json:"name"`
				Response map[string]string `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	}
	require.NoError(t, json.Unmarshal(raw, &wire))
	assert.Equal(t, "user", wire.Role)
	require.Len(t, wire.Parts, 3)
	for i, want := range []struct {
		id, name string
		response map[string]string
	}{
		{"fc_a", "done", map[string]string{"output": "ok"}},
		{"", "hang", map[string]string{"error": blocks[1].Result.Error}},
		{"fc_c", "done", map[string]string{"error": blocks[2].Result.Error}},
	} {
		got := wire.Parts[i].FunctionResponse
		assert.Equal(t, want.id, got.ID, i)
		assert.Equal(t, want.name, got.Name, i)
		assert.Equal(t, want.response, got.Response, i)
	}
	assert.NotContains(t, string(raw), "genaitool-", "a made-up id was sent")
}
