package anthropictool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/anthropictool"
)

// message decodes content blocks the way the SDK decodes a response.
func message(t testing.TB, content string) *anthropic.Message {
	t.Helper()
	var msg anthropic.Message
	err := json.Unmarshal([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",`+
		`"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1},"content":`+content+`}`), &msg)
	require.NoError(t, err)
	return &msg
}

func TestCalls(t *testing.T) {
	tests := map[string]struct {
		content string
		want    []agenttool.ToolCall
	}{
		"text only":  {content: `[{"type":"text","text":"Done."}]`},
		"no content": {content: `[]`},
		"one call, bytes as sent": {
			content: `[{"type":"tool_use","id":"toolu_1","name":"sleep","input":{ "seconds" : 5 }}]`,
			want:    []agenttool.ToolCall{{ID: "toolu_1", Name: "sleep", Args: json.RawMessage(`{ "seconds" : 5 }`)}},
		},
		"calls in content order, around text and thinking": {
			content: `[{"type":"thinking","thinking":"hm","signature":"sig"},
				{"type":"tool_use","id":"toolu_2","name":"b","input":{}},
				{"type":"text","text":"and"},
				{"type":"tool_use","id":"toolu_1","name":"a","input":{"x":[1,2.50,1e3]}}]`,
			want: []agenttool.ToolCall{
				{ID: "toolu_2", Name: "b", Args: json.RawMessage(`{}`)},
				{ID: "toolu_1", Name: "a", Args: json.RawMessage(`{"x":[1,2.50,1e3]}`)},
			},
		},
		"server tools are resolved by the API": {
			content: `[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},
				{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},
				{"type":"redacted_thinking","data":"xyz"}]`,
		},
		"empty name stays empty": {
			content: `[{"type":"tool_use","id":"toolu_1","name":"","input":{}}]`,
			want:    []agenttool.ToolCall{{ID: "toolu_1", Name: "", Args: json.RawMessage(`{}`)}},
		},
		"input not an object": {
			content: `[{"type":"tool_use","id":"toolu_1","name":"sleep","input":"{\"seconds\":"}]`,
			want:    []agenttool.ToolCall{{ID: "toolu_1", Name: "sleep", Args: json.RawMessage(`"{\"seconds\":"`)}},
		},
		"no input": {
			content: `[{"type":"tool_use","id":"toolu_1","name":"sleep"}]`,
			want:    []agenttool.ToolCall{{ID: "toolu_1", Name: "sleep"}},
		},
		"unknown type with an id": {
			content: `[{"type":"future_tool_use","id":"futu_1","name":"sleep","input":{"seconds":0}}]`,
			want: []agenttool.ToolCall{{ID: "futu_1", Name: "content block of unsupported type future_tool_use",
				Args: json.RawMessage(`{"seconds":0}`)}},
		},
		"unknown type without an id is content": {content: `[{"type":"future_text","text":"hello"}]`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tt.want, anthropictool.Calls(message(t, tt.content)))
		})
	}
}

func TestCallsNil(t *testing.T) {
	assert.Nil(t, anthropictool.Calls(nil))
}

func TestCallsCopiesInput(t *testing.T) {
	msg := message(t, `[{"type":"tool_use","id":"toolu_1","name":"sleep","input":{"seconds":0}}]`)
	calls := anthropictool.Calls(msg)
	require.Len(t, calls, 1)
	for i := range msg.Content[0].Input {
		msg.Content[0].Input[i] = ' '
	}
	assert.JSONEq(t, `{"seconds":0}`, string(calls[0].Args))
}

// TestBadCallsFailInTurn shows what the package doc promises: bad input
// from the API is a call, and the Turn fails it with a message the model
// can read, without running a tool that the input names.
func TestBadCallsFailInTurn(t *testing.T) {
	msg := message(t, `[
		{"type":"tool_use","id":"toolu_1","name":"","input":{}},
		{"type":"tool_use","id":"toolu_2","name":"sleep","input":"{\"seconds\":"},
		{"type":"future_tool_use","id":"futu_3","name":"weather","input":{"city":"Oslo"}}
	]`)
	turn := agenttool.NewTurn(context.Background(), newRegistry(t), nil)
	defer turn.Close()
	blocks, err := turn.Run(anthropictool.Calls(msg))
	require.NoError(t, err)
	require.Len(t, blocks, 3)
	wantErrors := []string{
		`unknown tool ""`,
		`"seconds"`,
		`unknown tool "content block of unsupported type future_tool_use"`,
	}
	for i, b := range blocks {
		assert.Equal(t, agenttool.StatusFailed, b.Status, b.Call.ID)
		assert.Contains(t, b.Result.Error, wantErrors[i], b.Call.ID)
	}

	var wire struct {
		Content []struct {
			ToolUseID string `json:"tool_use_id"`
			IsError   bool   `json:"is_error"`
		} `json:"content"`
	}
	raw, err := json.Marshal(anthropictool.Results(blocks))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &wire))
	require.Len(t, wire.Content, 3)
	for i, id := range []string{"toolu_1", "toolu_2", "futu_3"} {
		assert.Equal(t, id, wire.Content[i].ToolUseID)
		assert.True(t, wire.Content[i].IsError, id)
	}
}
