package adktool_test

import (
	"context"
	"fmt"
	"iter"

	"google.golang.org/genai"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/adktool"
)

// waitingModel stands in for a real model such as gemini.NewModel: it asks
// for two sleeps, one of them out of range, then answers once it has read
// the results.
type waitingModel struct{}

func (waitingModel) Name() string { return "waiting" }

func (waitingModel) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	answer := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
		{FunctionCall: &genai.FunctionCall{ID: "1", Name: "sleep", Args: map[string]any{"seconds": 0.0}}},
		{FunctionCall: &genai.FunctionCall{ID: "2", Name: "sleep", Args: map[string]any{"seconds": -1.0}}},
	}}
	if last := req.Contents[len(req.Contents)-1]; last.Parts[0].FunctionResponse != nil {
		answer = genai.NewContentFromText("Done waiting.", genai.RoleModel)
	}
	return func(yield func(*model.LLMResponse, error) bool) {
		yield(&model.LLMResponse{Content: answer}, nil)
	}
}

func Example() {
	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	if err != nil {
		panic(err)
	}
	tools, err := adktool.Tools(reg)
	if err != nil {
		panic(err)
	}
	a, err := llmagent.New(llmagent.Config{Name: "assistant", Model: waitingModel{}, Tools: tools})
	if err != nil {
		panic(err)
	}
	r, err := runner.New(runner.Config{AppName: "example", Agent: a, SessionService: session.InMemoryService(), AutoCreateSession: true})
	if err != nil {
		panic(err)
	}

	msg := genai.NewContentFromText("Wait a moment.", genai.RoleUser)
	for ev, err := range r.Run(context.Background(), "user", "session", msg, agent.RunConfig{}) {
		if err != nil {
			panic(err)
		}
		for _, p := range ev.Content.Parts {
			switch {
			case p.FunctionResponse != nil:
				fmt.Println(p.FunctionResponse.Name, p.FunctionResponse.Response)
			case p.Text != "":
				fmt.Println(p.Text)
			}
		}
	}
	// Output:
	// sleep map[result:Slept for 0 second(s).]
	// sleep map[error:"seconds" must be an integer from 0 to 86400, got -1]
	// Done waiting.
}
