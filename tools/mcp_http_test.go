package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An MCP server over streamable HTTP, named by a url in .mcp.json, with
// the configured headers on every request.
func TestHTTPMCPSession(t *testing.T) {
	f := mcpFixture(t)
	var bumps atomic.Int64
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "bump", Description: "write a note down and count the notes"},
		func(ctx context.Context, req *mcp.CallToolRequest, in bumpArgs) (*mcp.CallToolResult, any, error) {
			n := bumps.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d notes", n)}}}, nil, nil
		})
	var unauthorized atomic.Int64
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer notes-key" {
			unauthorized.Add(1)
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer hs.Close()
	t.Setenv("NOTES_KEY", "notes-key")
	conf, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"notes": map[string]any{
		"url": hs.URL, "headers": map[string]string{"Authorization": "Bearer ${NOTES_KEY}"}}}})
	must(t, os.WriteFile(filepath.Join(f.dir, ".mcp.json"), conf, 0o644))
	model := scriptNotes(t)
	checkNotesRun(t, f, f.options(model), model, func() int { return int(bumps.Load()) })
	if n := unauthorized.Load(); n != 0 {
		t.Errorf("%d requests came without the configured header", n)
	}
}
