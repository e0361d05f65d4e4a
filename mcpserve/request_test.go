package mcpserve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/internal/testenv"
)

// The run tool's input becomes the request prose run would make: a list
// slot one binding each in order, config as text (strings verbatim), the
// inputs as one JSON object.
func TestRequestFromRunInput(t *testing.T) {
	r, err := request(RunInput{File: "x.prose.md",
		Slots:  map[string]any{"worker": "exec:./w.sh", "delegates": []any{"exec:./a.sh", "llm"}},
		Config: map[string]any{"max_steps": float64(3), "mode": "fast"},
		Inputs: map[string]any{"task_brief": "ship", "n": float64(2)}}, nil)
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
		if _, err := request(bad, nil); err == nil {
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

// The run tool reads inputs and config from the arguments as the client
// wrote them: an integer the decoded map would hold as a float64 is kept
// exactly, one beyond what prose holds and a member named twice are
// refused, not rounded or taken from the last.
func TestRequestKeepsTheClientsNumbers(t *testing.T) {
	args := json.RawMessage(`{"file": "x.prose.md", "inputs": {"id": 9007199254740993, "note": "a"}, "config": {"seed": 9007199254740993, "mode": "fast"}}`)
	var in RunInput
	if err := json.Unmarshal(args, &in); err != nil {
		t.Fatal(err)
	}
	r, err := request(in, args)
	if err != nil {
		t.Fatal(err)
	}
	if r.Bindings.InputJSON != `{"id": 9007199254740993, "note": "a"}` {
		t.Errorf("inputs %s", r.Bindings.InputJSON)
	}
	if c := r.Bindings.Config; len(c) != 2 || c[1].Value != "9007199254740993" || c[0].Value != "fast" {
		t.Errorf("config %v", c)
	}
	for _, bad := range []string{
		`{"file": "x.prose.md", "inputs": {"id": 12345678901234567890}}`,
		`{"file": "x.prose.md", "inputs": {"id": 1, "id": 2}}`,
	} {
		var in RunInput
		json.Unmarshal([]byte(bad), &in)
		if _, err := request(in, json.RawMessage(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// Over the protocol too: a run's input of 9007199254740993 reaches the
// program as written, and one beyond what prose holds is the tool's
// error.
func TestRunToolKeepsTheClientsNumbers(t *testing.T) {
	dir := t.TempDir()
	spec := "---\nname: echo\nkind: function\n---\n\n### Parameters\n\n- `id`: in\n\n### Returns\n\n- `out`: the same\n"
	if err := os.WriteFile(filepath.Join(dir, "echo.prose.md"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := New(Options{RunDir: filepath.Join(t.TempDir(), "runs"), Dir: dir})
	w := connectServer(t, srv, nil, "")
	var out RunOutput
	// (the program keeps what it was given: the tool's answer is read
	// back into float64s by this client)
	raw := json.RawMessage(`{"file": "echo.prose.md", "slots": {"echo": "exec:tee given.json"}, "inputs": {"id": 9007199254740993}, "wait_seconds": 30}`)
	if e := w.tool(t, "run", raw, &out); e != "" {
		t.Fatal(e)
	}
	given, err := os.ReadFile(filepath.Join(dir, "given.json"))
	if out.Status != "ok" || err != nil || !strings.Contains(string(given), "9007199254740993") {
		t.Errorf("the run ended %s; the program was given %s (%v), want the id as sent", out.Status, given, err)
	}
	bad := json.RawMessage(`{"file": "echo.prose.md", "slots": {"echo": "exec:cat"}, "inputs": {"id": 12345678901234567890}}`)
	if e := w.tool(t, "run", bad, nil); !strings.Contains(e, "12345678901234567890") {
		t.Errorf("an integer beyond int64: %q, want the tool's error naming it", e)
	}
}

// A value the host fills in, or answers a gate with, is taken from the
// arguments as the client wrote them: 9007199254740993 stays itself, a
// member named twice is refused.
func TestFilledValueKeepsTheClientsNumbers(t *testing.T) {
	req := func(args string) *mcp.CallToolRequest {
		return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "fill", Arguments: json.RawMessage(args)}}
	}
	args := `{"run_id": "r", "call": "L3", "value": {"id": 9007199254740993}}`
	var in FillInput
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		t.Fatal(err)
	}
	raw, err := exactValue(req(args), in.Value)
	if err != nil {
		t.Fatal(err)
	}
	v, err := (&hostCall{}).check(in.Value, raw)
	if got, _ := delegation.ToJSON(v); err != nil || string(got) != `{"id":9007199254740993}` {
		t.Errorf("filled %s, %v; want the id as written", got, err)
	}
	if _, err := exactValue(req(`{"value": {"a": 1, "a": 2}}`), map[string]any{"a": 2.0}); err == nil {
		t.Error("a value naming a member twice was taken")
	}
}
