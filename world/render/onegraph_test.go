package render_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// copyOneGraph copies testdata/world/onegraph (two responsibilities
// whose Executions run on the interpreter, one fed by the other and
// reading its own prior truth, both calling a sibling function file) to
// a new directory, and returns it and the names of its files.
func copyOneGraph(t *testing.T) (string, []string) {
	t.Helper()
	src := filepath.Join(testenv.MustRoot(t), "testdata", "world", "onegraph")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var names []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name())
	}
	if len(names) != 3 {
		t.Fatalf("%s holds %d files, want 3", src, len(names))
	}
	return dir, names
}

// A drain of two Execution nodes reads each spec file once: the node
// files, and the sibling both call; the renders' runs load from the
// drain's spec graph. Each render's run is journaled beside the store,
// named by its receipt, and replays from that journal (its
// read_world_model too).
func TestDrainReadsEachSpecOnce(t *testing.T) {
	dir, names := copyOneGraph(t)
	state := filepath.Join(t.TempDir(), "world")
	st, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	opens := testenv.WatchOpens(t, dir)
	g, diags, err := graph.LoadWith(dir, specgraph.New(specgraph.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	diags = g.Given(diags, func(node, input string) bool { return node == "source" && input == "batch" })
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	d := &render.Drain{Specs: g.Specs, State: state}
	res, err := reconcile.Drain(context.Background(), reconcile.Options{
		Graph: g, Store: st,
		Renderer:     func(*graph.Node) (reconcile.Renderer, error) { return &render.Execution{Drain: d}, nil },
		CallerInputs: map[string]map[string]any{"source": {"batch": []any{"a", "b", "a"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rendered != 2 {
		for _, r := range res.Receipts {
			t.Logf("%s %s %s", r.Node, r.Status, r.Reason)
		}
		t.Fatalf("rendered %d of 2", res.Rendered)
	}
	got := opens()
	for _, name := range names {
		if got[name] != 1 {
			t.Errorf("%s opened %d times in a drain, want once (all opens: %v)", name, got[name], got)
		}
	}

	for _, node := range []string{"source", "board"} {
		r, err := st.Last(node)
		if err != nil || r == nil || r.Status != receipt.Rendered {
			t.Fatalf("%s: %v %+v", node, err, r)
		}
		if r.Run != "drain-1" {
			t.Errorf("%s's receipt names the run %q, want drain-1", node, r.Run)
		}
		runs := store.RunsDir(state, node)
		if _, err := os.Stat(filepath.Join(runs, r.Run, "journal.jsonl")); err != nil {
			t.Errorf("%s: no journal of its render: %v", node, err)
		}
		// The journal keeps the sources the render's run reached (its
		// node and merge), not every file of the drain's graph.
		kept, err := os.ReadDir(filepath.Join(runs, r.Run, journal.SourcesDir))
		if err != nil || len(kept) != 2 {
			t.Errorf("%s's journal keeps %d sources, want 2 (%v)", node, len(kept), err)
		}
		rep, err := run.Replay(context.Background(), r.Run, run.Options{RunDir: runs})
		if err != nil {
			t.Fatalf("replay of %s's render: %v", node, err)
		}
		if rep.Answered == 0 || rep.Answered != rep.Calls {
			t.Errorf("replay of %s's render: %d of %d calls answered from the journal", node, rep.Answered, rep.Calls)
		}
		js, _ := rep.JSON()
		if want := map[string]string{"source": `"names":["a","b"]`, "board": `"shown":["a","b"]`}[node]; !strings.Contains(string(js), want) {
			t.Errorf("replay of %s's render gave %s, want %s", node, js, want)
		}
	}
}

// A render whose run fails keeps its journal too: the failed receipt
// names it, and a replay gives the same failure.
func TestFailedRenderNamesItsJournal(t *testing.T) {
	dir := t.TempDir()
	src := "---\nname: broken\nkind: responsibility\n---\n\n# Broken\n\n### Maintains\n\n- `v`: a value\n\n### Execution\n\n```prose\nthrow \"no data\"\n```\n\n### Continuity\n\nself-driven\n"
	if err := os.WriteFile(filepath.Join(dir, "broken.prose.md"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	g, _, err := graph.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "world")
	st, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	d := &render.Drain{Specs: g.Specs, State: state}
	res, err := reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st, Ticks: []string{"broken"},
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return &render.Execution{Drain: d}, nil }})
	if err != nil || res.Failed != 1 {
		t.Fatalf("drain: %v %+v", err, res)
	}
	r := res.Receipts[0]
	if r.Status != receipt.Failed || r.Run != "drain-1" || !strings.Contains(r.Reason, "no data") {
		t.Fatalf("receipt %s %q run %q, want a failure naming its run drain-1", r.Status, r.Reason, r.Run)
	}
	_, err = run.Replay(context.Background(), r.Run, run.Options{RunDir: store.RunsDir(state, "broken")})
	if err == nil || !strings.Contains(err.Error(), "no data") || run.CodeOf(err) == run.CodeDiverged {
		t.Errorf("replay of the failed render: %v, want its failure again", err)
	}
}
