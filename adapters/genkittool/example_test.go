package genkittool_test

import (
	"context"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/genkittool"
)

func Example() {
	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	if err != nil {
		panic(err)
	}
	tools, err := genkittool.Tools(reg)
	if err != nil {
		panic(err)
	}
	refs := make([]ai.ToolRef, len(tools))
	for i, t := range tools {
		refs[i] = t
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := genkit.Init(ctx)
	// A model that stands in for a real one such as googleai/gemini-2.5-flash:
	// it asks for two sleeps, one of them out of range, then prints what it
	// reads back and answers.
	genkit.DefineModelAction(g, "example/waiting", &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}},
		func(_ context.Context, req *ai.ModelRequest, _ struct{}, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			last := req.Messages[len(req.Messages)-1]
			if last.Role != ai.RoleTool {
				return &ai.ModelResponse{Message: &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{
					ai.NewToolRequestPart(&ai.ToolRequest{Ref: "1", Name: "sleep", Input: map[string]any{"seconds": 0.0}}),
					ai.NewToolRequestPart(&ai.ToolRequest{Ref: "2", Name: "sleep", Input: map[string]any{"seconds": -1.0}}),
				}}}, nil
			}
			for _, p := range last.Content {
				fmt.Println(p.ToolResponse.Name, p.ToolResponse.Output)
			}
			return &ai.ModelResponse{Message: ai.NewModelTextMessage("Done waiting.")}, nil
		})

	resp, err := genkit.Generate(ctx, g, ai.WithModelName("example/waiting"), ai.WithPrompt("Wait a moment."), ai.WithTools(refs...))
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Text())
	// Output:
	// sleep Slept for 0 second(s).
	// sleep error: "seconds" must be an integer from 0 to 86400, got -1
	// Done waiting.
}
