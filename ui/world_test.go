package ui

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// worldFixture is a project of three nodes (the gateway feed, with
// facets counts and meta; sum, reading feed's counts; report, reading
// sum) served by a Server, and drained in process.
type worldFixture struct {
	t     *testing.T
	dir   string
	state string
	g     *graph.Graph
	srv   *Server
	ts    *httptest.Server
	mu    sync.Mutex
	// hold, when set, is waited on before node hold[0] renders.
	holdNode string
	hold     chan struct{}
	fail     map[string]bool
	// tokens, when set, is what each render reports it spent.
	tokens int
}

func worldContract(name, kind, requires, maintains string) string {
	s := "---\nname: " + name + "\nkind: " + kind + "\n---\n\n# " + name + "\n\n"
	if requires != "" {
		s += "### Requires\n\n" + requires + "\n\n"
	}
	return s + "### Maintains\n\n" + maintains + "\n"
}

func newWorldFixture(t *testing.T) *worldFixture {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"feed.prose.md":   worldContract("feed", "gateway", "", "#### counts\n\nTallies.\n\n#### meta\n\nDelivery metadata."),
		"sum.prose.md":    worldContract("sum", "responsibility", "- `tallies`: the `feed`'s `counts` facet only, never its `meta`.", "- `total`: the sum"),
		"report.prose.md": worldContract("report", "responsibility", "- `sum`: the truth of `sum`.", "- `seen`: what sum says"),
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
	f := &worldFixture{t: t, dir: dir, state: filepath.Join(dir, ".prose", "world"), g: g, fail: map[string]bool{}}
	f.srv, f.ts = newTestServer(t, Options{RunDir: filepath.Join(dir, ".prose", "runs"), StateDir: f.state, Graph: g, Poll: 20e6})
	return f
}

// Render: feed keeps its last event, sum adds the counts, report copies
// sum.
func (f *worldFixture) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	f.mu.Lock()
	hold, fail := f.hold, f.fail[req.Node.ID]
	var cost receipt.Cost
	if f.tokens > 0 {
		cost = receipt.Cost{Requests: 1, TokensIn: f.tokens * len(req.Node.ID), TokensOut: f.tokens, Model: "test-model"}
	}
	if req.Node.ID != f.holdNode {
		hold = nil
	}
	f.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if fail {
		return nil, errors.New("told to fail")
	}
	switch req.Node.ID {
	case "feed":
		return &reconcile.Answer{Truth: req.Events[len(req.Events)-1], Cost: cost}, nil
	case "sum":
		return &reconcile.Answer{Truth: map[string]any{"total": req.Inputs["tallies"].(map[string]any)["n"], "label": "total"}, Cost: cost}, nil
	}
	return &reconcile.Answer{Truth: map[string]any{"seen": req.Inputs}, Cost: cost}, nil
}

// drain delivers an event {counts: {n}, meta: {m}} to feed.
func (f *worldFixture) drain(n, m int) error {
	st, err := store.Open(f.state)
	if err != nil {
		return err
	}
	_, err = reconcile.Drain(context.Background(), reconcile.Options{Graph: f.g, Store: st, MaxParallel: 1,
		Events:   map[string][]any{"feed": {map[string]any{"counts": map[string]any{"n": n}, "meta": map[string]any{"m": m}}}},
		Renderer: func(*graph.Node) (reconcile.Renderer, error) { return f, nil }})
	return err
}

func (f *worldFixture) mustDrain(n, m int) {
	f.t.Helper()
	if err := f.drain(n, m); err != nil {
		f.t.Fatal(err)
	}
}

// get fetches a page, wanting code.
func (f *worldFixture) get(path string, code int) string {
	f.t.Helper()
	res, err := http.Get(f.ts.URL + path)
	if err != nil {
		f.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != code {
		f.t.Fatalf("GET %s: %d, want %d:\n%s", path, res.StatusCode, code, b)
	}
	return string(b)
}

// nodeClass is the class of node id's box in a page.
func nodeClassIn(page, id string) string {
	m := regexp.MustCompile(`<a href="[^"]*" class="([^"]*)" data-id="` + regexp.QuoteMeta(id) + `"`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return m[1]
}

// The graph page shows every node boxed and coloured by its status,
// before any drain and after one.
func TestWorldPageColoursNodes(t *testing.T) {
	f := newWorldFixture(t)
	page := f.get("/ui/world", 200)
	for _, id := range []string{"feed", "sum", "report"} {
		if c := nodeClassIn(page, id); !strings.Contains(c, "s-waiting") {
			t.Fatalf("%s before any drain has class %q, want s-waiting", id, c)
		}
	}
	if !strings.Contains(nodeClassIn(page, "feed"), "entry") || strings.Contains(nodeClassIn(page, "sum"), "entry") {
		t.Fatal("feed is the entry point, sum is not")
	}
	if !strings.Contains(page, `>counts</text>`) {
		t.Fatal("the edge from feed to sum is not labelled with its facet")
	}
	f.mustDrain(1, 1)
	f.fail["report"] = true
	f.mustDrain(2, 1)
	page = f.get("/ui/world", 200)
	want := map[string]string{"feed": "s-rendered", "sum": "s-rendered", "report": "s-failed"}
	for id, c := range want {
		if got := nodeClassIn(page, id); !strings.Contains(got, c) {
			t.Errorf("%s has class %q, want %s", id, got, c)
		}
	}
	if !strings.Contains(page, `href="/ui/world/drain/2"`) {
		t.Error("the page does not list drain 2")
	}
}

// The status endpoint answers what moved since a version, so a page that
// missed events catches up.
func TestWorldStatusSince(t *testing.T) {
	f := newWorldFixture(t)
	var c0 struct{ Version int }
	json.Unmarshal([]byte(f.get("/ui/world/status?since=0", 200)), &c0)
	f.mustDrain(1, 1)
	f.get("/ui/world/status?since=0", 200) // another page's poll in between
	f.mustDrain(2, 1)
	var c struct {
		Version int
		Nodes   []struct{ ID, Status string }
		Classes map[string]string
	}
	if err := json.Unmarshal([]byte(f.get("/ui/world/status?since="+itoa(c0.Version), 200)), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Nodes) != 3 || c.Version <= c0.Version {
		t.Fatalf("since %d: %+v", c0.Version, c)
	}
	for _, n := range c.Nodes {
		if n.Status != "rendered" || !strings.Contains(c.Classes[n.ID], "s-rendered") {
			t.Fatalf("node %+v, class %q", n, c.Classes[n.ID])
		}
	}
	f.get("/ui/world/status?since=x", 400)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A node's page diffs its last two versions by default, naming the
// field that moved; a drain's page lists its steps.
func TestWorldNodeAndDrainPages(t *testing.T) {
	f := newWorldFixture(t)
	f.mustDrain(1, 1)
	f.mustDrain(5, 1)
	page := f.get("/ui/world/node/sum", 200)
	if !regexp.MustCompile(`<code class="path">total</code></td><td>changed</td><td><code class="from">1</code></td><td><code class="to">5</code>`).MatchString(page) {
		t.Fatalf("the node page does not diff total 1 -> 5:\n%s", page)
	}
	if strings.Contains(page, "verification fails") {
		t.Fatal("an untouched node fails verification")
	}
	if !strings.Contains(page, `href="/ui/world/node/feed">feed</a>'s receipt of drain 2 step 1`) {
		t.Fatal("the second render's wake does not name feed's receipt")
	}
	f.get("/ui/world/node/nosuch", 404)
	d := f.get("/ui/world/drain/2?step=1", 200)
	if !strings.Contains(nodeClassIn(d, "feed"), "current") || !strings.Contains(nodeClassIn(d, "sum"), "s-stale") {
		t.Fatalf("drain 2 at step 1: feed %q, sum %q", nodeClassIn(d, "feed"), nodeClassIn(d, "sum"))
	}
	if !strings.Contains(d, `id="replay-data">{"before":`) {
		t.Fatal("the replay's data is not JSON in the page")
	}
	f.get("/ui/world/drain/9", 404)
}

// An edited truth fails verification on the node's page, at the truth,
// and on the graph.
func TestWorldEditedTruth(t *testing.T) {
	f := newWorldFixture(t)
	f.mustDrain(1, 1)
	st, _ := store.Open(f.state)
	os.WriteFile(st.TruthPath("sum"), []byte(`{"label":"total","total":42}`+"\n"), 0o600)
	page := f.get("/ui/world/node/sum", 200)
	i, j := strings.Index(page, `id="truth"`), strings.Index(page, `id="versions"`)
	if i < 0 || j < i || !strings.Contains(page[i:j], "verification fails") || !strings.Contains(page[i:j], "edited") || !strings.Contains(page[i:j], "42") {
		t.Fatalf("the truth section does not show the edit failing verification:\n%s", page[max(i, 0):max(j, 0)])
	}
	g := f.get("/ui/world", 200)
	if !strings.Contains(nodeClassIn(g, "sum"), "failing") || nodeClassIn(g, "report") != "node s-rendered k-responsibility" {
		t.Fatalf("graph: sum %q, report %q", nodeClassIn(g, "sum"), nodeClassIn(g, "report"))
	}
}

// A drain's page lists a window of steps that holds the step shown.
func TestStepWindow(t *testing.T) {
	for _, c := range []struct{ k, n, lo, hi int }{
		{0, 1000, 0, 100}, {500, 1000, 450, 550}, {1000, 1000, 900, 1000}, {3, 5, 0, 5}, {0, 0, 0, 0},
	} {
		if lo, hi := stepWindow(c.k, c.n); lo != c.lo || hi != c.hi {
			t.Errorf("stepWindow(%d, %d) = %d, %d; want %d, %d", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

func TestShownPath(t *testing.T) {
	for _, c := range []struct{ root, dir, want string }{
		{"/p", "/p/.prose/world", ".prose/world"},
		{"/p", "/q/world", "/q/world"},
		{"/p", "/p/../pw", "/p/../pw"}, {"/p", "/p/..x/w", "..x/w"},
	} {
		if got := shownPath(c.root, c.dir); got != c.want {
			t.Errorf("shownPath(%s, %s) = %s, want %s", c.root, c.dir, got, c.want)
		}
	}
}
