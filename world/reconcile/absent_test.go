package reconcile_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// seen is a renderer that keeps the requests it is given and answers
// each node's truth from answers (a failure when it has none).
type seen struct {
	mu      sync.Mutex // nodes of one level render at once
	answers map[string]any
	reqs    map[string]*reconcile.Request
}

func (s *seen) Render(_ context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs[req.Node.ID] = req
	if a, ok := s.answers[req.Node.ID]; ok {
		return &reconcile.Answer{Truth: a}, nil
	}
	return nil, os.ErrNotExist
}

// A fan-in is absent while any of its producers is; a truth that leaves
// out a facet a subscriber reads fails its render (it would be absent to
// the subscriber and never move again), so the facet stays absent until
// its producer gives it. The key moves when they publish.
func TestAbsentFanInAndFacet(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.prose.md":   "---\nname: a\nkind: responsibility\n---\n\n# A\n\n### Maintains\n\n- `x`: a value\n\n#### part\n\nA part.\n",
		"b.prose.md":   "---\nname: b\nkind: responsibility\n---\n\n# B\n\n### Maintains\n\n- `y`: a value\n",
		"sum.prose.md": "---\nname: sum\nkind: responsibility\n---\n\n# Sum\n\n### Requires\n\n- `both`: the truths of `a` and `b`\n- `part`: the part\n\n### Maintains\n\n- `total`: the total\n",
	}
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
	r := &seen{answers: map[string]any{"a": map[string]any{"x": 1}, "sum": map[string]any{"total": 0}}}
	drain := func() {
		r.reqs = map[string]*reconcile.Request{}
		if _, err := reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st,
			Renderer: func(*graph.Node) (reconcile.Renderer, error) { return r, nil }}); err != nil {
			t.Fatal(err)
		}
	}
	// b fails its first render; a answers without its facet `part`,
	// which sum reads: a fails too.
	drain()
	if rs, err := st.Receipts("a"); err != nil || len(rs) != 1 || rs[0].Status != receipt.Failed ||
		!strings.Contains(rs[0].Reason, `a's truth lacks its facet "part", which sum read(s)`) {
		t.Fatalf("receipts of a: %+v (%v)", rs, err)
	}
	req := r.reqs["sum"]
	if req == nil {
		t.Fatal("sum did not render")
	}
	if want := map[string]string{"both": "a, b", "part": "a"}; !reflect.DeepEqual(req.Absent, want) {
		t.Errorf("absent %v, want %v", req.Absent, want)
	}
	if len(req.Inputs) != 0 {
		t.Errorf("absent inputs given values: %v", req.Inputs)
	}
	// b publishes, a without its part still: sum renders again with the
	// fan-in absent for a alone.
	r.answers["b"] = map[string]any{"y": 2}
	drain()
	req = r.reqs["sum"]
	if req == nil || !reflect.DeepEqual(req.Absent, map[string]string{"both": "a", "part": "a"}) {
		t.Fatalf("sum after b published: %+v", req)
	}
	// a gives its part: sum renders with every input present.
	r.answers["a"] = map[string]any{"x": 1, "part": map[string]any{"p": 1}}
	drain()
	req = r.reqs["sum"]
	if req == nil || len(req.Absent) != 0 {
		t.Fatalf("sum after a published: %+v", req)
	}
	want := map[string]any{"both": map[string]any{"a": map[string]any{"x": 1, "part": map[string]any{"p": 1}}, "b": map[string]any{"y": 2}}, "part": map[string]any{"p": 1}}
	if got := normalize(t, req.Inputs); !reflect.DeepEqual(got, normalize(t, want)) {
		t.Errorf("inputs %v", got)
	}
	// Nothing moved: nothing renders.
	drain()
	if len(r.reqs) != 0 {
		t.Errorf("a drain with nothing moved rendered %v", r.reqs)
	}
}

func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := canonMarshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func canonMarshal(v any) (string, error) {
	n, err := canon.Normalize(v)
	if err != nil {
		return "", err
	}
	b, err := canon.Marshal(n)
	return string(b), err
}
