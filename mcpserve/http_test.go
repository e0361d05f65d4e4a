package mcpserve_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/mcpserve"
)

// Over streamable HTTP, a request the client cancels gets no response
// (its handler still returns one, which the SDK would write), while a
// request answered as usual keeps its response: checked on the raw event
// streams, as any client reads them.
func TestHTTPCancelledRequestGetsNoResponse(t *testing.T) {
	started := make(chan struct{}, 1)
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	type in struct {
		Wait bool `json:"wait,omitempty"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "work"}, func(ctx context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		if a.Wait {
			started <- struct{}{}
			<-ctx.Done()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "answered"}}}, nil, nil
	})
	ts := httptest.NewServer(mcpserve.DropCancelled(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)))
	defer ts.Close()

	session := ""
	post := func(body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp, resp.Header.Get("Mcp-Session-Id")
	}
	readAll := func(resp *http.Response) string {
		t.Helper()
		defer resp.Body.Close()
		b, err := io.ReadAll(bufio.NewReader(resp.Body))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	resp, sid := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if got := readAll(resp); !strings.Contains(got, `"id":1`) {
		t.Fatalf("initialize answered %q", got)
	}
	session = sid
	resp, _ = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	readAll(resp)

	waiting := make(chan string, 1)
	go func() {
		resp, _ := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"work","arguments":{"wait":true}}}`)
		waiting <- readAll(resp)
	}()
	<-started
	resp, _ = post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"no longer needed"}}`)
	readAll(resp)
	if got := <-waiting; strings.Contains(got, `"id":2`) || strings.Contains(got, "answered") {
		t.Errorf("the cancelled request's stream %q carries its response", got)
	}

	resp, _ = post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"work","arguments":{}}}`)
	if got := readAll(resp); !strings.Contains(got, `"id":3`) || !strings.Contains(got, "answered") {
		t.Errorf("a request not cancelled was answered %q", got)
	}
}
