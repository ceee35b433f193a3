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

// toolUseReply asks for two calls as the Messages API reference shows a
// tool_use response: sleep with good arguments, weather with days out of
// range. The sleep input keeps its spaces, so that a decode and re-encode
// would show.
const toolUseReply = `{
	"id": "msg_01Aq9w938a90dw8q",
	"type": "message",
	"role": "assistant",
	"model": "claude-sonnet-4-5",
	"content": [
		{"type": "text", "text": "I'll wait a moment, then check the forecast."},
		{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "sleep", "input": {"seconds": 0}},
		{"type": "tool_use", "id": "toolu_01B23r01rx01mr028946mr0", "name": "weather", "input": {"city": "Oslo", "days": 99}}
	],
	"stop_reason": "tool_use",
	"stop_sequence": null,
	"usage": {"input_tokens": 472, "output_tokens": 89}
}`

const finalReply = `{
	"id": "msg_02Bq0x049b01ex9r",
	"type": "message",
	"role": "assistant",
	"model": "claude-sonnet-4-5",
	"content": [{"type": "text", "text": "I waited; the forecast needs fewer days."}],
	"stop_reason": "end_turn",
	"stop_sequence": null,
	"usage": {"input_tokens": 620, "output_tokens": 12}
}`

// TestLoop runs a whole agent loop through the real SDK client: the tools
// go out whole, the model's two calls run in a Turn, both results come back
// in one user message, and the loop ends on the model's text.
func TestLoop(t *testing.T) {
	reg := newRegistry(t)
	fake := newFakeClaude(t, toolUseReply, finalReply)
	client := fake.client()
	ctx := context.Background()

	tools, err := anthropictool.Tools(reg.Definitions())
	require.NoError(t, err)
	turn := agenttool.NewTurn(ctx, reg, nil)
	defer turn.Close()

	params := anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 1024,
		Tools:     tools,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Wait, then forecast Oslo."))},
	}
	var batches [][]agenttool.ToolBlock
	var answer string
	for range 3 {
		msg, err := client.Messages.New(ctx, params)
		require.NoError(t, err)
		calls := anthropictool.Calls(msg)
		if len(calls) == 0 {
			answer = msg.Content[0].Text
			break
		}
		blocks, err := turn.Run(calls)
		require.NoError(t, err)
		batches = append(batches, blocks)
		params.Messages = append(params.Messages, msg.ToParam(), anthropictool.Results(blocks))
	}

	requests, problems := fake.bodies()
	assert.Empty(t, problems)
	require.Len(t, requests, 2)
	assert.Equal(t, "I waited; the forecast needs fewer days.", answer)

	// Request 1: every tool with its name, description and whole schema.
	var first struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(requests[0], &first))
	defs := reg.Definitions()
	require.Len(t, first.Tools, len(defs))
	for i, def := range defs {
		assert.Equal(t, def.Name, first.Tools[i].Name)
		assert.Equal(t, def.Description, first.Tools[i].Description)
		assert.JSONEq(t, string(def.Parameters), string(first.Tools[i].InputSchema), def.Name)
	}
	assert.JSONEq(t, weatherSchema, string(first.Tools[1].InputSchema))
	assert.Contains(t, string(first.Tools[0].InputSchema), `"maximum":86400`)

	// The Turn ran the model's calls with the model's bytes.
	require.Len(t, batches, 1)
	blocks := batches[0]
	require.Len(t, blocks, 2)
	assert.Equal(t, `{"seconds": 0}`, string(blocks[0].Call.Args))
	assert.Equal(t, agenttool.StatusSucceeded, blocks[0].Status)
	assert.Equal(t, agenttool.StatusFailed, blocks[1].Status)
	assert.Contains(t, blocks[1].Result.Error, `"days"`)

	// Request 2: the assistant message unchanged, then one user message
	// answering both tool_use blocks, in order, with the error flagged.
	var second struct {
		Messages []json.RawMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(requests[1], &second))
	require.Len(t, second.Messages, 3)
	assert.JSONEq(t, `{"role": "assistant", "content": [
		{"type": "text", "text": "I'll wait a moment, then check the forecast."},
		{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "sleep", "input": {"seconds": 0}},
		{"type": "tool_use", "id": "toolu_01B23r01rx01mr028946mr0", "name": "weather", "input": {"city": "Oslo", "days": 99}}
	]}`, string(second.Messages[1]))
	want, err := json.Marshal(map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9", "is_error": false,
			"content": []any{map[string]any{"type": "text", "text": "Slept for 0 second(s)."}}},
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_01B23r01rx01mr028946mr0", "is_error": true,
			"content": []any{map[string]any{"type": "text", "text": blocks[1].Result.Error}}},
	}})
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(second.Messages[2]))
}
