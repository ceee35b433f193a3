package openaitool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/openaitool"
)

// response is a response object as the API reference shows it, with the
// given output items.
func response(id string, output ...string) string {
	return `{"id":"` + id + `","object":"response","created_at":1741476777,"status":"completed","error":null,` +
		`"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"gpt-5.5-2026-04-23",` +
		`"output":[` + strings.Join(output, ",") + `],"parallel_tool_calls":true,"previous_response_id":null,` +
		`"reasoning":{"effort":null,"summary":null},"store":true,"temperature":1.0,"text":{"format":{"type":"text"}},` +
		`"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled",` +
		`"usage":{"input_tokens":291,"input_tokens_details":{"cached_tokens":0},"output_tokens":23,` +
		`"output_tokens_details":{"reasoning_tokens":0},"total_tokens":314},"user":null,"metadata":{}}`
}

// functionCall is a function_call output item; args is the arguments text.
func functionCall(id, callID, name, args string) string {
	quoted, _ := json.Marshal(args)
	return `{"type":"function_call","id":"` + id + `","call_id":"` + callID + `","name":"` + name +
		`","arguments":` + string(quoted) + `,"status":"completed"}`
}

const messageDone = `{"type":"message","id":"msg_1","status":"completed","role":"assistant",` +
	`"content":[{"type":"output_text","text":"Done.","annotations":[]}]}`

func TestResponsesLoop(t *testing.T) {
	sleepDesc, sleepParams, strictSleepParams := sleepTool(t)
	tests := []struct {
		name        string
		opts        *openaitool.Options
		wantTools   string
		weatherArgs string
		wantWeather agenttool.ToolStatus
		wantContent string // for a success
	}{{
		name: "arguments that break the schema",
		wantTools: `[{"type":"function","name":"sleep","description":` + sleepDesc + `,"strict":false,"parameters":` + sleepParams + `},` +
			`{"type":"function","name":"weather","description":"Forecast for a city.","strict":false,"parameters":` + weatherSchema + `}]`,
		weatherArgs: `{"days":3}`,
		wantWeather: agenttool.StatusFailed,
	}, {
		name: "strict, with null for the optional member",
		opts: &openaitool.Options{Strict: true},
		wantTools: `[{"type":"function","name":"sleep","description":` + sleepDesc + `,"strict":true,"parameters":` + strictSleepParams + `},` +
			`{"type":"function","name":"weather","description":"Forecast for a city.","strict":true,"parameters":` + strictWeatherSchema + `}]`,
		weatherArgs: `{"city":"Paris","days":null}`,
		wantWeather: agenttool.StatusSucceeded,
		wantContent: "Paris: sunny for 1 day(s)",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{path: "/responses", replies: []string{
				response("resp_1",
					functionCall("fc_1", "call_sleep", "sleep", `{"seconds":0}`),
					functionCall("fc_2", "call_weather", "weather", tt.weatherArgs)),
				response("resp_2", messageDone),
			}}
			client := serve(t, api)
			mock := clock.NewMock()
			reg := newRegistry(t, mock)
			ctx := context.Background()

			tools, err := openaitool.ResponsesTools(reg.Definitions(), tt.opts)
			require.NoError(t, err)
			resp, err := client.Responses.New(ctx, responses.ResponseNewParams{
				Model: openai.ChatModelGPT5_5,
				Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Wait, then the weather in Paris.")},
				Tools: tools,
			})
			require.NoError(t, err)

			var req1 struct {
				Tools json.RawMessage `json:"tools"`
			}
			body1 := api.body(t, 0)
			require.NoError(t, json.Unmarshal(body1, &req1))
			assert.JSONEq(t, tt.wantTools, string(req1.Tools))
			assert.Contains(t, string(body1), `"maximum":86400`, "a number in a schema must stay a JSON number")

			turn := agenttool.NewTurn(ctx, reg, &agenttool.TurnOptions{Clock: mock})
			defer turn.Close()
			calls := openaitool.ResponsesCalls(resp)
			require.Len(t, calls, 2)
			assert.Equal(t, []string{"call_sleep", "call_weather"}, []string{calls[0].ID, calls[1].ID}, "calls are keyed by call_id")
			blocks, err := turn.Run(calls)
			require.NoError(t, err)
			require.Len(t, blocks, 2)
			assert.Equal(t, agenttool.StatusSucceeded, blocks[0].Status)
			assert.Equal(t, tt.wantWeather, blocks[1].Status, "weather: %+v", blocks[1].Result)
			assert.Equal(t, tt.weatherArgs, string(blocks[1].Call.Args), "arguments must reach the tool as sent")

			final, err := client.Responses.New(ctx, responses.ResponseNewParams{
				Model:              openai.ChatModelGPT5_5,
				PreviousResponseID: openai.String(resp.ID),
				Input:              responses.ResponseNewParamsInputUnion{OfInputItemList: openaitool.ResponsesResults(blocks)},
				Tools:              tools,
			})
			require.NoError(t, err)
			assert.Equal(t, "Done.", final.OutputText())
			assert.Empty(t, openaitool.ResponsesCalls(final))

			var req2 struct {
				PreviousResponseID string `json:"previous_response_id"`
				Input              []struct {
					Type   string          `json:"type"`
					CallID string          `json:"call_id"`
					Output json.RawMessage `json:"output"`
				} `json:"input"`
			}
			require.NoError(t, json.Unmarshal(api.body(t, 1), &req2))
			assert.Equal(t, "resp_1", req2.PreviousResponseID)
			wantWeather := tt.wantContent
			if tt.wantWeather != agenttool.StatusSucceeded {
				wantWeather = "error: " + blocks[1].Result.Error
				assert.Equal(t, `error: "city" is required`, wantWeather)
			}
			require.Len(t, req2.Input, 2)
			for i, want := range []struct{ id, output string }{
				{"call_sleep", "Slept for 0 second(s)."},
				{"call_weather", wantWeather},
			} {
				assert.Equal(t, "function_call_output", req2.Input[i].Type)
				assert.Equal(t, want.id, req2.Input[i].CallID)
				var output string
				require.NoError(t, json.Unmarshal(req2.Input[i].Output, &output), "output %s", req2.Input[i].Output)
				assert.Equal(t, want.output, output)
			}
		})
	}
}

func TestResponsesCallsOfOtherKinds(t *testing.T) {
	var resp responses.Response
	require.NoError(t, json.Unmarshal([]byte(response("resp_1",
		`{"type":"reasoning","id":"rs_1","summary":[]}`,
		`{"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"grammar","input":"SELECT 1","status":"completed"}`,
		`{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"q"}}`,
		functionCall("fc_2", "call_2", "", "{}"),
		`{"type":"function_call","id":"fc_3","call_id":"call_3","name":"weather","arguments":{"city":"Oslo"},"status":"completed"}`,
		`{"type":"function_call","id":"fc_4","call_id":"call_4","name":"weather","status":"incomplete"}`,
		messageDone,
	)), &resp))

	calls := openaitool.ResponsesCalls(&resp)
	assert.Equal(t, []agenttool.ToolCall{
		{ID: "call_1", Name: "custom:grammar", Args: json.RawMessage("SELECT 1")},
		{ID: "call_2", Name: "", Args: json.RawMessage("{}")},
		{ID: "call_3", Name: "weather", Args: json.RawMessage(`{"city":"Oslo"}`)},
		{ID: "call_4", Name: "weather"},
	}, calls)

	turn := agenttool.NewTurn(context.Background(), newRegistry(t, clock.NewMock()), nil)
	defer turn.Close()
	blocks, err := turn.Run(calls)
	require.NoError(t, err)
	got, err := json.Marshal(openaitool.ResponsesResults(blocks))
	require.NoError(t, err)
	assert.JSONEq(t, `[`+
		`{"type":"custom_tool_call_output","call_id":"call_1","output":"error: unknown tool \"custom:grammar\"; available tools: sleep, weather"},`+
		`{"type":"function_call_output","call_id":"call_2","output":"error: unknown tool \"\"; available tools: sleep, weather"},`+
		`{"type":"function_call_output","call_id":"call_3","output":"Oslo: sunny for 1 day(s)"},`+
		`{"type":"function_call_output","call_id":"call_4","output":"error: \"city\" is required"}]`, string(got))
}

func TestResponsesCallsNone(t *testing.T) {
	assert.Empty(t, openaitool.ResponsesCalls(nil))
	assert.Empty(t, openaitool.ResponsesCalls(&responses.Response{}))
	assert.Empty(t, openaitool.ResponsesResults(nil))
}
