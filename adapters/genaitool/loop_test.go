package genaitool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/genaitool"
)

// modelContent is the model's turn as the generateContent reference shows
// it: a thinking model's signature on the first function call, a call
// without an id (as the Gemini API sends them) with good arguments, and a
// call with an id whose days are out of range.
const modelContent = `{
	"role": "model",
	"parts": [
		{"functionCall": {"name": "sleep", "args": {"seconds": 0}}, "thoughtSignature": "c2lnbmF0dXJlLW9mLXRob3VnaHQtMQ=="},
		{"functionCall": {"id": "fc_weather_2", "name": "weather", "args": {"city": "Oslo", "days": 99}}}
	]
}`

const callsReply = `{
	"candidates": [{"content": ` + modelContent + `, "finishReason": "STOP", "index": 0}],
	"usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 30, "totalTokenCount": 150},
	"modelVersion": "gemini-2.5-flash",
	"responseId": "resp-1"
}`

const finalReply = `{
	"candidates": [{"content": {"role": "model", "parts": [{"text": "I waited; the forecast needs fewer days."}]},
		"finishReason": "STOP", "index": 0}],
	"usageMetadata": {"promptTokenCount": 200, "candidatesTokenCount": 10, "totalTokenCount": 210},
	"modelVersion": "gemini-2.5-flash",
	"responseId": "resp-2"
}`

// TestLoop runs a whole agent loop through the real SDK client: the tools
// go out as JSON Schema, the model's two calls run in a Turn, the model's
// content goes back with its signature and both responses follow in one
// content, and the loop ends on the model's text.
func TestLoop(t *testing.T) {
	reg := newRegistry(t)
	fake := newFakeGemini(t, callsReply, finalReply)
	client := fake.client(t)
	ctx := context.Background()

	tool, err := genaitool.Tool(reg.Definitions())
	require.NoError(t, err)
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{tool}}
	turn := agenttool.NewTurn(ctx, reg, nil)
	defer turn.Close()

	contents := []*genai.Content{genai.NewContentFromText("Wait, then forecast Oslo.", genai.RoleUser)}
	var batches [][]agenttool.ToolBlock
	var answer string
	for range 3 {
		resp, err := client.Models.GenerateContent(ctx, model, contents, config)
		require.NoError(t, err)
		calls := genaitool.Calls(resp)
		if len(calls) == 0 {
			answer = resp.Text()
			break
		}
		blocks, err := turn.Run(calls)
		require.NoError(t, err)
		batches = append(batches, blocks)
		contents = append(contents, resp.Candidates[0].Content, genaitool.Results(blocks))
	}

	requests, problems := fake.bodies()
	assert.Empty(t, problems)
	require.Len(t, requests, 2)
	assert.Equal(t, "I waited; the forecast needs fewer days.", answer)

	// Request 1: every function with its name, description and whole
	// schema as parametersJsonSchema, never the OpenAPI "parameters".
	var first struct {
		Tools []struct {
			FunctionDeclarations []map[string]json.RawMessage `json:"functionDeclarations"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(requests[0], &first))
	require.Len(t, first.Tools, 1)
	decls := first.Tools[0].FunctionDeclarations
	defs := reg.Definitions()
	require.Len(t, decls, len(defs))
	for i, def := range defs {
		assert.JSONEq(t, quote(t, def.Name), string(decls[i]["name"]))
		assert.JSONEq(t, quote(t, def.Description), string(decls[i]["description"]))
		assert.JSONEq(t, string(def.Parameters), string(decls[i]["parametersJsonSchema"]), def.Name)
		assert.NotContains(t, decls[i], "parameters")
	}
	assert.JSONEq(t, weatherSchema, string(decls[1]["parametersJsonSchema"]))
	assert.Contains(t, string(decls[0]["parametersJsonSchema"]), `"maximum":86400`)

	// The Turn ran both calls: the one without an id got a made-up id.
	require.Len(t, batches, 1)
	blocks := batches[0]
	require.Len(t, blocks, 2)
	assert.True(t, strings.HasPrefix(blocks[0].Call.ID, "genaitool-"), blocks[0].Call.ID)
	assert.Equal(t, "fc_weather_2", blocks[1].Call.ID)
	assert.Equal(t, `{"seconds":0}`, string(blocks[0].Call.Args))
	assert.Equal(t, agenttool.StatusSucceeded, blocks[0].Status)
	assert.Equal(t, agenttool.StatusFailed, blocks[1].Status)
	assert.Contains(t, blocks[1].Result.Error, `"days"`)

	// Request 2: the model's content unchanged, signature included, then
	// one content answering both calls in order: no id where the model
	// gave none, the model's id where it gave one, the error under "error".
	var second struct {
		Contents []json.RawMessage `json:"contents"`
	}
	require.NoError(t, json.Unmarshal(requests[1], &second))
	require.Len(t, second.Contents, 3)
	assert.JSONEq(t, modelContent, string(second.Contents[1]))
	want, err := json.Marshal(map[string]any{"role": "user", "parts": []any{
		map[string]any{"functionResponse": map[string]any{"name": "sleep",
			"response": map[string]any{"output": "Slept for 0 second(s)."}}},
		map[string]any{"functionResponse": map[string]any{"id": "fc_weather_2", "name": "weather",
			"response": map[string]any{"error": blocks[1].Result.Error}}},
	}})
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(second.Contents[2]))
	assert.NotContains(t, string(requests[1]), "genaitool-")
}

func quote(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}
