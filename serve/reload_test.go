package serve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

const noteSpec = "---\nname: note\nkind: responsibility\n---\n\n# Note\n\n### Maintains\n\n- `reviewed`: true once the review has run\n"

// reloadServer serves the project in dir, reloading it as prose serve
// does (graph.Load, a drain of the same renders); outs collects every
// drain's outcome.
type reloadServer struct {
	t    *testing.T
	dir  string
	s    *Server
	st   *store.Store
	outs []*Outcome
}

func newReloadServer(t *testing.T) *reloadServer {
	return newReloadServerAfter(t, nil)
}

// newReloadServerAfter is newReloadServer that calls between (when not
// nil) with the project's directory after the graph's first load and
// before the server is made.
func newReloadServerAfter(t *testing.T, between func(dir string)) *reloadServer {
	dir := t.TempDir()
	r := &reloadServer{t: t, dir: dir}
	r.write(noteSpec)
	load := func(specs *specgraph.Graph) (*Reloaded, error) {
		g, diags, err := graph.LoadWith(dir, specs)
		if err != nil {
			return nil, err
		}
		if diags.HasErrors() {
			return nil, errors.New(strings.TrimSpace(diags.Errors().String()))
		}
		return &Reloaded{Graph: g, Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return constant{}, nil }, nil)}, nil
	}
	first, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if between != nil {
		between(dir)
	}
	if r.st, err = store.Open(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	r.s, err = New(Options{Graph: first.Graph, Drain: first.Drain, Store: r.st, Now: func() time.Time { return time.Unix(0, 0) },
		Reload: load, Drained: func(o *Outcome) { r.outs = append(r.outs, o) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.s.Close() })
	return r
}

func (r *reloadServer) write(src string) {
	if err := os.WriteFile(filepath.Join(r.dir, "note.prose.md"), []byte(src), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// wake triggers note and drains; it returns the drain's outcome.
func (r *reloadServer) wake() *Outcome {
	r.t.Helper()
	if _, _, err := r.s.Trigger("note", nil); err != nil {
		r.t.Fatal(err)
	}
	if err := r.s.DrainQueued(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	if len(r.outs) == 0 {
		r.t.Fatal("no drain finished")
	}
	return r.outs[len(r.outs)-1]
}

// An edited contract is served by the next drain: the node renders
// again because its contract fingerprint moved, without a restart.
func TestReloadEditedContract(t *testing.T) {
	r := newReloadServer(t)
	if o := r.wake(); o.Rendered != 1 || o.Reload != "" {
		t.Fatalf("first drain: rendered %d reload %q, want 1 and none", o.Rendered, o.Reload)
	}
	if o := r.wake(); o.Rendered != 0 || o.Skipped != 1 {
		t.Fatalf("unchanged: rendered %d skipped %d, want a skip", o.Rendered, o.Skipped)
	}
	before, _ := r.st.Last("note")
	r.write(noteSpec + "- `items`: what was reviewed\n")
	o := r.wake()
	if o.Reload != "reloaded" || o.Rendered != 1 || o.Error != "" {
		t.Fatalf("after the edit: reload %q rendered %d error %q, want reloaded and one render", o.Reload, o.Rendered, o.Error)
	}
	after, _ := r.st.Last("note")
	if after.Status != receipt.Rendered || after.Contract == before.Contract {
		t.Errorf("after the edit the receipt is %s with contract %s (before %s): the contract did not move", after.Status, after.Contract, before.Contract)
	}
	if o := r.wake(); o.Reload != "" || o.Skipped != 1 {
		t.Errorf("no edit since: reload %q skipped %d, want no reload and a skip", o.Reload, o.Skipped)
	}
}

// An edit that breaks the spec keeps the graph served before: the drain
// still runs and answers its trigger, the failure names the file once,
// and the fixed file is served again.
func TestReloadSpecErrorKeepsServing(t *testing.T) {
	r := newReloadServer(t)
	r.wake()
	r.write(strings.Replace(noteSpec, "name: note", "name: note\nname: again", 1))
	o := r.wake()
	if !strings.Contains(o.Reload, "kept the graph loaded before") || !strings.Contains(o.Reload, "note.prose.md") {
		t.Fatalf("after a broken edit: reload %q, want the old graph kept and the file named", o.Reload)
	}
	if o.Error != "" || o.Skipped+o.Rendered != 1 || len(o.Triggers) != 1 {
		t.Fatalf("the drain after a failed reload: error %q, %d rendered, %d skipped, %d triggers", o.Error, o.Rendered, o.Skipped, len(o.Triggers))
	}
	if st, _ := r.s.Drain(o.Drain); st != "done" {
		t.Errorf("its drain is %s, want done", st)
	}
	if !strings.Contains(o.Stale, "note.prose.md") {
		t.Errorf("the drain after a failed reload is not stale: %q", o.Stale)
	}
	for i := range 2 {
		o := r.wake()
		if o.Reload != "" {
			t.Errorf("the failure is said again as a reload without a change: %q", o.Reload)
		}
		// every later drain still serves the old graph, and says so
		if !strings.Contains(o.Stale, "failed to load") || !strings.Contains(o.Stale, "note.prose.md") {
			t.Errorf("drain %d after the failed reload: stale %q, want why the graph served is the old one", i+2, o.Stale)
		}
	}
	if !strings.Contains(r.s.Stale(), "note.prose.md") {
		t.Errorf("the server's Stale is %q while its graph is the old one", r.s.Stale())
	}
	r.write(noteSpec + "- `items`: what was reviewed\n")
	if o := r.wake(); o.Reload != "reloaded" || o.Rendered != 1 || o.Stale != "" {
		t.Errorf("after the fix: reload %q rendered %d stale %q, want reloaded, one render and no longer stale", o.Reload, o.Rendered, o.Stale)
	}
	if r.s.Stale() != "" {
		t.Errorf("after the fix the server's Stale is %q", r.s.Stale())
	}
}

// A change made between the graph's load and the server's start (an edit,
// a file added, a file removed) is seen by the first drain: the stamps
// and watches taken at the start cannot show it, so the start compares
// the files with what the load read.
func TestChangeBeforeTheServerStartsIsSeen(t *testing.T) {
	for _, c := range []struct {
		name    string
		between func(t *testing.T, dir string)
		ids     string
	}{
		{"edited", func(t *testing.T, dir string) {
			put(t, dir, "note.prose.md", strings.Replace(noteSpec, "`reviewed`", "`checked`", 1))
		}, "note"},
		{"added", func(t *testing.T, dir string) {
			put(t, dir, "a.prose.md", "---\nname: a\nkind: responsibility\n---\n\n# A\n\n### Maintains\n\n- `x`: a value\n")
		}, "a note"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newReloadServerAfter(t, func(dir string) { c.between(t, dir) })
			if o := r.wake(); o.Reload != "reloaded" {
				t.Fatalf("the first drain's reload is %q, want reloaded", o.Reload)
			}
			if got := r.ids(); got != c.ids {
				t.Fatalf("the served nodes are %q, want %q", got, c.ids)
			}
			if o := r.wake(); o.Reload != "" {
				t.Fatalf("the drain after reloads again: %q", o.Reload)
			}
		})
	}
	r := newReloadServer(t)
	if o := r.wake(); o.Reload != "" {
		t.Fatalf("nothing changed before the start, yet the first drain's reload is %q", o.Reload)
	}
}

// put writes src to dir/rel, making the directories it needs.
func put(t *testing.T, dir, rel, src string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (r *reloadServer) ids() string {
	var ids []string
	for _, n := range r.s.Graph().Nodes {
		ids = append(ids, n.ID)
	}
	return strings.Join(ids, " ")
}
