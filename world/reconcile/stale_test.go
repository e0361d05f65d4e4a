package reconcile_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// Stale lists the nodes a drain would render because their sources moved
// (a contract edited, a node added), and writes nothing: the index and
// the ledgers are as they were. A node whose render failed with the key
// it has now is not stale (nothing moved; the next drain retries it).
func TestStaleIsTheScanWithoutTheDrain(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.prose.md", "---\nname: a\nkind: responsibility\n---\n\n# A\n\n### Maintains\n\n- `x`: a value\n")
	const b = "---\nname: b\nkind: responsibility\n---\n\n# B\n\n### Requires\n\n- `x`: the value from `a`\n\n### Maintains\n\n- `y`: a value\n"
	write("b.prose.md", b)
	stateDir := filepath.Join(t.TempDir(), "world")
	r := &seen{answers: map[string]any{"a": map[string]any{"x": 1}, "b": map[string]any{"y": 2}}, reqs: map[string]*reconcile.Request{}}
	opts := func() reconcile.Options { return loadedOptions(t, dir, stateDir, r) }
	stale := func() string {
		t.Helper()
		o := opts()
		index, _ := os.ReadFile(o.Store.IndexPath())
		got, err := reconcile.Stale(o)
		if err != nil {
			t.Fatal(err)
		}
		if after, _ := os.ReadFile(o.Store.IndexPath()); string(after) != string(index) {
			t.Error("Stale wrote the drain index")
		}
		var out []string
		for _, s := range got {
			out = append(out, s.Node+": "+s.Why)
		}
		return strings.Join(out, "\n")
	}
	// moved is SourcesMoved, the look of a reader given no bindings.
	moved := func() string {
		t.Helper()
		o := opts()
		index, _ := os.ReadFile(o.Store.IndexPath())
		got, err := reconcile.SourcesMoved(o.Graph, o.Store)
		if err != nil {
			t.Fatal(err)
		}
		if after, _ := os.ReadFile(o.Store.IndexPath()); string(after) != string(index) {
			t.Error("SourcesMoved wrote the drain index")
		}
		var out []string
		for _, s := range got {
			out = append(out, s.Node+": "+s.Why)
		}
		return strings.Join(out, "\n")
	}
	drain := func() *reconcile.Result {
		t.Helper()
		res, err := reconcile.Drain(context.Background(), opts())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if got := stale(); !strings.Contains(got, "a: it has no receipt") || !strings.Contains(got, "b: it has no receipt") {
		t.Fatalf("before any drain: %q, want a and b, without receipts", got)
	}
	if got := moved(); !strings.Contains(got, "a: it has no receipt") || !strings.Contains(got, "b: it has no receipt") {
		t.Fatalf("SourcesMoved before any drain: %q, want a and b, without receipts", got)
	}
	drain()
	if got := stale(); got != "" {
		t.Fatalf("after a drain: %q, want nothing stale", got)
	}
	if got := moved(); got != "" {
		t.Fatalf("SourcesMoved after a drain: %q, want nothing", got)
	}
	write("b.prose.md", strings.Replace(b, "- `y`: a value", "- `y`: a value, counted", 1))
	if got := stale(); !strings.HasPrefix(got, "b: its contract") || strings.Contains(got, "\n") {
		t.Fatalf("after b's contract moved: %q, want b, its contract", got)
	}
	if got := moved(); !strings.HasPrefix(got, "b: its contract") || strings.Contains(got, "\n") {
		t.Fatalf("SourcesMoved after b's contract moved: %q, want b, its contract", got)
	}
	rs, _ := opts().Store.Receipts("")
	if res := drain(); res.Rendered != 1 {
		t.Fatalf("the drain after the edit rendered %d, want 1", res.Rendered)
	}
	if after, _ := opts().Store.Receipts(""); len(after) != len(rs)+1 {
		t.Fatalf("receipts %d after the drain, %d before: Stale committed something", len(after), len(rs))
	}
	// c is new; its render fails (the renderer has no answer for it).
	write("c.prose.md", "---\nname: c\nkind: responsibility\n---\n\n# C\n\n### Maintains\n\n- `z`: a value\n")
	if got := stale(); !strings.HasPrefix(got, "c: it has no receipt") {
		t.Fatalf("after c was added: %q, want c, new", got)
	}
	if res := drain(); res.Failed != 1 {
		t.Fatalf("c's drain failed %d, want 1", res.Failed)
	}
	if got := stale(); got != "" {
		t.Fatalf("after c failed with nothing moved since: %q, want nothing stale", got)
	}
	// b no longer reads a; a is removed.
	write("b.prose.md", strings.Replace(strings.Replace(b, "- `y`: a value", "- `y`: a value, counted", 1), "### Requires\n\n- `x`: the value from `a`\n\n", "", 1))
	if err := os.Remove(filepath.Join(dir, "a.prose.md")); err != nil {
		t.Fatal(err)
	}
	if got := moved(); !strings.Contains(got, "b: its contract changed") || !strings.Contains(got, "a: it is not in the project any more") {
		t.Fatalf("SourcesMoved after a was removed: %q, want b's contract and a, gone", got)
	}
	if got := stale(); !strings.HasPrefix(got, "b: its contract") {
		t.Fatalf("after a was removed: %q, want b, its contract", got)
	}
}

// A scan record written before it held the spec's fingerprint is derived
// again by the next drain, which records it: from then on a reader given
// no bindings sees a contract edit.
func TestScanRecordGainsItsSpec(t *testing.T) {
	dir := t.TempDir()
	const a = "---\nname: a\nkind: responsibility\n---\n\n# A\n\n### Maintains\n\n- `x`: a value\n"
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "a.prose.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(a)
	stateDir := filepath.Join(t.TempDir(), "world")
	r := &seen{answers: map[string]any{"a": map[string]any{"x": 1}}, reqs: map[string]*reconcile.Request{}}
	opts := func() reconcile.Options { return loadedOptions(t, dir, stateDir, r) }
	for range 2 { // a render, then a drain that settles a
		if _, err := reconcile.Drain(context.Background(), opts()); err != nil {
			t.Fatal(err)
		}
	}
	// The record as written before: no spec.
	st := opts().Store
	if err := st.Extend(nil); err != nil {
		t.Fatal(err)
	}
	sd, err := st.Standing("a")
	if err != nil || sd.Scan == nil || sd.Scan.Spec == "" {
		t.Fatalf("a's record after two drains: %+v %v, want one with its spec", sd.Scan, err)
	}
	old := *sd.Scan
	old.Spec = ""
	st.SetScan("a", &old)
	if err := st.SaveIndex(); err != nil {
		t.Fatal(err)
	}
	if _, err := reconcile.Drain(context.Background(), opts()); err != nil {
		t.Fatal(err)
	}
	write(strings.Replace(a, "- `x`: a value", "- `x`: a value, counted", 1))
	o := opts()
	got, err := reconcile.SourcesMoved(o.Graph, o.Store)
	if err != nil || len(got) != 1 || got[0].Node != "a" || !strings.Contains(got[0].Why, "contract") {
		t.Fatalf("SourcesMoved after a's contract moved: %+v %v, want a, its contract", got, err)
	}
}

// loadedOptions are the options of a drain of the project in dir, loaded
// anew, over the store at stateDir opened anew, every node rendered by r.
func loadedOptions(t *testing.T, dir, stateDir string, r reconcile.Renderer) reconcile.Options {
	t.Helper()
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	st, err := store.Open(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	return reconcile.Options{Graph: g, Store: st, Renderer: func(*graph.Node) (reconcile.Renderer, error) { return r, nil }}
}
