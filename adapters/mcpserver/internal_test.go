package mcpserver

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestAddToolRefusalIsAnError: the SDK panics on a tool it refuses;
// Register must return an error instead.
func TestAddToolRefusalIsAnError(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	noop := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	err := addTool(server, &mcp.Tool{Name: "x"}, noop)
	require.ErrorContains(t, err, `the MCP SDK refuses tool "x"`)
	err = addTool(server, &mcp.Tool{Name: "y", InputSchema: map[string]any{"type": "string"}}, noop)
	require.ErrorContains(t, err, `refuses tool "y"`)
	require.NoError(t, addTool(server, &mcp.Tool{Name: "z", InputSchema: map[string]any{"type": "object"}}, noop))
}
