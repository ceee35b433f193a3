package genaitool_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/genaitool"
)

// FuzzCalls decodes arbitrary replies as the SDK's types do and checks that
// Calls keeps every function call of the first candidate, in order, with
// arguments that mean what the SDK decoded, ids that are the model's own or
// made up and unique even across two readings of the reply, and that
// Results answers each call by name without a made-up id.
func FuzzCalls(f *testing.F) {
	for _, seed := range []string{
		parts(`[{"functionCall":{"name":"sleep","args":{"seconds":0}},"thoughtSignature":"c2ln"}]`),
		parts(`[{"text":"a"},{"functionCall":{"id":"fc_1","name":"","args":{"x":[1,2.5,null,true,{"y":"<&>"}]}}},{"functionCall":{}}]`),
		parts(`[{"functionCall":{"name":"a","args":{"n":1e308,"m":-0,"s":"\u0000\ud800"}}},{"functionCall":{"id":"genaitool-x","name":"b"}}]`),
		`{"candidates":[null,{"content":{"parts":[{"functionCall":{"name":"z"}}]}}]}`,
		`{"candidates":[{"content":{"parts":[null,{"functionCall":null}]}}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var resp genai.GenerateContentResponse
		if json.Unmarshal(body, &resp) != nil {
			return
		}
		calls := genaitool.Calls(&resp)
		again := genaitool.Calls(&resp)

		var fcs []*genai.FunctionCall
		if len(resp.Candidates) > 0 && resp.Candidates[0] != nil && resp.Candidates[0].Content != nil {
			for _, p := range resp.Candidates[0].Content.Parts {
				if p != nil && p.FunctionCall != nil {
					fcs = append(fcs, p.FunctionCall)
				}
			}
		}
		if len(calls) != len(fcs) || len(again) != len(fcs) {
			t.Fatalf("%d and %d calls for %d function calls", len(calls), len(again), len(fcs))
		}
		madeUp := make(map[string]bool)
		for i, fc := range fcs {
			c := calls[i]
			if c.Name != fc.Name {
				t.Fatalf("call %d: name %q, want %q", i, c.Name, fc.Name)
			}
			switch {
			case fc.ID != "" && c.ID != fc.ID:
				t.Fatalf("call %d: id %q, want the model's %q", i, c.ID, fc.ID)
			case fc.ID == "":
				if !strings.HasPrefix(c.ID, "genaitool-") || madeUp[c.ID] || madeUp[again[i].ID] || c.ID == again[i].ID {
					t.Fatalf("call %d: made-up ids %q and %q are not new", i, c.ID, again[i].ID)
				}
				madeUp[c.ID], madeUp[again[i].ID] = true, true
			}
			if fc.Args == nil {
				if c.Args != nil {
					t.Fatalf("call %d: args %s for none", i, c.Args)
				}
				continue
			}
			var decoded map[string]any
			if err := json.Unmarshal(c.Args, &decoded); err != nil {
				t.Fatalf("call %d: args %s are not JSON: %v", i, c.Args, err)
			}
			if !reflect.DeepEqual(decoded, fc.Args) {
				t.Fatalf("call %d: args %s mean %#v, want %#v", i, c.Args, decoded, fc.Args)
			}
		}

		blocks := make([]agenttool.ToolBlock, len(calls))
		for i, c := range calls {
			blocks[i] = agenttool.ToolBlock{Call: c, Status: agenttool.StatusFailed, Result: agenttool.Failf("bad %s", c.Args)}
		}
		content := genaitool.Results(blocks)
		if _, err := json.Marshal(content); err != nil {
			t.Fatalf("Results does not encode: %v", err)
		}
		if len(content.Parts) != len(calls) {
			t.Fatalf("%d responses for %d calls", len(content.Parts), len(calls))
		}
		for i, p := range content.Parts {
			fr := p.FunctionResponse
			wantID := fcs[i].ID
			if strings.HasPrefix(wantID, "genaitool-") {
				wantID = ""
			}
			if fr == nil || fr.ID != wantID || fr.Name != fcs[i].Name || len(fr.Response) != 1 || fr.Response["error"] == nil {
				t.Fatalf("response %d is %+v, want id %q, name %q and an error", i, fr, wantID, fcs[i].Name)
			}
		}
	})
}
