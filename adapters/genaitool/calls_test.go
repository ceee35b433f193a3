package genaitool_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/genaitool"
)

// response decodes a generateContent reply body as the SDK's types do.
func response(t testing.TB, body string) *genai.GenerateContentResponse {
	t.Helper()
	var resp genai.GenerateContentResponse
	require.NoError(t, json.Unmarshal([]byte(body), &resp))
	return &resp
}

// parts wraps parts in a reply with one candidate.
func parts(p string) string {
	return `{"candidates":[{"content":{"role":"model","parts":` + p + `},"finishReason":"STOP","index":0}]}`
}

func TestCalls(t *testing.T) {
	type call struct{ id, name, args string } // id "" means made up
	tests := map[string]struct {
		body string
		want []call
	}{
		"text only":     {body: parts(`[{"text":"Done."}]`)},
		"no candidates": {body: `{"candidates":[]}`},
		"no content":    {body: `{"candidates":[{"finishReason":"SAFETY"}]}`},
		"own ids kept": {
			body: parts(`[{"functionCall":{"id":"fc_1","name":"sleep","args":{"seconds":5}}},{"functionCall":{"id":"fc_2","name":"b","args":{}}}]`),
			want: []call{{"fc_1", "sleep", `{"seconds":5}`}, {"fc_2", "b", `{}`}},
		},
		"ids made up where missing, order kept around text": {
			body: parts(`[{"text":"first"},{"functionCall":{"name":"a","args":{"x":1}}},{"thought":true,"text":"hm"},{"functionCall":{"id":"fc_9","name":"b","args":{"y":[1,2.5]}}}]`),
			want: []call{{"", "a", `{"x":1}`}, {"fc_9", "b", `{"y":[1,2.5]}`}},
		},
		"args encoded once, without HTML escaping": {
			body: parts(`[{"functionCall":{"name":"q","args":{"expr":"a<b && c>d","s":"\u00e9"}}}]`),
			want: []call{{"", "q", `{"expr":"a<b && c>d","s":"é"}`}},
		},
		"no args": {
			body: parts(`[{"functionCall":{"name":"sleep"}}]`),
			want: []call{{"", "sleep", ``}},
		},
		"empty name stays empty": {
			body: parts(`[{"functionCall":{"name":"","args":{}}}]`),
			want: []call{{"", "", `{}`}},
		},
		"only the first candidate": {
			body: `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"a","args":{}}}]}},` +
				`{"content":{"role":"model","parts":[{"functionCall":{"name":"b","args":{}}}]}}]}`,
			want: []call{{"", "a", `{}`}},
		},
		"server-side tool calls are not function calls": {
			body: parts(`[{"toolCall":{"id":"tc_1","toolType":"GOOGLE_SEARCH","args":{"q":"x"}}},{"executableCode":{"language":"PYTHON","code":"1"}}]`),
		},
		"an unknown kind of part is empty": {body: parts(`[{"futurePart":{"id":"f_1","name":"sleep"}}]`)},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			calls := genaitool.Calls(response(t, tt.body))
			require.Len(t, calls, len(tt.want))
			for i, w := range tt.want {
				got := calls[i]
				if w.id == "" {
					assert.True(t, strings.HasPrefix(got.ID, "genaitool-"), got.ID)
				} else {
					assert.Equal(t, w.id, got.ID)
				}
				assert.Equal(t, w.name, got.Name)
				if w.args == "" {
					assert.Nil(t, got.Args)
				} else {
					assert.Equal(t, w.args, string(got.Args))
				}
			}
		})
	}
}

func TestCallsNil(t *testing.T) {
	assert.Nil(t, genaitool.Calls(nil))
	assert.Nil(t, genaitool.Calls(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{nil}}))
	assert.Nil(t, genaitool.Calls(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{
		{Content: &genai.Content{Parts: []*genai.Part{nil, {Text: "x"}}}},
	}}))
}

// TestMadeUpIDsAreUnique calls Calls on one response many times, from
// several goroutines, as a turn that reads a response twice or runs
// several responses would: no two made-up ids may collide.
func TestMadeUpIDsAreUnique(t *testing.T) {
	resp := response(t, parts(`[{"functionCall":{"name":"a","args":{}}},{"functionCall":{"name":"a","args":{}}}]`))
	const goroutines, rounds = 4, 250
	ids := make(chan string, goroutines*rounds*2)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range rounds {
				for _, c := range genaitool.Calls(resp) {
					ids <- c.ID
				}
			}
		})
	}
	wg.Wait()
	close(ids)
	seen := make(map[string]bool, cap(ids))
	for id := range ids {
		require.False(t, seen[id], "id %q made up twice", id)
		seen[id] = true
	}
	assert.Len(t, seen, goroutines*rounds*2)
}

func TestCallsArgsNotEncodable(t *testing.T) {
	resp := &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Parts: []*genai.Part{
		{FunctionCall: &genai.FunctionCall{ID: "fc_1", Name: "sleep", Args: map[string]any{"seconds": math.NaN()}}},
	}}}}}
	calls := genaitool.Calls(resp)
	require.Len(t, calls, 1)
	assert.Equal(t, "fc_1", calls[0].ID)
	assert.Equal(t, "sleep", calls[0].Name)
	assert.False(t, json.Valid(calls[0].Args))
	assert.Contains(t, string(calls[0].Args), "cannot be encoded as JSON")
}

// TestBadCallsFailInTurn shows what the package doc promises: bad input
// from the API is a call, and the Turn fails it with a message the model
// can read.
func TestBadCallsFailInTurn(t *testing.T) {
	resp := response(t, parts(`[{"functionCall":{"name":"","args":{}}},{"functionCall":{"id":"fc_2","name":"weather"}}]`))
	resp.Candidates[0].Content.Parts = append(resp.Candidates[0].Content.Parts,
		&genai.Part{FunctionCall: &genai.FunctionCall{Name: "sleep", Args: map[string]any{"seconds": math.Inf(1)}}})
	turn := agenttool.NewTurn(context.Background(), newRegistry(t), nil)
	defer turn.Close()
	blocks, err := turn.Run(genaitool.Calls(resp))
	require.NoError(t, err)
	require.Len(t, blocks, 3)
	for i, want := range []string{`unknown tool ""`, `"city" is required`, `"seconds"`} {
		assert.Equal(t, agenttool.StatusFailed, blocks[i].Status, i)
		assert.Contains(t, blocks[i].Result.Error, want, i)
	}

	content := genaitool.Results(blocks)
	require.Len(t, content.Parts, 3)
	for i, want := range []struct{ id, name string }{{"", ""}, {"fc_2", "weather"}, {"", "sleep"}} {
		fr := content.Parts[i].FunctionResponse
		require.NotNil(t, fr, i)
		assert.Equal(t, want.id, fr.ID, i)
		assert.Equal(t, want.name, fr.Name, i)
		assert.Equal(t, map[string]any{"error": blocks[i].Result.Error}, fr.Response, i)
	}
}
