package einotool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/einotool"
)

// exampleModel stands in for a real Eino chat model (OpenAI, Ark, Ollama):
// it asks for two sleeps, one with bad arguments, then reports what the
// tools answered.
type exampleModel struct{}

func (exampleModel) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	last := input[len(input)-1]
	if last.Role == schema.User {
		return schema.AssistantMessage("", []schema.ToolCall{
			{ID: "call-1", Function: schema.FunctionCall{Name: "sleep", Arguments: `{"seconds":0}`}},
			{ID: "call-2", Function: schema.FunctionCall{Name: "sleep", Arguments: `{"seconds":-1}`}},
		}), nil
	}
	var report string
	for _, m := range input {
		if m.Role == schema.Tool {
			report += m.ToolCallID + ": " + m.Content + "\n"
		}
	}
	return schema.AssistantMessage(report, nil), nil
}

func (m exampleModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m exampleModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}

func ExampleTools() {
	ctx := context.Background()
	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	if err != nil {
		panic(err)
	}
	tools, err := einotool.Tools(reg)
	if err != nil {
		panic(err)
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: exampleModel{},
		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools},
	})
	if err != nil {
		panic(err)
	}
	answer, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("Take a short break.")})
	if err != nil {
		panic(err)
	}
	fmt.Print(answer.Content)
	// Output:
	// call-1: Slept for 0 second(s).
	// call-2: error: "seconds" must be an integer from 0 to 86400, got -1
}

func ExampleFromEino() {
	type echoArgs struct {
		Text string `json:"text" jsonschema:"description=what to repeat"`
	}
	echo, err := utils.InferTool("echo", "Repeat the text.",
		func(_ context.Context, in *echoArgs) (string, error) {
			if in.Text == "" {
				return "", errors.New("nothing to echo")
			}
			return in.Text, nil
		})
	if err != nil {
		panic(err)
	}
	tool, err := einotool.FromEino(echo)
	if err != nil {
		panic(err)
	}
	reg, err := agenttool.NewRegistry(append(agenttool.DefaultTools(), tool)...)
	if err != nil {
		panic(err)
	}
	turn := agenttool.NewTurn(context.Background(), reg, nil)
	defer turn.Close()
	blocks, err := turn.Run([]agenttool.ToolCall{
		{ID: "1", Name: "echo", Args: json.RawMessage(`{"text":"hello"}`)},
		{ID: "2", Name: "echo", Args: json.RawMessage(`{"text":""}`)},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(tool.Parameters()))
	for _, b := range blocks {
		fmt.Printf("%s %s: %s%s\n", b.Call.ID, b.Status, b.Result.Output, b.Result.Error)
	}
	// Output:
	// {"properties":{"text":{"description":"what to repeat","type":"string"}},"additionalProperties":false,"required":["text"],"type":"object"}
	// 1 succeeded: hello
	// 2 failed: [LocalFunc] failed to invoke tool, toolName=echo, err=nothing to echo
}
