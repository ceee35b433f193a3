package einotool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agenttool/agenttool"
)

var (
	benchArgs = `{"seconds":0}`
	sinkText  string
)

// decodeArgs is the work of an ordinary tool: decode its arguments.
func decodeArgs(args string) error {
	var in struct {
		Seconds int `json:"seconds"`
	}
	return json.Unmarshal([]byte(args), &in)
}

// einoDecode is the same tool written for eino.
type einoDecode struct{}

func (einoDecode) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "decode", Desc: "decode"}, nil
}

func (einoDecode) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	if err := decodeArgs(args); err != nil {
		return "", err
	}
	return "decoded", nil
}

// BenchmarkOneCall runs one call of an ordinary tool (it decodes
// {"seconds":0} with encoding/json) through eino's ToolsNode, the best
// peer measured, and through agenttool's Turn.Run, side by side, next to
// the tool's work alone.
func BenchmarkOneCall(b *testing.B) {
	ctx := context.Background()
	b.Run("tool-work-alone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := decodeArgs(benchArgs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("eino-toolsnode-invoke", func(b *testing.B) {
		node, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: []tool.BaseTool{einoDecode{}}})
		if err != nil {
			b.Fatal(err)
		}
		msg := &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{
			{ID: "1", Function: schema.FunctionCall{Name: "decode", Arguments: benchArgs}},
		}}
		b.ReportAllocs()
		for b.Loop() {
			out, err := node.Invoke(ctx, msg)
			if err != nil || len(out) != 1 {
				b.Fatal(out, err)
			}
			sinkText = out[0].Content
		}
	})
	b.Run("agenttool-turn-run", func(b *testing.B) {
		decode := &agenttool.FuncTool{ToolName: "decode", Schema: json.RawMessage(`{"type":"object"}`),
			Fn: func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
				if err := decodeArgs(string(args)); err != nil {
					return agenttool.ToolResult{}, err
				}
				return agenttool.OK("decoded"), nil
			}}
		reg, err := agenttool.NewRegistry(decode)
		if err != nil {
			b.Fatal(err)
		}
		calls := []agenttool.ToolCall{{ID: "1", Name: "decode", Args: json.RawMessage(benchArgs)}}
		const perTurn = 1000 // a long turn, as an agent's; a new one now and then keeps the record small
		turn := agenttool.NewTurn(ctx, reg, nil)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i++; i%perTurn == 0 {
				turn.Close()
				turn = agenttool.NewTurn(ctx, reg, nil)
			}
			blocks, err := turn.Run(calls)
			if err != nil || blocks[0].Status != agenttool.StatusSucceeded {
				b.Fatal(blocks, err)
			}
			sinkText = blocks[0].Result.Output
		}
		turn.Close()
	})
}
