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
	"github.com/agenttool/agenttool/functool"
)

// fuzzRegistry holds weather only: a sleep the fuzzer asks for would wait
// on a clock nobody moves.
func fuzzRegistry(t testing.TB) *agenttool.Registry {
	t.Helper()
	weather, err := functool.New("weather", "Forecast for a city.",
		func(_ context.Context, in weatherArgs) (agenttool.ToolResult, error) {
			return agenttool.OK(in.City), nil
		}, &functool.Options{ConcurrencySafe: true})
	require.NoError(t, err)
	reg, err := agenttool.NewRegistry(weather)
	require.NoError(t, err)
	return reg
}

// runAndAnswer runs calls in a turn and checks what every decoded call must
// satisfy: a finished block each, failed unless it names weather, and an
// answer each, in order, with the call's id, that encodes.
func runAndAnswer(t *testing.T, reg *agenttool.Registry, calls []agenttool.ToolCall) {
	t.Helper()
	turn := agenttool.NewTurn(context.Background(), reg, &agenttool.TurnOptions{Clock: clock.NewMock()})
	defer turn.Close()
	blocks, err := turn.Run(calls)
	require.NoError(t, err)
	require.Len(t, blocks, len(calls))
	for i, b := range blocks {
		assert.True(t, b.Status.Finished(), "block %d is %s", i, b.Status)
		if calls[i].Name != "weather" {
			assert.Equal(t, agenttool.StatusFailed, b.Status, "call %d named %q", i, calls[i].Name)
		}
	}
	chat := openaitool.ChatResults(blocks)
	resp := openaitool.ResponsesResults(blocks)
	require.Len(t, chat, len(blocks))
	require.Len(t, resp, len(blocks))
	for i, b := range blocks {
		content := chat[i].OfTool.Content.OfString.Value
		assert.Equal(t, b.Call.ID, chat[i].OfTool.ToolCallID)
		if b.Status != agenttool.StatusSucceeded {
			assert.True(t, strings.HasPrefix(content, "error: "), "content %q", content)
		}
		if strings.HasPrefix(b.Call.Name, "custom:") {
			assert.Equal(t, b.Call.ID, resp[i].OfCustomToolCallOutput.CallID)
		} else {
			assert.Equal(t, b.Call.ID, resp[i].OfFunctionCallOutput.CallID.Value)
		}
	}
	_, err = json.Marshal(chat)
	require.NoError(t, err)
	_, err = json.Marshal(resp)
	require.NoError(t, err)
}

func FuzzChatCalls(f *testing.F) {
	f.Add([]byte(`{"role":"assistant","content":null,"tool_calls":[` +
		`{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}},` +
		`{"id":"call_2","type":"function","function":{"name":"weather","arguments":"{\"city\": "}}]}`))
	f.Add([]byte(`{"role":"assistant","tool_calls":[{"id":"call_1","type":"custom","custom":{"name":"sql","input":"SELECT 1"}},` +
		`{"id":"call_2","type":"x"},{"id":"call_3","function":{"name":"","arguments":{"city":1}}}]}`))
	f.Add([]byte(`{"role":"assistant","tool_calls":[{"id":"","type":"function","function":{"name":"weather","arguments":"\ud800"}}]}`))
	reg := fuzzRegistry(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var msg openai.ChatCompletionMessage
		if json.Unmarshal(data, &msg) != nil {
			return
		}
		calls := openaitool.ChatCalls(msg)
		require.Len(t, calls, len(msg.ToolCalls))
		for i, c := range calls {
			tc := msg.ToolCalls[i]
			assert.Equal(t, tc.ID, c.ID)
			if tc.Type == "function" {
				assert.Equal(t, tc.Function.Name, c.Name)
				if tc.Function.Arguments != "" {
					assert.Equal(t, tc.Function.Arguments, string(c.Args), "arguments must pass through as sent")
				}
			} else {
				assert.False(t, agenttool.ValidName(c.Name), "a %q call got the tool name %q", tc.Type, c.Name)
			}
		}
		runAndAnswer(t, reg, calls)
	})
}

func FuzzResponsesCalls(f *testing.F) {
	f.Add([]byte(response("resp_1",
		functionCall("fc_1", "call_1", "weather", `{"city":"Oslo"}`),
		functionCall("fc_2", "call_2", "weather", `{"city":`),
		`{"type":"custom_tool_call","id":"ctc_1","call_id":"call_3","name":"sql","input":"SELECT 1"}`,
		messageDone)))
	f.Add([]byte(`{"output":[{"type":"function_call","call_id":"c","name":"weather","arguments":[1]},{"type":"mystery","call_id":"d"}]}`))
	reg := fuzzRegistry(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var resp responses.Response
		if json.Unmarshal(data, &resp) != nil {
			return
		}
		calls := openaitool.ResponsesCalls(&resp)
		var want []responses.ResponseOutputItemUnion
		for _, item := range resp.Output {
			if item.Type == "function_call" || item.Type == "custom_tool_call" {
				want = append(want, item)
			}
		}
		require.Len(t, calls, len(want))
		for i, c := range calls {
			assert.Equal(t, want[i].CallID, c.ID)
			if want[i].Type == "function_call" {
				assert.Equal(t, want[i].Name, c.Name)
				if s := want[i].Arguments.OfString; s != "" {
					assert.Equal(t, s, string(c.Args), "arguments must pass through as sent")
				}
			} else {
				assert.Equal(t, "custom:"+want[i].Name, c.Name)
			}
		}
		runAndAnswer(t, reg, calls)
	})
}
