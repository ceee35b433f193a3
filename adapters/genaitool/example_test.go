package genaitool_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"google.golang.org/genai"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/genaitool"
)

// Example runs the agent loop against a local stand-in for the Gemini API;
// with a real key, drop HTTPClient and HTTPOptions and the loop is the same.
func Example() {
	srv := exampleServer()
	defer srv.Close()
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		Backend:     genai.BackendGeminiAPI,
		APIKey:      "test",
		HTTPClient:  srv.Client(),
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		panic(err)
	}

	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	if err != nil {
		panic(err)
	}
	tool, err := genaitool.Tool(reg.Definitions())
	if err != nil {
		panic(err)
	}
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{tool}}
	turn := agenttool.NewTurn(ctx, reg, nil)
	defer turn.Close()

	contents := []*genai.Content{genai.NewContentFromText("Pause, then say hello.", genai.RoleUser)}
	for {
		resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, config)
		if err != nil {
			panic(err)
		}
		calls := genaitool.Calls(resp)
		if len(calls) == 0 {
			fmt.Println("Gemini:", resp.Text())
			return
		}
		// Run reports every call, cancelled ones too, even with an error:
		// answer them all before deciding whether to go on.
		blocks, runErr := turn.Run(calls)
		for _, b := range blocks {
			fmt.Printf("%s %s: %s%s\n", b.Call.Name, b.Status, b.Result.Output, b.Result.Error)
		}
		// The model's content goes back as it came: it carries the
		// thought signatures Gemini needs to see again.
		contents = append(contents, resp.Candidates[0].Content, genaitool.Results(blocks))
		if runErr != nil {
			panic(runErr)
		}
	}
	// Output:
	// sleep succeeded: Slept for 0 second(s).
	// sleep failed: "seconds" must be an integer from 0 to 86400, got -1
	// Gemini: Hello, after a pause.
}

// exampleServer answers the first request with two sleep calls and the
// second with text, as generateContent would.
func exampleServer() *httptest.Server {
	replies := []string{
		`{"candidates":[{"index":0,"finishReason":"STOP","content":{"role":"model","parts":[
		  {"functionCall":{"name":"sleep","args":{"seconds":0}},"thoughtSignature":"c2lnbmF0dXJl"},
		  {"functionCall":{"name":"sleep","args":{"seconds":-1}}}]}}]}`,
		`{"candidates":[{"index":0,"finishReason":"STOP","content":{"role":"model","parts":[{"text":"Hello, after a pause."}]}}]}`,
	}
	var n atomic.Int64
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, replies[min(int(n.Add(1)), len(replies))-1])
	}))
}
