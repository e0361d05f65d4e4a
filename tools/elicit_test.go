package tools

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askServer is an MCP server whose one tool, ask, asks its client a
// question through elicitation when the client declared the capability
// (as an input request of its result from protocol 2026-07-28, an
// elicitation/create request before), and says "no elicitation"
// otherwise.
func askServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if p := req.Session.InitializeParams(); p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no elicitation"}}}, nil, nil
		}
		form := &mcp.ElicitParams{Message: "which region?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"region": map[string]any{"type": "string"}}}}
		res, answered := req.Params.InputResponses["region"].(*mcp.ElicitResult)
		if !answered && req.Session.InitializeParams().ProtocolVersion >= "2026-07-28" {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"region": form}}, nil, nil
		}
		var err error
		if !answered {
			res, err = req.Session.Elicit(ctx, form)
		}
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action + " " + res.Content["region"].(string)}}}, nil, nil
	})
	return srv
}

func askText(t *testing.T, b *Box) string {
	t.Helper()
	s, err := b.session(context.Background(), "asker")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// A box that can answer elicitations declares the capability, and a
// server's question reaches Elicit; one that cannot declares none.
func TestBoxDeclaresElicitationWhereItCanAnswer(t *testing.T) {
	var asked string
	b := NewBox(Options{Servers: map[string]*mcp.Server{"asker": askServer()},
		Elicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			asked = p.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"region": "eu-west"}}, nil
		}})
	defer b.Close()
	if got := askText(t, b); got != "accept eu-west" || asked != "which region?" {
		t.Errorf("with Elicit: tool said %q, asked %q; want the answer to the server's question", got, asked)
	}
	plain := NewBox(Options{Servers: map[string]*mcp.Server{"asker": askServer()}})
	defer plain.Close()
	if got := askText(t, plain); got != "no elicitation" {
		t.Errorf("without Elicit: tool said %q, want no elicitation capability declared", got)
	}
}
