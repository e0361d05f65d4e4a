package render_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// counted is an exec: binding of a program that appends its stdin (one
// line per call) to a log and prints out; calls reads the log back.
func counted(t *testing.T, out string) (binding string, calls func() []string) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	p := filepath.Join(dir, "fn.sh")
	script := "#!/bin/sh\n{ cat; echo; } >>'" + log + "'\ncat <<'EOF'\n" + out + "\nEOF\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "exec:" + p, func() []string {
		b, _ := os.ReadFile(log)
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
		return lines
	}
}

// suiteTruths are constant truths of the basic-unit-suite's nodes other
// than alert-projection.
var suiteTruths = map[string]string{
	"counter-events":     `{"counts": {"high_water_mark": 7, "counts_by_kind": {"click": 7}}, "raw_events": {"accepted_event_ids": ["e1"]}, "last_seen_at": "e1"}`,
	"count-summary":      `{"structured": {"total": 7, "by_kind": {"click": 7}, "threshold_crossed": true}, "explanation": "7 events"}`,
	"count-trend":        `{"structured": {"current_total": 7, "previous_total": 0, "direction": "up"}, "valid_until": "2999-01-01T00:00:00Z"}`,
	"raw-event-auditor":  `{"structured": {"accepted_event_ids": ["e1"], "duplicate_event_ids": [], "malformed_events": []}}`,
	"alert-state":        `{"status": "alert", "threshold": 5, "evidence_refs": []}`,
	"executive-snapshot": `{"status": "alert", "total": 7, "audit_health": "ok", "trend": "up", "evidence_refs": []}`,
}

// U07 of upstream's basic-unit-suite, "runs inside the render":
// alert-projection's Execution says `call format-alert-copy`; its model
// render is offered the function as a tool, calls it, the function runs
// (bound to a program by alert-projection.format-alert-copy), its value
// goes back to the model, and the truth published holds what it
// returned. The function is no node: it has no receipt and no truth, and
// its call is counted in the render's cost.
func TestModelRenderCallsFunction(t *testing.T) {
	g, diags, err := graph.Load(testenv.Corpus015(t, "examples/basic-unit-suite"))
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	if g.Node("format-alert-copy") != nil {
		t.Fatal("format-alert-copy is a node")
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "world"))
	if err != nil {
		t.Fatal(err)
	}
	fn, calls := counted(t, `{"subject": "ALERT at threshold 5", "body": "The counter crossed 5."}`)
	srv := llmtest.NewServer(t,
		llmtest.Call("format-alert-copy", map[string]any{"AlertState": map[string]any{"status": "alert", "threshold": 5}}),
		llmtest.JSON(map[string]any{
			"structured_summary": map[string]any{"status": "alert", "threshold": 5, "subject": "ALERT at threshold 5"},
			"markdown":           "# ALERT at threshold 5", "html": "<h1>ALERT at threshold 5</h1>", "projection_hash": "h1",
		}),
	)
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "test-model", APIKey: "k", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	model := &render.Model{Client: c, Slots: []bind.Assignment{{Name: "format-alert-copy", Value: fn}}}
	// Every program is written before the drain starts any: a script
	// written while another render forks can be held open for writing by
	// the child, and its exec then fails (ETXTBSY).
	progs := map[string]string{}
	for id, truth := range suiteTruths {
		progs[id] = printer(t, id, truth)
	}
	res, err := reconcile.Drain(context.Background(), reconcile.Options{
		Graph: g, Store: st,
		Events: map[string][]any{"counter-events": {map[string]any{"id": "e1", "kind": "click", "value": 7}}},
		Renderer: func(n *graph.Node) (reconcile.Renderer, error) {
			if n.ID == "alert-projection" {
				return model, nil
			}
			return render.Parse(progs[n.ID])
		},
		Now: func() time.Time { return time.Unix(0, 0) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rendered != 7 || res.Failed != 0 {
		t.Errorf("rendered %d, failed %d, want the 7 nodes rendered", res.Rendered, res.Failed)
		for _, r := range res.Receipts {
			if r.Status == receipt.Failed {
				t.Logf("%s failed: %s", r.Node, r.Reason)
			}
		}
	}
	var proj *receipt.Receipt
	for _, r := range res.Receipts {
		if r.Node == "format-alert-copy" {
			t.Errorf("the function has a receipt: %+v", r)
		}
		if r.Node == "alert-projection" {
			proj = r
		}
	}
	if proj == nil || proj.Status != receipt.Rendered {
		t.Fatalf("alert-projection: %+v", proj)
	}
	// The function ran once, with the arguments the model wrote.
	if got := calls(); len(got) != 1 || !strings.Contains(got[0], `"AlertState"`) || !strings.Contains(got[0], `"threshold":5`) {
		t.Fatalf("function calls: %q", got)
	}
	// Counted: one program, two model requests.
	if proj.Cost.Programs != 1 || proj.Cost.Requests != 2 {
		t.Errorf("cost %+v, want 1 program and 2 requests", proj.Cost)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if got := reqs[0].Tools(); !reflect.DeepEqual(got, []string{"format-alert-copy"}) {
		t.Errorf("tools offered: %q", got)
	}
	if !strings.Contains(string(reqs[0].Body), `"AlertState"`) {
		t.Errorf("the tool's parameters do not name AlertState:\n%s", reqs[0].Body)
	}
	var toolResult string
	for _, m := range reqs[1].Messages() {
		if m.Role == "tool" {
			toolResult += m.Content
		}
	}
	if !strings.Contains(toolResult, "ALERT at threshold 5") {
		t.Errorf("the model was not given the function's value: %q", toolResult)
	}
	b, err := os.ReadFile(st.TruthPath("alert-projection"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "ALERT at threshold 5") {
		t.Errorf("truth:\n%s", b)
	}
	if _, err := os.Stat(st.TruthPath("format-alert-copy")); err == nil {
		t.Error("the function has a truth")
	}
}

// tagProject is releaseProject whose release-board names the function
// tag-name (a sibling file with a ProseScript Execution) in an Execution
// that is not ProseScript.
func tagProject(t *testing.T, board reconcile.Renderer) *releases {
	dir := t.TempDir()
	files := map[string]string{}
	for name, text := range releaseProject {
		files[name] = text
	}
	files["release-board.prose.md"] = "---\nname: release-board\nkind: responsibility\n---\n\n# Release board\n\n### Requires\n\n- `version`: the latest release\n\n### Maintains\n\n- `board`: what the board shows\n\n### Execution\n\nName the release: call `tag-name` with the version, and show its tag.\n"
	files["tag-name.prose.md"] = "---\nname: tag-name\nkind: function\n---\n\n# Tag name\n\nThe tag of a release version.\n\n### Parameters\n\n- `version`: the release version\n\n### Returns\n\n- `tag`: the tag\n\n### Execution\n\n```prose\nreturn { tag: \"v{version}\" }\n```\n"
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "world"))
	if err != nil {
		t.Fatal(err)
	}
	return &releases{t: t, g: g, st: st, board: board}
}

// toolResults are the contents of the "tool" messages of a request.
func toolResults(r llmtest.Request) []string {
	var out []string
	for _, m := range r.Messages() {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

// An unbound function runs its own Execution; a call of a tool the node
// does not name is refused and runs nothing; arguments that are not the
// function's parameters are an error the model reads; each model request
// is counted.
func TestModelRenderFunctionExecutionRefusalAndArguments(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Call("tag-name", map[string]any{"version": "1.2"}, llmtest.ToolCall{Name: "remove-all", Arguments: `{}`}),
		llmtest.Call("tag-name", map[string]any{"release": "1.2"}),
		llmtest.JSON(map[string]any{"board": "release v1.2"}),
	)
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "test-model", APIKey: "k", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := tagProject(t, &render.Model{Client: c})
	got := r.drain()
	if b := got["release-board"]; b == nil || b.Status != receipt.Rendered || b.Cost.Requests != 3 {
		t.Fatalf("board: %+v", b)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	first := toolResults(reqs[1])
	if len(first) != 2 || !strings.Contains(first[0], `"tag":"v1.2"`) || !strings.Contains(first[1], "refused: remove-all is not a function this node names") {
		t.Errorf("first tool results: %q", first)
	}
	second := toolResults(reqs[2])
	if len(second) != 3 || !strings.Contains(second[2], "tag-name needs the argument version (its parameters: version)") {
		t.Errorf("second tool results: %q", second)
	}
	if got := r.truth("release-board"); !strings.Contains(got, "release v1.2") {
		t.Errorf("truth: %s", got)
	}
}

// A model that goes on calling functions fails the render at the bound
// of its model requests, naming it; nothing is published.
func TestModelRenderFunctionCallsBounded(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "tag-name", Arguments: `{"version": "1.2"}`}}, Times: -1})
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "test-model", APIKey: "k", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := tagProject(t, &render.Model{Client: c, MaxTurns: 2})
	b := r.drain()["release-board"]
	if b == nil || b.Status != receipt.Failed || !strings.Contains(b.Reason, "--max-turns=2") || b.Cost.Requests != 2 {
		t.Fatalf("board: %+v", b)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if got := r.truth("release-board"); got != "" {
		t.Errorf("a truth was published: %s", got)
	}
}
