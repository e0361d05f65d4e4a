package mcpserve

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/internal/testenv"
)

// The run tool's input becomes the request prose run would make: a list
// slot one binding each in order, config as text (strings verbatim), the
// inputs as one JSON object.
func TestRequestFromRunInput(t *testing.T) {
	r, err := request(RunInput{File: "x.prose.md",
		Slots:  map[string]any{"worker": "exec:./w.sh", "delegates": []any{"exec:./a.sh", "llm"}},
		Config: map[string]any{"max_steps": float64(3), "mode": "fast"},
		Inputs: map[string]any{"task_brief": "ship", "n": float64(2)}})
	if err != nil {
		t.Fatal(err)
	}
	want := []bind.Assignment{{Name: "delegates", Value: "exec:./a.sh"}, {Name: "delegates", Value: "llm"}, {Name: "worker", Value: "exec:./w.sh"}}
	if len(r.Bindings.Slots) != 3 || r.Bindings.Slots[0] != want[0] || r.Bindings.Slots[1] != want[1] || r.Bindings.Slots[2] != want[2] {
		t.Errorf("slots %v, want %v", r.Bindings.Slots, want)
	}
	if c := r.Bindings.Config; len(c) != 2 || c[0].Value != "3" || c[1].Value != "fast" {
		t.Errorf("config %v", c)
	}
	if r.Bindings.InputJSON != `{"n":2,"task_brief":"ship"}` {
		t.Errorf("inputs %s", r.Bindings.InputJSON)
	}
	for _, bad := range []RunInput{{}, {File: "x", Slots: map[string]any{"w": 3.0}}, {File: "x", Slots: map[string]any{"w": []any{1.0}}}} {
		if _, err := request(bad); err == nil {
			t.Errorf("request(%+v): no error", bad)
		}
	}
}

// A handler that panics answers with an error naming the tool.
func TestSafeTurnsAPanicIntoAnError(t *testing.T) {
	h := safe(func(context.Context, *mcp.CallToolRequest, Empty) (*mcp.CallToolResult, Empty, error) {
		panic("a bug")
	})
	_, _, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "boom"}}, Empty{})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err %v: want an internal error naming the tool", err)
	}
}

// graph wires a project: the digest fixture's one edge, bound by name.
func TestGraphTool(t *testing.T) {
	root := testenv.MustRoot(t)
	s := New(Options{RunDir: t.TempDir(), Dir: root})
	defer s.Close()
	_, out, err := s.graph(context.Background(), nil, GraphInput{Path: filepath.Join(root, "testdata", "world", "digest")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(out.Graph)
	if !strings.Contains(string(b), `"subscriber":"digest"`) || !strings.Contains(string(b), `"producer":"signals"`) {
		t.Errorf("graph %s: want digest subscribed to signals", b)
	}
	if _, _, err := s.graph(context.Background(), nil, GraphInput{Path: filepath.Join(root, "no-such-dir")}); err == nil {
		t.Error("graph of a missing path: no error")
	}
}
