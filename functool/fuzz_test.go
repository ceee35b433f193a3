package functool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/functool"
)

// FuzzArguments feeds arbitrary arguments to a functool tool: never a panic
// or a Go error; success only for a JSON object that decodes into the
// struct with exactly the keys the schema names; never Go syntax in an error.
func FuzzArguments(f *testing.F) {
	for _, seed := range []string{`{"item":"tea","quantity":2}`, `{"Item":"tea","quantity":2}`, `{"item":"tea","quantity":2.0}`,
		`{"item":"x","quantity":1,"ship":{"street":"s"},"labels":{"a":"b"},"tiny":300}`, `[]`, `null`, `{`, `{"notes":[1]}`} {
		f.Add([]byte(seed))
	}
	tool, err := functool.New("order", "Order something.", func(_ context.Context, in order) (agenttool.ToolResult, error) {
		if in.Item == "" && in.Quantity == 0 {
			return agenttool.OK("empty"), nil
		}
		return agenttool.OK(in.Item), nil
	}, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		res, err := tool.Execute(context.Background(), json.RawMessage(args))
		if err != nil {
			t.Fatalf("Execute(%q) returned Go error %v", args, err)
		}
		if res.Success {
			var m map[string]json.RawMessage
			if json.Unmarshal(args, &m) != nil || m == nil {
				t.Fatalf("Execute(%q) succeeded on arguments that are not a JSON object", args)
			}
			if _, ok := m["item"]; !ok {
				t.Fatalf("Execute(%q) succeeded without the required item", args)
			}
			return
		}
		if res.Error == "" || strings.Contains(res.Error, "map[") || strings.Contains(res.Error, "&{") {
			t.Fatalf("Execute(%q) error %q is empty or shows Go values", args, res.Error)
		}
	})
}
