package mcpserve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/llm/llmtest"
)

// askSpec is a function whose render may use the MCP server asker.
const askSpec = "---\nname: ask\nkind: function\n---\n\n# Ask\n\n### Parameters\n\n- `topic`: what to ask about\n\n" +
	"### Returns\n\n- `summary`: what was learned\n\n### Tools\n\n- `mcp:asker`: asks the person for details\n"

// askServer is an MCP server whose tool ask puts one question to its
// client by elicitation (elicitation/create: the client of a run started
// over protocol 2025-11-25), or says no elicitation when the client
// declared none.
func askServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if p := req.Session.InitializeParams(); p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no elicitation"}}}, nil, nil
		}
		form := &mcp.ElicitParams{Message: "which region?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"region": map[string]any{"type": "string"}}}}
		if res, ok := req.Params.InputResponses["region"].(*mcp.ElicitResult); ok {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action + " " + res.Content["region"].(string)}}}, nil, nil
		}
		if req.Session.InitializeParams().ProtocolVersion >= "2026-07-28" {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"region": form}}, nil, nil
		}
		res, err := req.Session.Elicit(ctx, form)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action + " " + res.Content["region"].(string)}}}, nil, nil
	})
	return srv
}

// An MCP server of a run started over prose mcp asks its question of the
// person at the agent host (a client that takes elicitations); for a host
// that takes none, prose declares no elicitation to the server.
func TestRunsMCPServerAsksTheHost(t *testing.T) {
	for _, tc := range []struct {
		name   string
		elicit bool
		want   string
	}{{"host takes elicitations", true, "accept eu-west"}, {"host takes none", false, "no elicitation"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "ask.prose.md"), []byte(askSpec), 0o644); err != nil {
				t.Fatal(err)
			}
			model := llmtest.NewServer(t, llmtest.Call("asker__ask", map[string]any{}), llmtest.JSON(map[string]any{"summary": "eu"}))
			env := map[string]string{"OPENAI_BASE_URL": model.URL, "OPENAI_API_KEY": "test-key", "PROSE_MODEL": "fake"}
			var mu sync.Mutex
			var asked []string
			var elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
			if tc.elicit {
				elicit = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					asked = append(asked, r.Params.Message)
					mu.Unlock()
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"region": "eu-west"}}, nil
				}
			}
			w := connectServer(t, New(Options{RunDir: filepath.Join(dir, "runs"), Dir: dir, Getenv: func(k string) string { return env[k] },
				MCPServers: map[string]*mcp.Server{"asker": askServer()}}), elicit, "2025-11-25")
			var out RunOutput
			if e := w.tool(t, "run", map[string]any{"file": "ask.prose.md", "inputs": map[string]any{"topic": "deploy"}, "wait_seconds": 30}, &out); e != "" {
				t.Fatal(e)
			}
			if out.Status != StatusOK {
				t.Fatalf("run %+v", out)
			}
			reqs := model.Requests()
			msgs := reqs[1].Messages()
			if last := msgs[len(msgs)-1]; !strings.Contains(last.Content, tc.want) {
				t.Errorf("the model read %q, want the server's %q", last.Content, tc.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.elicit && (len(asked) != 1 || asked[0] != "which region?") {
				t.Errorf("the host was asked %q, want the server's question", asked)
			}
		})
	}
}
