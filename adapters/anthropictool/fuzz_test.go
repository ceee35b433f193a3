package anthropictool_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/anthropictool"
)

// knownTypes are the content block types of the SDK's ContentBlockUnion
// that are not calls for the client to run.
var knownTypes = map[string]bool{
	"text": true, "thinking": true, "redacted_thinking": true, "server_tool_use": true,
	"web_search_tool_result": true, "web_fetch_tool_result": true, "code_execution_tool_result": true,
	"bash_code_execution_tool_result": true, "text_editor_code_execution_tool_result": true,
	"tool_search_tool_result": true, "container_upload": true,
}

// FuzzCalls decodes arbitrary message content as the SDK does and checks
// that Calls keeps every call, in order, with its input byte for byte, that
// a block of unknown type with an id becomes a call no tool can answer, and
// that Results answers each call by its id.
func FuzzCalls(f *testing.F) {
	for _, seed := range []string{
		`[{"type":"tool_use","id":"toolu_1","name":"sleep","input":{"seconds":0}}]`,
		`[{"type":"text","text":"hi"},{"type":"tool_use","id":"a","name":"","input":"x"},{"type":"tool_use","id":"b","name":"w"}]`,
		`[{"type":"server_tool_use","id":"s","name":"web_search","input":{}},{"type":"mystery","id":"m","input":[1]}]`,
		`[{"type":"tool_use","id":"x","name":"n","input":{"a":1e400,"b":"\u0000"}},{"type":"tool_use"}]`,
		`[{"type":"tool_use","id":7,"name":null,"input":null},{}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		var msg anthropic.Message
		if json.Unmarshal(append(append([]byte(`{"role":"assistant","content":`), content...), '}'), &msg) != nil {
			return
		}
		calls := anthropictool.Calls(&msg)

		n := 0
		for i, b := range msg.Content {
			switch {
			case b.Type == "tool_use":
				if n >= len(calls) {
					t.Fatalf("block %d: tool_use has no call", i)
				}
				c := calls[n]
				if c.ID != b.ID || c.Name != b.Name || !bytes.Equal(c.Args, b.Input) {
					t.Fatalf("block %d: call %+v, want id %q name %q input %s", i, c, b.ID, b.Name, b.Input)
				}
				n++
			case b.ID != "" && !knownTypes[b.Type]:
				if n >= len(calls) {
					t.Fatalf("block %d: %q block with id %q has no call", i, b.Type, b.ID)
				}
				if c := calls[n]; c.ID != b.ID || agenttool.ValidName(c.Name) {
					t.Fatalf("block %d: call %+v for a %q block: want id %q and a name no tool can have", i, c, b.Type, b.ID)
				}
				n++
			}
		}
		if n != len(calls) {
			t.Fatalf("%d calls, want %d", len(calls), n)
		}

		blocks := make([]agenttool.ToolBlock, len(calls))
		for i, c := range calls {
			blocks[i] = agenttool.ToolBlock{Call: c, Status: agenttool.StatusFailed, Result: agenttool.Failf("bad %s", c.Args)}
		}
		raw, err := json.Marshal(anthropictool.Results(blocks))
		if err != nil {
			t.Fatalf("Results does not encode: %v", err)
		}
		var wire struct {
			Content []struct {
				ToolUseID string `json:"tool_use_id"`
				IsError   bool   `json:"is_error"`
			} `json:"content"`
		}
		if err := json.Unmarshal(raw, &wire); err != nil {
			t.Fatalf("Results encodes bad JSON %s: %v", raw, err)
		}
		if len(wire.Content) != len(calls) {
			t.Fatalf("%d tool_result blocks for %d calls", len(wire.Content), len(calls))
		}
		for i, r := range wire.Content {
			if r.ToolUseID != onTheWire(calls[i].ID) || !r.IsError {
				t.Fatalf("tool_result %d is %+v, want id %q and is_error", i, r, calls[i].ID)
			}
		}
	})
}

// onTheWire is id as a JSON encoder sends it: the SDK keeps the raw text of
// a member it cannot decode as a string, and each byte of invalid UTF-8 in
// it becomes U+FFFD.
func onTheWire(id string) string {
	raw, _ := json.Marshal(id)
	var sent string
	_ = json.Unmarshal(raw, &sent)
	return sent
}
