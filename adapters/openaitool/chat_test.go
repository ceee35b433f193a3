package openaitool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/openaitool"
)

// chatCompletion is a chat.completion object as the API reference shows it,
// with one choice holding message.
func chatCompletion(id, message, finish string) string {
	return `{"id":"` + id + `","object":"chat.completion","created":1741570283,"model":"gpt-5.5-2026-04-23",` +
		`"choices":[{"index":0,"message":` + message + `,"logprobs":null,"finish_reason":"` + finish + `"}],` +
		`"usage":{"prompt_tokens":82,"completion_tokens":17,"total_tokens":99,` +
		`"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},` +
		`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},` +
		`"service_tier":"default","system_fingerprint":"fp_b42fd3f5b1"}`
}

// assistantCalls is an assistant message asking for function calls, each
// given as id, name and the arguments text.
func assistantCalls(calls ...[3]string) string {
	parts := make([]string, len(calls))
	for i, c := range calls {
		args, _ := json.Marshal(c[2])
		parts[i] = `{"id":"` + c[0] + `","type":"function","function":{"name":"` + c[1] + `","arguments":` + string(args) + `}}`
	}
	return `{"role":"assistant","content":null,"tool_calls":[` + strings.Join(parts, ",") + `],"refusal":null,"annotations":[]}`
}

const assistantText = `{"role":"assistant","content":"Done.","refusal":null,"annotations":[]}`

// wireMessage is a message of a Chat Completions request as it went out.
type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// sleepTool returns the definition parts of sleep as JSON, for the
// expected requests, and its schema in strict form.
func sleepTool(t *testing.T) (description, params, strictParams string) {
	t.Helper()
	desc, err := json.Marshal(agenttool.SleepTool{}.Description())
	require.NoError(t, err)
	p := string(agenttool.SleepTool{}.Parameters())
	require.True(t, strings.HasSuffix(p, "}"))
	return string(desc), p, strings.TrimSuffix(p, "}") + `,"additionalProperties":false}`
}

func TestChatLoop(t *testing.T) {
	sleepDesc, sleepParams, strictSleepParams := sleepTool(t)
	tests := []struct {
		name        string
		opts        *openaitool.Options
		wantTools   string
		weatherArgs string
		// wantWeather is the weather block's status and, for a success, its content.
		wantWeather agenttool.ToolStatus
		wantContent string
	}{{
		name: "arguments that are not JSON",
		wantTools: `[{"type":"function","function":{"name":"sleep","description":` + sleepDesc + `,"parameters":` + sleepParams + `}},` +
			`{"type":"function","function":{"name":"weather","description":"Forecast for a city.","parameters":` + weatherSchema + `}}]`,
		weatherArgs: `{"city": "Paris", "days": 3`,
		wantWeather: agenttool.StatusFailed,
	}, {
		name: "strict, with null for the optional member",
		opts: &openaitool.Options{Strict: true},
		wantTools: `[{"type":"function","function":{"name":"sleep","description":` + sleepDesc + `,"strict":true,"parameters":` + strictSleepParams + `}},` +
			`{"type":"function","function":{"name":"weather","description":"Forecast for a city.","strict":true,"parameters":` + strictWeatherSchema + `}}]`,
		weatherArgs: `{"city":"Paris","days":null}`,
		wantWeather: agenttool.StatusSucceeded,
		wantContent: "Paris: sunny for 1 day(s)",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{path: "/chat/completions", replies: []string{
				chatCompletion("chatcmpl-1", assistantCalls(
					[3]string{"call_sleep", "sleep", `{"seconds":0}`},
					[3]string{"call_weather", "weather", tt.weatherArgs}), "tool_calls"),
				chatCompletion("chatcmpl-2", assistantText, "stop"),
			}}
			client := serve(t, api)
			mock := clock.NewMock()
			reg := newRegistry(t, mock)
			ctx := context.Background()

			tools, err := openaitool.ChatTools(reg.Definitions(), tt.opts)
			require.NoError(t, err)
			params := openai.ChatCompletionNewParams{
				Model:    openai.ChatModelGPT5_5,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Wait, then the weather in Paris.")},
				Tools:    tools,
			}
			completion, err := client.Chat.Completions.New(ctx, params)
			require.NoError(t, err)

			var req1 struct {
				Tools json.RawMessage `json:"tools"`
			}
			body1 := api.body(t, 0)
			require.NoError(t, json.Unmarshal(body1, &req1))
			assert.JSONEq(t, tt.wantTools, string(req1.Tools))
			assert.Contains(t, string(body1), `"maximum":86400`, "a number in a schema must stay a JSON number")

			msg := completion.Choices[0].Message
			turn := agenttool.NewTurn(ctx, reg, &agenttool.TurnOptions{Clock: mock})
			defer turn.Close()
			blocks, err := turn.Run(openaitool.ChatCalls(msg))
			require.NoError(t, err)
			require.Len(t, blocks, 2)
			assert.Equal(t, agenttool.StatusSucceeded, blocks[0].Status)
			assert.Equal(t, "Slept for 0 second(s).", blocks[0].Result.Output)
			assert.Equal(t, tt.wantWeather, blocks[1].Status, "weather: %+v", blocks[1].Result)
			assert.Equal(t, tt.weatherArgs, string(blocks[1].Call.Args), "arguments must reach the tool as sent")

			params.Messages = append(append(params.Messages, msg.ToParam()), openaitool.ChatResults(blocks)...)
			final, err := client.Chat.Completions.New(ctx, params)
			require.NoError(t, err)
			assert.Equal(t, "Done.", final.Choices[0].Message.Content)
			assert.Empty(t, openaitool.ChatCalls(final.Choices[0].Message))

			var req2 struct {
				Messages []wireMessage   `json:"messages"`
				Tools    json.RawMessage `json:"tools"`
			}
			require.NoError(t, json.Unmarshal(api.body(t, 1), &req2))
			assert.JSONEq(t, tt.wantTools, string(req2.Tools))
			require.Len(t, req2.Messages, 4)
			assistant := req2.Messages[1]
			assert.Equal(t, "assistant", assistant.Role)
			require.Len(t, assistant.ToolCalls, 2)
			assert.Equal(t, tt.weatherArgs, assistant.ToolCalls[1].Function.Arguments)

			wantWeather := tt.wantContent
			if tt.wantWeather != agenttool.StatusSucceeded {
				wantWeather = "error: " + blocks[1].Result.Error
				assert.True(t, strings.HasPrefix(wantWeather, "error: arguments are not valid JSON"), wantWeather)
			}
			for i, want := range []struct{ id, content string }{
				{"call_sleep", "Slept for 0 second(s)."},
				{"call_weather", wantWeather},
			} {
				m := req2.Messages[2+i]
				assert.Equal(t, "tool", m.Role)
				assert.Equal(t, want.id, m.ToolCallID)
				var content string
				require.NoError(t, json.Unmarshal(m.Content, &content), "content %s", m.Content)
				assert.Equal(t, want.content, content)
			}
		})
	}
}

func TestChatCallsOfOtherKinds(t *testing.T) {
	var msg openai.ChatCompletionMessage
	require.NoError(t, json.Unmarshal([]byte(`{"role":"assistant","content":null,"refusal":null,"tool_calls":[`+
		`{"id":"call_1","type":"custom","custom":{"name":"grammar","input":"SELECT 1"}},`+
		`{"id":"call_2","type":"function","function":{"name":"","arguments":"{}"}},`+
		`{"id":"call_3","type":"function","function":{"name":"weather","arguments":{"city":"Oslo"}}},`+
		`{"id":"call_4","type":"hologram","hologram":{"shape":"cube"}},`+
		`{"id":"call_5","function":{"name":"weather","arguments":"{}"}},`+
		`{"id":"call_6","type":"function","function":{"name":"weather"}}]}`), &msg))

	calls := openaitool.ChatCalls(msg)
	require.Len(t, calls, 6)
	assert.Equal(t, agenttool.ToolCall{ID: "call_1", Name: "custom:grammar", Args: json.RawMessage("SELECT 1")}, calls[0])
	assert.Equal(t, agenttool.ToolCall{ID: "call_2", Name: "", Args: json.RawMessage("{}")}, calls[1])
	assert.Equal(t, agenttool.ToolCall{ID: "call_3", Name: "weather", Args: json.RawMessage(`{"city":"Oslo"}`)}, calls[2],
		"arguments sent as JSON rather than a string pass through as that JSON")
	assert.Equal(t, "hologram:", calls[3].Name)
	assert.JSONEq(t, `{"id":"call_4","type":"hologram","hologram":{"shape":"cube"}}`, string(calls[3].Args))
	assert.Equal(t, "untyped:weather", calls[4].Name)
	assert.Equal(t, agenttool.ToolCall{ID: "call_6", Name: "weather"}, calls[5])

	turn := agenttool.NewTurn(context.Background(), newRegistry(t, clock.NewMock()), nil)
	defer turn.Close()
	blocks, err := turn.Run(calls)
	require.NoError(t, err)
	statuses := make([]agenttool.ToolStatus, len(blocks))
	for i, b := range blocks {
		statuses[i] = b.Status
	}
	assert.Equal(t, []agenttool.ToolStatus{
		agenttool.StatusFailed, agenttool.StatusFailed, agenttool.StatusSucceeded,
		agenttool.StatusFailed, agenttool.StatusFailed, agenttool.StatusFailed,
	}, statuses)
	assert.Equal(t, `unknown tool "custom:grammar"; available tools: sleep, weather`, blocks[0].Result.Error)

	results := openaitool.ChatResults(blocks)
	require.Len(t, results, 6)
	for i, r := range results {
		require.NotNil(t, r.OfTool, "result %d", i)
		assert.Equal(t, calls[i].ID, r.OfTool.ToolCallID)
	}
	assert.Equal(t, `error: unknown tool "custom:grammar"; available tools: sleep, weather`, results[0].OfTool.Content.OfString.Value)
}

func TestChatCallsNone(t *testing.T) {
	assert.Empty(t, openaitool.ChatCalls(openai.ChatCompletionMessage{Content: "hi"}))
	assert.Empty(t, openaitool.ChatResults(nil))
}

func TestChatToolsDescriptionLeftOutWhenEmpty(t *testing.T) {
	tools, err := openaitool.ChatTools([]agenttool.Definition{{Name: "x", Parameters: json.RawMessage(`{"properties":{}}`)}}, nil)
	require.NoError(t, err)
	got, err := json.Marshal(tools)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"function","function":{"name":"x","parameters":{"type":"object","properties":{}}}}]`, string(got))
}
