package anthropictool_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/anthropictool"
)

// Example runs the agent loop against a local stand-in for the Messages
// API; with a real key, drop the base URL and HTTP client options and the
// loop is the same.
func Example() {
	srv := exampleServer()
	defer srv.Close()
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithHTTPClient(srv.Client()))
	ctx := context.Background()

	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	if err != nil {
		panic(err)
	}
	tools, err := anthropictool.Tools(reg.Definitions())
	if err != nil {
		panic(err)
	}
	turn := agenttool.NewTurn(ctx, reg, nil)
	defer turn.Close()

	params := anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 1024,
		Tools:     tools,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Pause, then say hello."))},
	}
	for {
		msg, err := client.Messages.New(ctx, params)
		if err != nil {
			panic(err)
		}
		calls := anthropictool.Calls(msg)
		if len(calls) == 0 {
			fmt.Println("Claude:", msg.Content[0].Text)
			return
		}
		// Run reports every call, cancelled ones too, even with an error:
		// answer them all before deciding whether to go on.
		blocks, runErr := turn.Run(calls)
		for _, b := range blocks {
			fmt.Printf("%s %s: %s%s\n", b.Call.Name, b.Status, b.Result.Output, b.Result.Error)
		}
		params.Messages = append(params.Messages, msg.ToParam(), anthropictool.Results(blocks))
		if runErr != nil {
			panic(runErr)
		}
	}
	// Output:
	// sleep succeeded: Slept for 0 second(s).
	// sleep failed: "seconds" must be an integer from 0 to 86400, got -1
	// Claude: Hello, after a pause.
}

// exampleServer answers the first request with two sleep calls and the
// second with text, as the Messages API would.
func exampleServer() *httptest.Server {
	replies := []string{
		`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use",
		  "usage":{"input_tokens":10,"output_tokens":10},"content":[
		  {"type":"tool_use","id":"toolu_1","name":"sleep","input":{"seconds":0}},
		  {"type":"tool_use","id":"toolu_2","name":"sleep","input":{"seconds":-1}}]}`,
		`{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"end_turn",
		  "usage":{"input_tokens":10,"output_tokens":10},"content":[{"type":"text","text":"Hello, after a pause."}]}`,
	}
	var n atomic.Int64
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, replies[min(int(n.Add(1)), len(replies))-1])
	}))
}
