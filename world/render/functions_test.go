package render_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/patterns/bind"
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
	"executive-snapshot": `{"structured": {"status": "alert"}}`,
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
	res, err := reconcile.Drain(context.Background(), reconcile.Options{
		Graph: g, Store: st,
		Events: map[string][]any{"counter-events": {map[string]any{"id": "e1", "kind": "click", "value": 7}}},
		Renderer: func(n *graph.Node) (reconcile.Renderer, error) {
			if n.ID == "alert-projection" {
				return model, nil
			}
			return render.Parse(printer(t, n.ID, suiteTruths[n.ID]))
		},
		Now: func() time.Time { return time.Unix(0, 0) },
	})
	if err != nil {
		t.Fatal(err)
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
