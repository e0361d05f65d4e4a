package render_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// priorDir is the project of six Executions that read their own truth,
// each in one of the forms: a Maintains field by name (event-tally), a
// Maintains field passed on as `prior-controls: controls`
// (controls-register), read_world_model("self") (high-water),
// read_world_model of another node and of its own id (tally-trend), a
// `####` facet by name (round-digest), and a Requires item naming its own
// world model (status-board).
func priorDir(t *testing.T) string {
	return filepath.Join(testenv.MustRoot(t), "testdata", "world", "prior")
}

func TestPriorReadersLintClean(t *testing.T) {
	res, err := lint.Paths([]string{priorDir(t)}, lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 7 || len(res.Diags) != 0 {
		t.Errorf("lint: %d files, findings:\n%s", res.Files, res.Diags)
	}
	g, diags, err := graph.Load(priorDir(t))
	if err == nil {
		// The drains below give these two inputs as a caller does.
		diags = g.Given(diags, func(node, input string) bool {
			return node == "event-tally" && input == "batch" || node == "controls-register" && input == "findings"
		})
	}
	if err != nil || len(diags) != 0 {
		t.Fatalf("graph: %v %s", err, diags)
	}
	var read *graph.Edge
	for _, e := range g.Edges {
		if e.Rule == "read" {
			read = e
		}
	}
	if read == nil || read.Subscriber != "tally-trend" || read.Producer != "event-tally" || read.Facet != graph.Atomic || read.Pos.Line != 21 {
		t.Errorf("the read of event-tally draws no edge at its line: %+v", read)
	}
	for _, e := range g.Edges {
		if e.Producer == e.Subscriber {
			t.Errorf("a read of its own truth drew an edge: %+v", e)
		}
	}
}

type priorRun struct {
	t  *testing.T
	g  *graph.Graph
	st *store.Store
}

func (p *priorRun) drain(batch, findings []any) *reconcile.Result {
	p.t.Helper()
	res, err := reconcile.Drain(context.Background(), reconcile.Options{
		Graph: p.g, Store: p.st,
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return &render.Execution{}, nil },
		CallerInputs: map[string]map[string]any{
			"event-tally":       {"batch": batch},
			"controls-register": {"findings": findings},
		},
		Now: func() time.Time { return time.Unix(0, 0) },
	})
	if err != nil {
		p.t.Fatal(err)
	}
	for _, r := range res.Receipts {
		if r.Status == receipt.Failed {
			p.t.Errorf("%s failed: %s", r.Node, r.Reason)
		}
	}
	return res
}

func (p *priorRun) truth(node string) string {
	p.t.Helper()
	r, err := p.st.Last(node)
	if err != nil || r == nil {
		p.t.Fatal(node, err)
	}
	v, err := p.st.Version(node, r.Version)
	if err != nil {
		p.t.Fatal(err)
	}
	b, err := canon.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	return string(b)
}

// Each Execution sees null on a cold start and its prior truth after;
// unchanged inputs start nothing.
func TestPriorReadersRun(t *testing.T) {
	g, _, err := graph.Load(priorDir(t))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "world"))
	if err != nil {
		t.Fatal(err)
	}
	p := &priorRun{t: t, g: g, st: st}
	if res := p.drain([]any{"a"}, []any{"mfa", "backup"}); res.Rendered != 6 {
		t.Fatalf("cold start rendered %d, want 6", res.Rendered)
	}
	cold := map[string]string{
		"event-tally":       `{"last_batch":1,"total":1}`,
		"controls-register": `{"controls":["mfa","backup"]}`,
		"high-water":        `{"mark":1}`,
		"tally-trend":       `{"direction":"flat","seen_total":1}`,
		"round-digest":      `{"history":{"directions":["flat"]},"latest":{"direction":"flat"}}`,
		"status-board":      `{"changes":0,"level":"low"}`,
	}
	for n, want := range cold {
		if got := p.truth(n); got != want {
			t.Errorf("cold %s = %s, want %s", n, got, want)
		}
	}
	p.drain([]any{"b", "c", "d"}, []any{"audit", "mfa"})
	warm := map[string]string{
		"event-tally":       `{"last_batch":3,"total":4}`,
		"controls-register": `{"controls":["mfa","backup","audit"]}`,
		"high-water":        `{"mark":3}`,
		"tally-trend":       `{"direction":"up","seen_total":4}`,
		"round-digest":      `{"history":{"directions":["flat","up"]},"latest":{"direction":"up"}}`,
		"status-board":      `{"changes":1,"level":"high"}`,
	}
	for n, want := range warm {
		if got := p.truth(n); got != want {
			t.Errorf("second %s = %s, want %s", n, got, want)
		}
	}
	// A smaller round: high-water keeps its prior mark, so status-board
	// does not render; the trend stays up, so the digest does not either.
	res := p.drain([]any{"e"}, []any{"audit", "mfa"})
	if got := p.truth("high-water"); got != `{"mark":3}` {
		t.Errorf("high-water dropped its prior mark: %s", got)
	}
	var rendered []string
	for _, r := range res.Receipts {
		if r.Status == receipt.Rendered {
			rendered = append(rendered, r.Node)
		}
	}
	if got := strings.Join(rendered, " "); got != "event-tally high-water tally-trend" {
		t.Errorf("third drain rendered %q", got)
	}
	if res := p.drain([]any{"e"}, []any{"audit", "mfa"}); len(res.Receipts) != 0 || res.Programs != 0 {
		t.Errorf("unchanged inputs: %d receipts, %d programs", len(res.Receipts), res.Programs)
	}
}

// A read of a node that does not exist is unsatisfied at the string.
func TestWorldReadUnknownNode(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"event-tally.prose.md", "tally-trend.prose.md"} {
		b, err := os.ReadFile(filepath.Join(priorDir(t), f))
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.Replace(string(b), `read_world_model("event-tally")`, `read_world_model("event-tallly")`, -1))
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, diags, err := graph.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := `tally-trend.prose.md:21:30: error: read_world_model("event-tallly") of tally-trend: no node is "event-tallly"; did you mean "event-tally"? [graph/unsatisfied]`
	if got := diags.String(); !strings.Contains(got, want) {
		t.Errorf("diagnostics:\n%s\nwant %s", got, want)
	}
}
