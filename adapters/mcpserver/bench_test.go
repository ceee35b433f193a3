package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/mcpserver"
)

// BenchmarkCallTool compares one tools/call over the SDK's in-memory
// transport through mcpserver (sleep 0, in a Turn) with the same SDK call of
// a bare no-op tool registered directly.
func BenchmarkCallTool(b *testing.B) {
	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	if err != nil {
		b.Fatal(err)
	}
	bare := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	bare.AddTool(&mcp.Tool{Name: "noop", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	cases := []struct {
		name   string
		server *mcp.Server
		params *mcp.CallToolParams
	}{
		{"agenttool-sleep0", mustNew(b, reg), &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"seconds":0}`)}},
		{"baseline-sdk-noop", bare, &mcp.CallToolParams{Name: "noop", Arguments: json.RawMessage(`{"seconds":0}`)}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			serverT, clientT := mcp.NewInMemoryTransports()
			ss, err := tc.server.Connect(ctx, serverT, nil)
			if err != nil {
				b.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, clientT, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, tc.params)
				if err != nil || res.IsError {
					b.Fatal(res, err)
				}
			}
			b.StopTimer()
			_ = cs.Close()
			_ = ss.Wait()
		})
	}
}

func mustNew(b *testing.B, reg *agenttool.Registry) *mcp.Server {
	b.Helper()
	server, err := mcpserver.New(reg, &mcpserver.Options{Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	return server
}
