package openaitool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/openaitool"
	"github.com/agenttool/agenttool/functool"
)

// localModel plays the model on a local server speaking OpenAI's HTTP API at
// path: its first answer asks for sleep and weather, its second is text.
func localModel(path string, replies ...string) *httptest.Server {
	return httptest.NewServer(&fakeAPI{path: path, replies: replies})
}

// The agent loop with Chat Completions: send the tools, run the calls the
// model asks for in a Turn, send the results back, until the model answers.
func Example() {
	srv := localModel("/chat/completions",
		chatCompletion("chatcmpl-1", assistantCalls(
			[3]string{"call_1", "sleep", `{"seconds":0}`},
			[3]string{"call_2", "weather", `{"town":"Oslo"}`}), "tool_calls"),
		chatCompletion("chatcmpl-2", `{"role":"assistant","content":"I waited; which city did you mean?"}`, "stop"))
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"),
		option.WithHTTPClient(srv.Client()))

	type weatherArgs struct {
		City string `json:"city" jsonschema:"the city to report on"`
		Days int    `json:"days,omitempty" jsonschema:"how many days ahead"`
	}
	weather, err := functool.New("weather", "Forecast for a city.",
		func(_ context.Context, in weatherArgs) (agenttool.ToolResult, error) {
			return agenttool.OK(fmt.Sprintf("%s: sunny for %d day(s)", in.City, max(in.Days, 1))), nil
		}, nil)
	if err != nil {
		panic(err)
	}
	reg, err := agenttool.NewRegistry(append(agenttool.DefaultTools(), weather)...)
	if err != nil {
		panic(err)
	}
	// Strict: the model must follow the schemas; it sends null for days when
	// it leaves the member out.
	tools, err := openaitool.ChatTools(reg.Definitions(), &openaitool.Options{Strict: true})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	turn := agenttool.NewTurn(ctx, reg, nil)
	defer turn.Close()
	params := openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT5_5,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Wait, then tell me the weather.")},
		Tools:    tools,
	}
	for {
		completion, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			panic(err)
		}
		msg := completion.Choices[0].Message
		calls := openaitool.ChatCalls(msg)
		if len(calls) == 0 {
			fmt.Println("model:", msg.Content)
			return
		}
		blocks, err := turn.Run(calls)
		if err != nil {
			panic(err)
		}
		results := openaitool.ChatResults(blocks)
		for _, r := range results {
			fmt.Printf("%s: %s\n", r.OfTool.ToolCallID, r.OfTool.Content.OfString.Value)
		}
		params.Messages = append(append(params.Messages, msg.ToParam()), results...)
	}
	// Output:
	// call_1: Slept for 0 second(s).
	// call_2: error: "city" is required
	// model: I waited; which city did you mean?
}

// The same loop with the Responses API, chaining the requests with
// PreviousResponseID.
func Example_responses() {
	srv := localModel("/responses",
		response("resp_1",
			functionCall("fc_1", "call_1", "sleep", `{"seconds":0}`),
			functionCall("fc_2", "call_2", "weather", `{"city":"Oslo","days":2}`)),
		response("resp_2", `{"type":"message","id":"msg_1","status":"completed","role":"assistant",`+
			`"content":[{"type":"output_text","text":"Oslo will be sunny.","annotations":[]}]}`))
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"),
		option.WithHTTPClient(srv.Client()))

	reg, err := registryOn(nil) // sleep and weather, as in the Chat Completions example
	if err != nil {
		panic(err)
	}
	tools, err := openaitool.ResponsesTools(reg.Definitions(), nil)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	turn := agenttool.NewTurn(ctx, reg, nil)
	defer turn.Close()
	params := responses.ResponseNewParams{
		Model: openai.ChatModelGPT5_5,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Wait, then the weather in Oslo.")},
		Tools: tools,
	}
	for {
		resp, err := client.Responses.New(ctx, params)
		if err != nil {
			panic(err)
		}
		calls := openaitool.ResponsesCalls(resp)
		if len(calls) == 0 {
			fmt.Println("model:", resp.OutputText())
			return
		}
		blocks, err := turn.Run(calls)
		if err != nil {
			panic(err)
		}
		results := openaitool.ResponsesResults(blocks)
		for _, r := range results {
			fmt.Printf("%s: %s\n", r.OfFunctionCallOutput.CallID.Value, r.OfFunctionCallOutput.Output.OfString.Value)
		}
		params.PreviousResponseID = openai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: results}
	}
	// Output:
	// call_1: Slept for 0 second(s).
	// call_2: Oslo: sunny for 2 day(s)
	// model: Oslo will be sunny.
}

func ExampleChatCalls() {
	var msg openai.ChatCompletionMessage
	_ = json.Unmarshal([]byte(`{"role":"assistant","content":null,"tool_calls":[`+
		`{"id":"call_1","type":"function","function":{"name":"sleep","arguments":"{\"seconds\": 0}"}},`+
		`{"id":"call_2","type":"custom","custom":{"name":"sql","input":"SELECT 1"}}]}`), &msg)
	for _, c := range openaitool.ChatCalls(msg) {
		fmt.Printf("%s %s %s\n", c.ID, c.Name, c.Args)
	}
	// Output:
	// call_1 sleep {"seconds": 0}
	// call_2 custom:sql SELECT 1
}

func ExampleStrictSchema() {
	schema, err := openaitool.StrictSchema(json.RawMessage(
		`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","maximum":14}},"required":["city"]}`))
	fmt.Println(string(schema), err)

	_, err = openaitool.StrictSchema(json.RawMessage(
		`{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}`))
	fmt.Println(errors.Is(err, openaitool.ErrNotStrict))
	fmt.Println(err)
	// Output:
	// {"type":"object","properties":{"city":{"type":"string"},"days":{"type":["integer","null"],"maximum":14}},"required":["city","days"],"additionalProperties":false} <nil>
	// true
	// openaitool: schema cannot be made strict: at /properties/labels: the object is open to other members ("additionalProperties": {"type":"string"}); strict mode needs false
}
