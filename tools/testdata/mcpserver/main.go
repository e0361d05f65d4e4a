// Command mcpserver is the stdio MCP server of package tools' tests: its
// one tool, bump, appends a line to the file named by its first argument
// (the side-effect counter) and answers how many lines it holds.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type bumpArgs struct {
	Note string `json:"note" jsonschema:"what to write down"`
}

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: mcpserver COUNTER_FILE")
	}
	file := os.Args[1]
	s := mcp.NewServer(&mcp.Implementation{Name: "counter", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "bump", Description: "write a note down and count the notes"},
		func(ctx context.Context, req *mcp.CallToolRequest, in bumpArgs) (*mcp.CallToolResult, any, error) {
			f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return nil, nil, err
			}
			fmt.Fprintln(f, in.Note)
			f.Close()
			b, _ := os.ReadFile(file)
			n := strings.Count(string(b), "\n")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d notes", n)}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
