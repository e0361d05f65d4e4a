package view_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
	"github.com/proselang/prose/world/view"
)

// fixture is a world of three nodes: the gateway feed (facets counts
// and meta), sum reading only feed's counts, report reading sum.
type fixture struct {
	t      *testing.T
	dir    string
	state  string
	g      *graph.Graph
	st     *store.Store
	mu     sync.Mutex
	fail   map[string]bool
	tokens int
}

func contract(name, kind, requires, maintains string) string {
	s := "---\nname: " + name + "\nkind: " + kind + "\n---\n\n# " + name + "\n\n"
	if requires != "" {
		s += "### Requires\n\n" + requires + "\n\n"
	}
	return s + "### Maintains\n\n" + maintains + "\n"
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"feed.prose.md":   contract("feed", "gateway", "", "#### counts\n\nTallies.\n\n#### meta\n\nDelivery metadata."),
		"sum.prose.md":    contract("sum", "responsibility", "- `tallies`: the `feed`'s `counts` facet only, never its `meta`.", "- `total`: the sum"),
		"report.prose.md": contract("report", "responsibility", "- `sum`: the truth of `sum`.", "- `seen`: what sum says"),
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	return &fixture{t: t, dir: dir, state: filepath.Join(dir, ".prose", "world"), g: g, fail: map[string]bool{}}
}

// Render is the fixture's renderer: feed keeps its last event, sum adds
// the counts, report copies sum; a node in fail fails.
func (f *fixture) Render(_ context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail[req.Node.ID] {
		return nil, errors.New("told to fail")
	}
	cost := receipt.Cost{Requests: 1, TokensIn: f.tokens, TokensOut: 1}
	switch req.Node.ID {
	case "feed":
		return &reconcile.Answer{Truth: req.Events[len(req.Events)-1], Cost: cost}, nil
	case "sum":
		return &reconcile.Answer{Truth: map[string]any{"total": req.Inputs["tallies"].(map[string]any)["n"], "label": "total"}, Cost: cost}, nil
	}
	return &reconcile.Answer{Truth: map[string]any{"seen": req.Inputs["sum"]}, Cost: cost}, nil
}

// drain delivers event to feed; committed is called after each commit.
func (f *fixture) drain(ctx context.Context, event any, committed func(*receipt.Receipt)) (*reconcile.Result, error) {
	f.t.Helper()
	if f.st == nil {
		st, err := store.Open(f.state)
		if err != nil {
			f.t.Fatal(err)
		}
		f.st = st
	}
	o := reconcile.Options{Graph: f.g, Store: f.st, Committed: committed, MaxParallel: 1,
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return f, nil }}
	if event != nil {
		o.Events = map[string][]any{"feed": {event}}
	}
	return reconcile.Drain(ctx, o)
}

func (f *fixture) mustDrain(event any) *reconcile.Result {
	f.t.Helper()
	res, err := f.drain(context.Background(), event, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func event(n, m int) map[string]any {
	return map[string]any{"counts": map[string]any{"n": n}, "meta": map[string]any{"m": m}}
}

func load(t *testing.T, f *fixture) *view.World {
	t.Helper()
	w, err := view.Load(f.dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func statuses(w *view.World, ids ...string) string {
	var out []string
	for _, id := range ids {
		out = append(out, id+"="+string(w.Status(id).Status))
	}
	return strings.Join(out, " ")
}

func poll(t *testing.T, w *view.World) *view.Update {
	t.Helper()
	u, err := w.Poll()
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Before any drain (no state directory) every node waits; each drain's
// receipts arrive at the next Poll, and the statuses follow them.
func TestStatusesFollowTheLedgers(t *testing.T) {
	f := newFixture(t)
	w := load(t, f)
	if got, want := statuses(w, "feed", "sum", "report"), "feed=waiting sum=waiting report=waiting"; got != want {
		t.Fatalf("before any drain: %s, want %s", got, want)
	}
	if _, err := os.Stat(f.state); err == nil {
		t.Fatal("loading the view created the state directory")
	}
	f.mustDrain(event(1, 1))
	u := poll(t, w)
	if len(u.Receipts) != 3 || u.Receipts[0].Node != "feed" || u.Receipts[2].Node != "report" {
		t.Fatalf("landed %v, want feed, sum, report", nodesOf(u.Receipts))
	}
	if got, want := statuses(w, "feed", "sum", "report"), "feed=rendered sum=rendered report=rendered"; got != want {
		t.Fatalf("after a drain: %s, want %s", got, want)
	}
	if u := poll(t, w); !u.Empty() {
		t.Fatalf("a Poll with nothing new reported %+v", u)
	}
	f.fail["sum"] = true
	f.mustDrain(event(2, 1))
	poll(t, w)
	s := w.Status("sum")
	if s.Status != view.Failed || !strings.Contains(s.Why, "told to fail") {
		t.Fatalf("sum after a failed render: %+v", s)
	}
	if got := w.Status("report").Status; got != view.Rendered {
		t.Fatalf("report, whose producer failed and kept its truth: %s, want rendered", got)
	}
}

func nodesOf(rs []*receipt.Receipt) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Node)
	}
	return out
}

// Polled after each commit of a drain (as a page is while a drain runs),
// each receipt lands alone, and the subscribers of a node whose part
// moved are stale until their own receipt lands; a part no one reads
// (feed's meta) makes no one stale.
func TestPollDuringADrain(t *testing.T) {
	f := newFixture(t)
	f.mustDrain(event(1, 1))
	w := load(t, f)
	var steps []string
	_, err := f.drain(context.Background(), event(2, 1), func(r *receipt.Receipt) {
		u, err := w.Poll()
		if err != nil {
			t.Error(err)
			return
		}
		var line []string
		for _, r := range u.Receipts {
			line = append(line, "landed "+r.Node)
		}
		for _, s := range u.Nodes {
			line = append(line, s.ID+" "+string(s.Status))
		}
		steps = append(steps, strings.Join(line, ", "))
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"landed feed, feed rendered, sum stale", // feed's standing moves to its new receipt
		"landed sum, sum rendered, report stale",
		"landed report, report rendered",
	}
	if strings.Join(steps, "\n") != strings.Join(want, "\n") {
		t.Fatalf("updates:\n%s\nwant:\n%s", strings.Join(steps, "\n"), strings.Join(want, "\n"))
	}
	if why := w.Status("sum").Why; why != "" {
		t.Fatalf("sum rendered still says %q", why)
	}

	// A drain cut after feed's commit leaves sum stale, naming the input.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.drain(ctx, event(3, 1), func(r *receipt.Receipt) { cancel() })
	poll(t, w)
	s := w.Status("sum")
	if s.Status != view.Stale || !strings.Contains(s.Why, "tallies") {
		t.Fatalf("sum after its producer moved: %+v", s)
	}
	// Only feed's meta moves: sum reads counts only.
	f2 := newFixture(t)
	f2.mustDrain(event(1, 1))
	w2 := load(t, f2)
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	f2.drain(ctx2, event(1, 2), func(*receipt.Receipt) { cancel2() })
	poll(t, w2)
	if got := w2.Status("sum").Status; got != view.Rendered {
		t.Fatalf("sum after only feed's meta moved: %s, want rendered", got)
	}
}

// A node's versions diff field by field, and each render's wake names
// the producer's receipt and the input that moved.
func TestVersionsDiffAndWakes(t *testing.T) {
	f := newFixture(t)
	f.mustDrain(event(1, 1))
	res := f.mustDrain(event(2, 1))
	w := load(t, f)
	p, err := w.Node("sum")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Versions) != 2 {
		t.Fatalf("sum has %d versions, want 2", len(p.Versions))
	}
	ch, err := w.VersionDiff("sum", p.Versions[0].Address, p.Versions[1].Address)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 || ch[0] != (view.Change{Path: "total", Kind: view.Changed, From: "1", To: "2"}) {
		t.Fatalf("diff %+v, want total 1 -> 2 only", ch)
	}
	if _, err := w.VersionDiff("sum", p.Versions[0].Address, "sha256:../../x"); err == nil {
		t.Fatal("a malformed version address was read")
	}
	var feedHash string
	for _, r := range res.Receipts {
		if r.Node == "feed" {
			feedHash = r.Hash
		}
	}
	wk := p.Receipts[1].Wake
	if wk.Source != receipt.Input || len(wk.Causes) != 1 {
		t.Fatalf("sum's second wake: %+v", wk)
	}
	c := wk.Causes[0]
	if !c.Found || c.Producer != "feed" || c.Receipt != feedHash || c.Drain != 2 ||
		strings.Join(c.Inputs, ",") != "tallies<-feed.counts" || !contains(c.Moved, "counts") {
		t.Fatalf("cause %+v, want feed's drain-2 receipt %s moving tallies<-feed.counts", c, feedHash)
	}
	if p.Receipts[0].Wake.Source != receipt.Boot {
		t.Fatalf("sum's first wake: %+v", p.Receipts[0].Wake)
	}
	fp, _ := w.Node("feed")
	if fp.Receipts[1].Wake.Source != receipt.External || fp.Receipts[1].Wake.Events == "" {
		t.Fatalf("feed's wake: %+v", fp.Receipts[1].Wake)
	}
	for _, row := range append(p.Receipts, fp.Receipts...) {
		if row.Check != "" {
			t.Fatalf("receipt %d of %s: %s", row.N, row.R.Node, row.Check)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// An edited truth, version or receipt fails verification where it
// fails: the node is failing, and the problem is at that file, that
// version, that receipt.
func TestTamperingFailsWhereItFails(t *testing.T) {
	f := newFixture(t)
	f.mustDrain(event(1, 1))
	f.mustDrain(event(2, 1))
	w := load(t, f)
	if w.Status("sum").Failing {
		t.Fatal("an untouched store fails verification")
	}
	st, _ := store.Open(f.state)
	if err := os.WriteFile(st.TruthPath("sum"), []byte("{\"label\":\"total\",\"total\":99}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	u := poll(t, w)
	if len(u.Nodes) != 1 || u.Nodes[0].ID != "sum" || !u.Nodes[0].Failing {
		t.Fatalf("update after an edited truth: %+v", u.Nodes)
	}
	p, _ := w.Node("sum")
	if len(p.TruthProblems) != 1 || p.TruthProblems[0].File != st.TruthPath("sum") || !strings.Contains(p.TruthProblems[0].Msg, "edited") {
		t.Fatalf("truth problems %+v", p.TruthProblems)
	}
	if !strings.Contains(p.Truth, "99") {
		t.Fatalf("the page does not show the file as it is: %s", p.Truth)
	}
	if gp := w.GraphPage(); len(gp.Problems) != 1 || !gp.Status["sum"].Failing {
		t.Fatalf("graph page problems %+v", gp.Problems)
	}

	// A version edited in place.
	rp, _ := w.Node("report")
	vp := st.VersionPath("report", rp.Versions[0].Address)
	os.WriteFile(vp, []byte(`{"seen":{"total":7}}`+"\n"), 0o600)
	poll(t, w)
	rp, _ = w.Node("report")
	if len(rp.Versions[0].Problems) != 1 || len(rp.Versions[1].Problems) != 0 {
		t.Fatalf("version problems %+v / %+v", rp.Versions[0].Problems, rp.Versions[1].Problems)
	}

	// feed's first receipt edited: that row fails its check, the next one
	// still links to the hash it had.
	lp := st.LedgerPath("feed")
	b, _ := os.ReadFile(lp)
	os.WriteFile(lp, []byte(strings.Replace(string(b), `"seq":1`, `"seq":5`, 1)), 0o600)
	poll(t, w)
	fp, _ := w.Node("feed")
	if fp.Receipts[0].Check == "" || fp.Receipts[1].Check != "" || len(fp.LedgerProblems) == 0 {
		t.Fatalf("checks %q / %q, ledger problems %+v", fp.Receipts[0].Check, fp.Receipts[1].Check, fp.LedgerProblems)
	}
	if !w.Status("feed").Failing {
		t.Fatal("feed with an edited receipt is not failing")
	}
}

// A drain's replay starts from the standings before it and moves them
// step by step, as the live view does.
func TestDrainReplay(t *testing.T) {
	f := newFixture(t)
	f.mustDrain(event(1, 1))
	f.mustDrain(event(2, 1))
	w := load(t, f)
	if ds := w.Drains(); len(ds) != 2 || ds[0].Number != 2 || ds[0].Rendered != 3 {
		t.Fatalf("drains %+v", ds)
	}
	d, err := w.Drain(2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range d.Steps {
		line := s.R.Node + ":"
		for _, c := range s.Changes {
			line += " " + c.ID + "=" + string(c.Status)
		}
		got = append(got, line)
	}
	want := "feed: feed=rendered sum=stale|sum: sum=rendered report=stale|report: report=rendered"
	if strings.Join(got, "|") != want {
		t.Fatalf("steps %q, want %q", strings.Join(got, "|"), want)
	}
	if s := d.At(1)["sum"]; s.Status != view.Stale {
		t.Fatalf("sum after step 1: %+v", s)
	}
	if s := d.At(0)["feed"]; s.Status != view.Rendered || s.Drain != 1 {
		t.Fatalf("feed before drain 2: %+v", s)
	}
	if d.Steps[1].Wake.Causes[0].Producer != "feed" {
		t.Fatalf("step 2 wake: %+v", d.Steps[1].Wake)
	}
	d1, _ := w.Drain(1)
	if s := d1.At(0)["sum"]; s.Status != view.Waiting {
		t.Fatalf("sum before the first drain: %+v", s)
	}
	if _, err := w.Drain(9); err == nil || !strings.Contains(err.Error(), "no receipt of drain 9") {
		t.Fatalf("drain 9: %v", err)
	}
}

// Cost is summed by node and by wake source.
func TestCost(t *testing.T) {
	f := newFixture(t)
	f.tokens = 10
	f.mustDrain(event(1, 1))
	f.tokens = 100
	f.mustDrain(event(2, 1))
	w := load(t, f)
	gp := w.GraphPage()
	byWake := map[string]receipt.CostRow{}
	for _, c := range gp.ByWake {
		byWake[c.Key] = c
	}
	// Drain 1: each node's first receipt is a boot (10 in + 1 out each);
	// drain 2: feed external, sum and report input (100 + 1 each).
	if c := byWake["boot"]; c.TokensIn != 30 || c.Rendered != 3 {
		t.Fatalf("boot %+v", c)
	}
	if c := byWake["input"]; c.TokensIn != 200 || c.TokensOut != 2 {
		t.Fatalf("input %+v", c)
	}
	if c := byWake["external"]; c.TokensIn != 100 || c.Requests != 1 {
		t.Fatalf("external %+v", c)
	}
	p, _ := w.Node("sum")
	if p.Cost.TokensIn != 110 || len(p.ByWake) != 2 {
		t.Fatalf("sum cost %+v by wake %+v", p.Cost, p.ByWake)
	}
}

// Every box is right of its producers and no two boxes of a column
// overlap; every edge is drawn.
func TestLayout(t *testing.T) {
	dir := t.TempDir()
	for k := 0; k < 40; k++ {
		src := contract(fmt.Sprintf("n%02d", k), "gateway", "", "- `v`: a value")
		if k > 0 {
			src = contract(fmt.Sprintf("n%02d", k), "responsibility", fmt.Sprintf("- `n%02d`: the parent's truth", (k-1)/3), "- `v`: a value")
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%02d.prose.md", k)), []byte(src), 0o644)
	}
	w, err := view.Load(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	l := w.GraphPage().Layout
	if len(l.Nodes) != 40 || len(l.Edges) != 39 {
		t.Fatalf("%d boxes, %d edges", len(l.Nodes), len(l.Edges))
	}
	for _, e := range l.Edges {
		p, s := l.Node(e.Producer), l.Node(e.Subscriber)
		if s.X < p.X+p.W {
			t.Fatalf("%s at x %d is not right of its producer %s (x %d)", s.ID, s.X, p.ID, p.X)
		}
	}
	for _, a := range l.Nodes {
		for _, b := range l.Nodes {
			if a != b && a.X == b.X && a.Y < b.Y+b.H && b.Y < a.Y+a.H {
				t.Fatalf("%s and %s overlap", a.ID, b.ID)
			}
		}
		if a.X+a.W > l.Width || a.Y+a.H > l.Height {
			t.Fatalf("%s is outside the picture", a.ID)
		}
	}
	if !l.Node("n00").Entry || l.Node("n01").Entry {
		t.Fatal("entry points")
	}
}

func TestDiff(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want string
	}{
		{`{"a":1}`, `{"a":1.0}`, ""},
		{`{"a":1,"b":{"c":[1,2]}}`, `{"a":1,"b":{"c":[1,3,4]}}`, "b.c[1] changed 2 3|b.c[2] added  4"},
		{`{"x y":true,"k":null}`, `{"k":{}}`, `k changed null {}|["x y"] removed true `},
		{`[1]`, `{"a":1}`, ` changed [1] {"a":1}`},
	} {
		var got []string
		for _, ch := range view.Diff(decode(t, c.a), decode(t, c.b)) {
			got = append(got, ch.Path+" "+ch.Kind+" "+ch.From+" "+ch.To)
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("Diff(%s, %s) = %q, want %q", c.a, c.b, strings.Join(got, "|"), c.want)
		}
	}
}

// A node the store has and the project no longer has is listed apart,
// with its receipts; one that appears in the store later is found by
// the next Poll.
func TestStoredNodesTheProjectLacks(t *testing.T) {
	f := newFixture(t)
	f.mustDrain(event(1, 1))
	if err := os.Remove(filepath.Join(f.dir, "report.prose.md")); err != nil {
		t.Fatal(err)
	}
	w := load(t, f)
	gp := w.GraphPage()
	if len(gp.Extra) != 1 || gp.Extra[0].ID != "report" || gp.Extra[0].Status != view.Rendered {
		t.Fatalf("extra %+v", gp.Extra)
	}
	if gp.Layout.Node("report") != nil {
		t.Fatal("a node the project lacks is drawn")
	}
	p, err := w.Node("report")
	if err != nil || p.InProject || len(p.Receipts) != 1 {
		t.Fatalf("report's page: %+v, %v", p, err)
	}
	// another project's node lands in the same store
	st, _ := store.Open(f.state)
	r := &receipt.Receipt{Node: "other", Drain: 2, Seq: 1, Status: receipt.Skipped}
	if err := r.Seal(nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Append("other", r); err != nil {
		t.Fatal(err)
	}
	u := poll(t, w)
	if len(u.Receipts) != 1 || u.Receipts[0].Node != "other" || len(w.GraphPage().Extra) != 2 {
		t.Fatalf("after another node's receipt: %+v, extra %+v", u, w.GraphPage().Extra)
	}
}

// Seen between a commit and its published files (a drain writes them
// just after the receipt), the old truth.json is not called edited; if it
// stays so, it is.
func TestCommitBeforePublishIsNoEdit(t *testing.T) {
	f := newFixture(t)
	f.mustDrain(event(1, 1))
	w := load(t, f)
	st, _ := store.Open(f.state)
	last, _ := st.Last("sum")
	v, err := st.PutVersion("sum", map[string]any{"label": "total", "total": 7})
	if err != nil {
		t.Fatal(err)
	}
	r := *last
	r.Seq, r.Drain, r.Prev, r.Version, r.Hash = 1, 2, last.Hash, v, ""
	if err := r.Seal(nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Append("sum", &r); err != nil {
		t.Fatal(err)
	}
	if u := poll(t, w); len(u.Receipts) != 1 || w.Status("sum").Failing {
		t.Fatalf("just after the commit: %+v, sum %+v", u.Receipts, w.Status("sum"))
	}
	poll(t, w)
	if !w.Status("sum").Failing {
		t.Fatal("a truth.json that stays behind its last receipt is not failing")
	}
}

// A store edited before the view first reads it fails at once.
func TestEditedBeforeTheFirstLook(t *testing.T) {
	f := newFixture(t)
	f.mustDrain(event(1, 1))
	st, _ := store.Open(f.state)
	os.WriteFile(st.TruthPath("sum"), []byte(`{"total":3}`+"\n"), 0o600)
	if w := load(t, f); !w.Status("sum").Failing {
		t.Fatal("an edited truth read first is not failing")
	}
}

type echoTruth struct{}

func (echoTruth) Render(_ context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	if len(req.Events) > 0 {
		return &reconcile.Answer{Truth: req.Events[len(req.Events)-1]}, nil
	}
	return &reconcile.Answer{Truth: map[string]any{"seen": req.Inputs}}, nil
}

// A subscriber to a facet family is stale when one of its keys moves,
// appears or goes, and not when another member moves.
func TestFamilyStaleness(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"registry.prose.md": contract("registry", "gateway", "", "#### eligible:<login>\n\nOne user's eligibility.\n\n#### note\n\nA note."),
		"lane.prose.md":     contract("lane", "responsibility", "- `mine`: the `eligible:<login>` facet of `registry`, and only that.", "- `seen`: inputs"),
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644)
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	st, err := store.Open(filepath.Join(dir, ".prose", "world"))
	if err != nil {
		t.Fatal(err)
	}
	// cut drains the event into registry and stops before lane renders.
	cut := func(ev map[string]any) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		reconcile.Drain(ctx, reconcile.Options{Graph: g, Store: st, Events: map[string][]any{"registry": {ev}},
			Committed: func(*receipt.Receipt) { cancel() },
			Renderer:  func(*graph.Node) (reconcile.Renderer, error) { return echoTruth{}, nil }})
	}
	if _, err := reconcile.Drain(context.Background(), reconcile.Options{Graph: g, Store: st,
		Events:   map[string][]any{"registry": {map[string]any{"eligible:alice": true, "eligible:bob": false, "note": "a"}}},
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return echoTruth{}, nil }}); err != nil {
		t.Fatal(err)
	}
	w, err := view.Load(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := w.Status("lane"); s.Status != view.Rendered {
		t.Fatalf("lane after a full drain: %+v", s)
	}
	cut(map[string]any{"eligible:alice": true, "eligible:bob": false, "note": "b"})
	poll(t, w)
	if s := w.Status("lane"); s.Status != view.Rendered {
		t.Fatalf("lane after only the note moved: %+v", s)
	}
	cut(map[string]any{"eligible:alice": true, "note": "b"})
	poll(t, w)
	if s := w.Status("lane"); s.Status != view.Stale || !strings.Contains(s.Why, "went") || !strings.Contains(s.Why, "[bob]") {
		t.Fatalf("lane after bob went: %+v", s)
	}
	cut(map[string]any{"eligible:alice": true, "eligible:bob": false, "eligible:carol": true, "note": "b"})
	poll(t, w)
	if s := w.Status("lane"); s.Status != view.Stale || !strings.Contains(s.Why, "[carol]") {
		t.Fatalf("lane after carol came: %+v", s)
	}
}

// A state directory removed while the view watches is forgotten, not
// created again: every node waits.
func TestStateDirectoryRemoved(t *testing.T) {
	f := newFixture(t)
	f.mustDrain(event(1, 1))
	w := load(t, f)
	if err := os.RemoveAll(f.state); err != nil {
		t.Fatal(err)
	}
	poll(t, w)
	if _, err := os.Stat(f.state); err == nil {
		t.Fatal("the view created the state directory again")
	}
	if got := statuses(w, "feed", "sum", "report"); got != "feed=waiting sum=waiting report=waiting" {
		t.Fatalf("after the state directory went: %s", got)
	}
}

// A drain's replay shows what the ledgers vouch for: a ledger resealed by
// hand (a receipt's version pointed at an older truth, its hash and the
// chain after it recomputed, its head record left) is no step of a
// replay; the replay says which ledger does not check.
func TestDrainReplayOfAForgedLedger(t *testing.T) {
	f := newFixture(t)
	f.mustDrain(event(1, 1))
	f.mustDrain(event(2, 1))
	st, _ := store.Open(f.state)
	rs, err := st.Ledger("sum")
	if err != nil || len(rs) != 2 {
		t.Fatal(err, rs)
	}
	old, _ := rs[1].Marshal()
	forged := *rs[1]
	forged.Version, forged.Hash = rs[0].Version, ""
	if err := forged.Seal(nil); err != nil {
		t.Fatal(err)
	}
	nw, _ := forged.Marshal()
	b, _ := os.ReadFile(st.LedgerPath("sum"))
	if !strings.Contains(string(b), string(old)) {
		t.Fatal("the ledger does not hold the receipt as Marshal writes it")
	}
	os.WriteFile(st.LedgerPath("sum"), []byte(strings.Replace(string(b), string(old), string(nw), 1)), 0o600)
	w := load(t, f)
	d, err := w.Drain(2)
	var damage *store.DamageError
	if !errors.As(err, &damage) || !strings.Contains(err.Error(), st.LedgerPath("sum")) {
		t.Fatalf("replay of a drain of a forged ledger: %v, %+v; want the ledger named", err, d)
	}
	if !w.Status("sum").Failing {
		t.Fatal("sum with a forged ledger is not failing")
	}
}

// A receipt appended to a ledger by hand that does not check (sealed,
// but not chained to the receipt before it) lands nothing: the live view
// sends no receipt of it, counts it in no drain, and marks the node
// failing.
func TestForgedReceiptDoesNotLand(t *testing.T) {
	f := newFixture(t)
	f.mustDrain(event(1, 1))
	w := load(t, f)
	st, _ := store.Open(f.state)
	rs, err := st.Ledger("sum")
	if err != nil || len(rs) != 1 {
		t.Fatal(err, rs)
	}
	forged := *rs[0]
	forged.Drain, forged.Prev, forged.Hash = 7, "sha256:"+strings.Repeat("0", 64), ""
	if err := forged.Seal(nil); err != nil {
		t.Fatal(err)
	}
	line, _ := forged.Marshal()
	b, _ := os.ReadFile(st.LedgerPath("sum"))
	os.WriteFile(st.LedgerPath("sum"), append(append(b, line...), '\n'), 0o600)
	u := poll(t, w)
	for _, r := range u.Receipts {
		if r.Hash == forged.Hash {
			t.Fatalf("the forged receipt landed: %+v", u.Receipts)
		}
	}
	for _, d := range w.Drains() {
		if d.Number == 7 {
			t.Fatalf("the forged receipt's drain is listed: %+v", w.Drains())
		}
	}
	if !w.Status("sum").Failing {
		t.Fatal("sum with a forged receipt appended is not failing")
	}
}
