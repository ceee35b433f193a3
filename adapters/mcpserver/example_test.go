package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/mcpserver"
)

func ExampleNew() {
	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	if err != nil {
		panic(err)
	}
	server, err := mcpserver.New(reg, &mcpserver.Options{Version: "v1.0.0"})
	if err != nil {
		panic(err)
	}

	// An MCP client over an in-memory connection; on stdio a server would
	// use mcpserver.NewStreamTransport(os.Stdin, os.Stdout), as `agenttool
	// mcp` does.
	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT, nil)
	if err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		panic(err)
	}
	defer func() { _ = cs.Close(); _ = ss.Wait() }()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(tools.Tools[0].Name)
	for _, args := range []string{`{"seconds":0}`, `{"seconds":-1}`} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(args)})
		if err != nil {
			panic(err)
		}
		fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// sleep
	// false Slept for 0 second(s).
	// true "seconds" must be an integer from 0 to 86400, got -1
}
