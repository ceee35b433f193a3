package anthropictool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/anthropictool"
)

func TestResultsStatusMapping(t *testing.T) {
	tests := map[string]struct {
		block agenttool.ToolBlock
		want  string // the tool_result on the wire
	}{
		"succeeded is the output": {
			block: agenttool.ToolBlock{Status: agenttool.StatusSucceeded, Result: agenttool.ToolResult{Success: true, Output: "done", Error: "ignored"}},
			want:  `{"type":"tool_result","tool_use_id":"id","is_error":false,"content":[{"type":"text","text":"done"}]}`,
		},
		"succeeded with no output has no content": {
			block: agenttool.ToolBlock{Status: agenttool.StatusSucceeded, Result: agenttool.ToolResult{Success: true}},
			want:  `{"type":"tool_result","tool_use_id":"id","is_error":false}`,
		},
		"failed is the error": {
			block: agenttool.ToolBlock{Status: agenttool.StatusFailed, Result: agenttool.ToolResult{Output: "ignored", Error: "bad days"}},
			want:  `{"type":"tool_result","tool_use_id":"id","is_error":true,"content":[{"type":"text","text":"bad days"}]}`,
		},
		"failed without a message": {
			block: agenttool.ToolBlock{Status: agenttool.StatusFailed},
			want:  `{"type":"tool_result","tool_use_id":"id","is_error":true,"content":[{"type":"text","text":"the tool call failed"}]}`,
		},
		"cancelled is the error": {
			block: agenttool.ToolBlock{Status: agenttool.StatusCancelled, Result: agenttool.ToolResult{Error: "cancelled: turn closed"}},
			want:  `{"type":"tool_result","tool_use_id":"id","is_error":true,"content":[{"type":"text","text":"cancelled: turn closed"}]}`,
		},
		"cancelled without a message": {
			block: agenttool.ToolBlock{Status: agenttool.StatusCancelled},
			want:  `{"type":"tool_result","tool_use_id":"id","is_error":true,"content":[{"type":"text","text":"the tool call was cancelled"}]}`,
		},
		"running is an error": {
			block: agenttool.ToolBlock{Status: agenttool.StatusRunning},
			want:  `{"type":"tool_result","tool_use_id":"id","is_error":true,"content":[{"type":"text","text":"the tool call did not finish (it is running)"}]}`,
		},
		"pending is an error": {
			block: agenttool.ToolBlock{Status: agenttool.StatusPending},
			want:  `{"type":"tool_result","tool_use_id":"id","is_error":true,"content":[{"type":"text","text":"the tool call did not finish (it is pending)"}]}`,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			tt.block.Call = agenttool.ToolCall{ID: "id", Name: "tool", Args: json.RawMessage(`{}`)}
			raw, err := json.Marshal(anthropictool.Results([]agenttool.ToolBlock{tt.block}))
			require.NoError(t, err)
			assert.JSONEq(t, `{"role":"user","content":[`+tt.want+`]}`, string(raw))
		})
	}
}

// TestResultsAnswerCancelledCalls ends a turn in the middle of a batch: the
// running call and the one that never started are cancelled, and Results
// still answers all three tool_use ids, in call order.
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

	msg := message(t, `[
		{"type":"tool_use","id":"toolu_a","name":"done","input":{}},
		{"type":"tool_use","id":"toolu_b","name":"hang","input":{}},
		{"type":"tool_use","id":"toolu_c","name":"done","input":{}}
	]`)
	blocks, err := turn.Run(anthropictool.Calls(msg))
	require.ErrorIs(t, err, agenttool.ErrTurnEnded)
	require.Len(t, blocks, 3)
	assert.Equal(t, []agenttool.ToolStatus{agenttool.StatusSucceeded, agenttool.StatusCancelled, agenttool.StatusCancelled},
		[]agenttool.ToolStatus{blocks[0].Status, blocks[1].Status, blocks[2].Status})

	raw, err := json.Marshal(anthropictool.Results(blocks))
	require.NoError(t, err)
	var wire struct {
		Role    string `json:"role"`
		Content []struct {
			Type      string `json:"type"`
			ToolUseID string `json:"tool_use_id"`
			IsError   bool   `json:"is_error"`
			Content   []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"content"`
	}
	require.NoError(t, json.Unmarshal(raw, &wire))
	assert.Equal(t, "user", wire.Role)
	require.Len(t, wire.Content, 3)
	for i, want := range []struct {
		id      string
		isError bool
		text    string
	}{{"toolu_a", false, "ok"}, {"toolu_b", true, blocks[1].Result.Error}, {"toolu_c", true, blocks[2].Result.Error}} {
		got := wire.Content[i]
		assert.Equal(t, "tool_result", got.Type)
		assert.Equal(t, want.id, got.ToolUseID)
		assert.Equal(t, want.isError, got.IsError, want.id)
		require.Len(t, got.Content, 1, want.id)
		assert.Equal(t, want.text, got.Content[0].Text, want.id)
	}
	assert.Contains(t, blocks[2].Result.Error, "cancel")
}
