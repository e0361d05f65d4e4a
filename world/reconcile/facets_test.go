package reconcile_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// echo renders a gateway as its last event and a responsibility as the
// inputs it was given; it keeps every request.
type echo struct {
	mu   sync.Mutex
	reqs map[string]*reconcile.Request
}

func (e *echo) Render(_ context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	e.mu.Lock()
	e.reqs[req.Node.ID] = req
	e.mu.Unlock()
	if req.Node.Kind == "gateway" {
		return &reconcile.Answer{Truth: req.Events[len(req.Events)-1]}, nil
	}
	return &reconcile.Answer{Truth: map[string]any{"seen": req.Inputs}}, nil
}

func writeProject(t *testing.T, files map[string]string) *graph.Graph {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	return g
}

func contract(name, kind, requires, maintains string) string {
	s := "---\nname: " + name + "\nkind: " + kind + "\n---\n\n# " + name + "\n\n"
	if requires != "" {
		s += "### Requires\n\n" + requires + "\n\n"
	}
	return s + "### Maintains\n\n" + maintains + "\n"
}

// A metadata-only event renders only the nodes whose facet moved: the
// subscriber of the named facet stays dark, and so does the fan-in
// behind it; a subscriber to a facet family wakes for the key that moved
// and reads the family as an object by key.
func TestFacetEdgesWakeOnlyWhatMoved(t *testing.T) {
	g := writeProject(t, map[string]string{
		"feed.prose.md":     contract("feed", "gateway", "", "#### counts\n\nTallies.\n\n#### meta\n\nDelivery metadata."),
		"other.prose.md":    contract("other", "gateway", "", "- `x`: a value"),
		"registry.prose.md": contract("registry", "gateway", "", "#### eligible:<login>\n\nOne user's eligibility."),
		"sum.prose.md":      contract("sum", "responsibility", "- `tallies`: the `feed`'s `counts` facet only, never its `meta`.", "- `seen`: inputs"),
		"both.prose.md":     contract("both", "responsibility", "- `all`: the truths of `sum` and `other`.", "- `seen`: inputs"),
		"lane.prose.md":     contract("lane", "responsibility", "- `mine`: the `eligible:<login>` facet of `registry`, and only that.", "- `seen`: inputs"),
	})
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &echo{}
	drain := func(events map[string][]any) []string {
		t.Helper()
		r.reqs = map[string]*reconcile.Request{}
		res, err := reconcile.Drain(context.Background(), reconcile.Options{
			Graph: g, Store: st, Events: events,
			Renderer: func(*graph.Node) (reconcile.Renderer, error) { return r, nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, rc := range res.Receipts {
			if rc.Status == "rendered" {
				out = append(out, rc.Node)
			}
		}
		sort.Strings(out)
		return out
	}
	got := drain(map[string][]any{
		"feed":     {map[string]any{"counts": 1, "meta": "a"}},
		"other":    {map[string]any{"x": 1}},
		"registry": {map[string]any{"eligible:alice": true, "eligible:bob": false}},
	})
	if want := []string{"both", "feed", "lane", "other", "registry", "sum"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("cold start rendered %q, want %q", got, want)
	}
	if in := r.reqs["both"].Inputs["all"]; !reflect.DeepEqual(keys(in), []string{"other", "sum"}) {
		t.Errorf("the fan-in reads %v, want an object keyed by producer", in)
	}

	// Metadata only: the feed renders, nothing that reads counts does.
	if got := drain(map[string][]any{"feed": {map[string]any{"counts": 1, "meta": "b"}}}); !reflect.DeepEqual(got, []string{"feed"}) {
		t.Errorf("a metadata-only event rendered %q, want only feed", got)
	}
	// The counts move: the facet's subscriber and the fan-in behind it.
	if got := drain(map[string][]any{"feed": {map[string]any{"counts": 2, "meta": "b"}}}); !reflect.DeepEqual(got, []string{"both", "feed", "sum"}) {
		t.Errorf("a counts event rendered %q, want both, feed, sum", got)
	}

	// One key of the family moves: the lane wakes, its diff names that
	// key alone, and it reads the family by key.
	if got := drain(map[string][]any{"registry": {map[string]any{"eligible:alice": true, "eligible:bob": true}}}); !reflect.DeepEqual(got, []string{"lane", "registry"}) {
		t.Fatalf("a family event rendered %q, want lane, registry", got)
	}
	req := r.reqs["lane"]
	if want := map[string]any{"alice": true, "bob": true}; !reflect.DeepEqual(req.Inputs["mine"], want) {
		t.Errorf("the lane reads %v, want %v", req.Inputs["mine"], want)
	}
	if got := keys(req.Diff); !reflect.DeepEqual(got, []string{"mine<-registry.eligible:<login>[bob]"}) {
		t.Errorf("the lane's diff names %q, want the key bob alone", got)
	}
	// Nothing moved: nothing renders.
	if got := drain(map[string][]any{"registry": {map[string]any{"eligible:alice": true, "eligible:bob": true}}}); len(got) != 0 {
		t.Errorf("an unmoved family rendered %q", got)
	}
}

func keys(v any) []string {
	var out []string
	switch m := v.(type) {
	case map[string]any:
		for k := range m {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// A drain refuses a caller input the caller does not give, before
// anything renders: it would be read as null.
func TestUngivenCallerInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.prose.md"), []byte(contract("a", "responsibility", "- `funding`: a feed kept elsewhere", "- `seen`: n")), 0o644); err != nil {
		t.Fatal(err)
	}
	g, _, err := graph.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := reconcile.Options{Graph: g, Store: st, Renderer: func(*graph.Node) (reconcile.Renderer, error) {
		return &echo{reqs: map[string]*reconcile.Request{}}, nil
	}}
	if _, err := reconcile.Drain(context.Background(), o); err == nil || !strings.Contains(err.Error(), `input "funding" of a: nothing maintains it`) {
		t.Errorf("err %v", err)
	}
	if rs, _ := st.Receipts(""); len(rs) != 0 {
		t.Errorf("%d receipts written", len(rs))
	}
	o.CallerInputs = map[string]map[string]any{"a": {"funding": 3}}
	if res, err := reconcile.Drain(context.Background(), o); err != nil || res.Rendered != 1 {
		t.Errorf("given: %v %+v", err, res)
	}
}
