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
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// printer is an exec: binding of a program that reads its input and
// prints out.
func printer(t *testing.T, name, out string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".sh")
	script := "#!/bin/sh\ncat >/dev/null\ncat <<'EOF'\n" + out + "\nEOF\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "exec:" + p
}

// riskRadar is upstream's customer-risk-radar: a gateway and
// customer-risk-maintained, whose Maintains declares the field
// `accounts` and the facets `risk` and `history`, and whose Execution
// returns `{ accounts: brief }`: its whole truth.
type riskRadar struct {
	t    *testing.T
	g    *graph.Graph
	st   *store.Store
	node *graph.Node
}

func newRiskRadar(t *testing.T) *riskRadar {
	g, diags, err := graph.Load(testenv.Corpus015(t, "examples/customer-risk-radar"))
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "world"))
	if err != nil {
		t.Fatal(err)
	}
	r := &riskRadar{t: t, g: g, st: st}
	for _, n := range g.Nodes {
		if n.Spec.Name == "customer-risk-maintained" {
			r.node = n
		}
	}
	if r.node == nil {
		t.Fatal("no customer-risk-maintained in the example")
	}
	return r
}

func (r *riskRadar) drain(event string, node func(*graph.Node) (reconcile.Renderer, error)) *reconcile.Result {
	r.t.Helper()
	gw := printer(r.t, "gateway", `{"account-signals": [{"account": "a1", "kind": "usage", "value": "`+event+`"}]}`)
	res, err := reconcile.Drain(context.Background(), reconcile.Options{
		Graph: r.g, Store: r.st,
		Events: map[string][]any{"customer-risk-review": {map[string]any{"id": event}}},
		Renderer: func(n *graph.Node) (reconcile.Renderer, error) {
			if n.Kind == "gateway" {
				return render.Parse(gw)
			}
			return node(n)
		},
		Now: func() time.Time { return time.Unix(0, 0) },
	})
	if err != nil {
		r.t.Fatal(err)
	}
	for _, rc := range res.Receipts {
		if rc.Status == receipt.Failed {
			r.t.Errorf("%s failed: %s", rc.Node, rc.Reason)
		}
	}
	return res
}

// published is the node's truth and its published facet files.
func (r *riskRadar) published() (truth string, facets map[string]string) {
	r.t.Helper()
	last, err := r.st.Last(r.node.ID)
	if err != nil || last == nil || last.Status != receipt.Rendered {
		r.t.Fatalf("no rendered receipt: %v %+v", err, last)
	}
	v, err := r.st.Version(r.node.ID, last.Version)
	if err != nil {
		r.t.Fatal(err)
	}
	b, _ := canon.Marshal(v)
	facets = map[string]string{}
	for _, f := range []string{"risk", "history"} {
		raw, err := os.ReadFile(filepath.Join(filepath.Dir(r.st.TruthPath(r.node.ID)), "facets", f+".json"))
		if err != nil {
			r.t.Fatalf("facet %s not published: %v", f, err)
		}
		x, _ := canon.Decode(raw)
		fb, _ := canon.Marshal(x)
		facets[f] = string(fb)
	}
	return string(b), facets
}

// The Execution returns the whole truth, { accounts: brief }; its facets
// are the members of the one field that hold them.
func TestWholeTruthFromExecution(t *testing.T) {
	r := newRiskRadar(t)
	brief := `{"risk": {"a1": "high"}, "history": {"a1": ["watch", "high"]}}`
	slots := []bind.Assignment{
		{Name: "collect-account-signals", Value: printer(t, "collect", `{"accounts-for-review": ["a1"]}`)},
		{Name: "assess-risk", Value: printer(t, "assess", `{"risk-assessments": [{"account": "a1", "level": "high"}]}`)},
		{Name: "recommend-actions", Value: printer(t, "recommend", `{"risk-brief": `+brief+`}`)},
	}
	res := r.drain("e1", func(*graph.Node) (reconcile.Renderer, error) {
		return &render.Execution{Slots: slots}, nil
	})
	if res.Rendered != 2 {
		t.Fatalf("rendered %d, want the gateway and the responsibility", res.Rendered)
	}
	truth, facets := r.published()
	want := `{"accounts":{"history":{"a1":["watch","high"]},"risk":{"a1":"high"}},"history":{"a1":["watch","high"]},"risk":{"a1":"high"}}`
	if truth != want {
		t.Errorf("truth %s\nwant %s", truth, want)
	}
	if facets["risk"] != `{"a1":"high"}` || facets["history"] != `{"a1":["watch","high"]}` {
		t.Errorf("facets %v", facets)
	}
	last, _ := r.st.Last(r.node.ID)
	if !reflect.DeepEqual(last.Diff.Moved, []string{"@atomic", "history", "risk"}) {
		t.Errorf("moved %q", last.Diff.Moved)
	}
}

// A program that prints only the facets: the one field is assembled
// from them.
func TestFacetsOnlyFromProgram(t *testing.T) {
	r := newRiskRadar(t)
	prog := printer(t, "node", `{"risk": {"a1": "low"}, "history": {"a1": ["low"]}}`)
	r.drain("e1", func(*graph.Node) (reconcile.Renderer, error) { return render.Parse(prog) })
	truth, facets := r.published()
	want := `{"accounts":{"history":{"a1":["low"]},"risk":{"a1":"low"}},"history":{"a1":["low"]},"risk":{"a1":"low"}}`
	if truth != want || facets["risk"] != `{"a1":"low"}` {
		t.Errorf("truth %s, facets %v", truth, facets)
	}
}

// A model answers the whole truth first, then only the facets; both are
// taken, through the real client and a scripted server.
func TestWholeTruthAndFacetsFromModel(t *testing.T) {
	r := newRiskRadar(t)
	srv := llmtest.NewServer(t,
		llmtest.Reply{Content: `{"accounts": {"risk": {"a1": "watch"}, "history": {"a1": ["watch"]}}}`},
		llmtest.Reply{Content: `{"risk": {"a1": "high"}, "history": {"a1": ["watch", "high"]}}`},
	)
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "test-model", APIKey: "k", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	model := func(*graph.Node) (reconcile.Renderer, error) { return &render.Model{Client: c}, nil }
	r.drain("e1", model)
	truth, facets := r.published()
	if want := `{"accounts":{"history":{"a1":["watch"]},"risk":{"a1":"watch"}},"history":{"a1":["watch"]},"risk":{"a1":"watch"}}`; truth != want || facets["risk"] != `{"a1":"watch"}` {
		t.Errorf("whole: truth %s, facets %v", truth, facets)
	}
	r.drain("e2", model)
	truth, facets = r.published()
	if want := `{"accounts":{"history":{"a1":["watch","high"]},"risk":{"a1":"high"}},"history":{"a1":["watch","high"]},"risk":{"a1":"high"}}`; truth != want {
		t.Errorf("facets only: truth %s", truth)
	}
	if facets["risk"] != `{"a1":"high"}` {
		t.Errorf("facets %v", facets)
	}
	if srv.Count() != 2 {
		t.Errorf("%d model requests, want 2", srv.Count())
	}
}

// An answer that is neither the whole truth nor its facets fails the
// render, naming both forms; the prior truth stays.
func TestNeitherWholeNorFacetsFails(t *testing.T) {
	r := newRiskRadar(t)
	gw, node := printer(t, "gw", `{"account-signals": []}`), printer(t, "node", `{"acounts": {}}`) // written before any render forks
	res, err := reconcile.Drain(context.Background(), reconcile.Options{
		Graph: r.g, Store: r.st,
		Events: map[string][]any{"customer-risk-review": {map[string]any{"id": "e1"}}},
		Renderer: func(n *graph.Node) (reconcile.Renderer, error) {
			if n.Kind == "gateway" {
				return render.Parse(gw)
			}
			return render.Parse(node)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var reason string
	for _, rc := range res.Receipts {
		if rc.Node == r.node.ID {
			reason = rc.Reason
		}
	}
	want := `customer-risk-maintained returns an object without the field(s) "accounts" (as members, or inside one facet): return its whole truth (the fields "accounts") or only its facets ("risk", "history")`
	if !strings.Contains(reason, want) {
		t.Errorf("reason %q\nwant %q", reason, want)
	}
}

// The Execution's functions rendered by a scripted model (each unbound
// function is a model render): the whole truth is assembled as with
// programs.
func TestWholeTruthFromExecutionWithModel(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Content: `{"accounts-for-review": ["a1"]}`},
		llmtest.Reply{Content: `{"risk-assessments": [{"account": "a1", "level": "watch"}]}`},
		llmtest.Reply{Content: `{"risk-brief": {"risk": {"a1": "watch"}, "history": {"a1": ["watch"]}}}`},
	)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("PROSE_MODEL", "test-model")
	r := newRiskRadar(t)
	r.drain("e1", func(*graph.Node) (reconcile.Renderer, error) { return &render.Execution{}, nil })
	truth, facets := r.published()
	if want := `{"accounts":{"history":{"a1":["watch"]},"risk":{"a1":"watch"}},"history":{"a1":["watch"]},"risk":{"a1":"watch"}}`; truth != want {
		t.Errorf("truth %s\nwant %s", truth, want)
	}
	if facets["risk"] != `{"a1":"watch"}` {
		t.Errorf("facets %v", facets)
	}
	if n := srv.Count(); n != 3 {
		t.Errorf("%d model requests, want one per function", n)
	}
}
