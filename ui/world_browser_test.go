package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/proselang/prose/internal/browsertest"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// box is the selector of node id's box with the classes cls.
func box(id, cls string) string {
	return `svg.world-graph a.node` + cls + `[data-id="` + id + `"]`
}

// waitFor waits until sel is in the page.
func waitFor(tab *browsertest.Tab, sel string) {
	tab.Do(chromedp.WaitReady(chromedp.CSS(sel)))
}

// openLive opens the graph page and waits until its event stream is
// open; it marks the window, so that a reload would show.
func openLive(tab *browsertest.Tab, url string) {
	tab.Do(chromedp.Navigate(url+"/ui/world"), chromedp.WaitVisible(chromedp.CSS("#live")))
	browsertest.Get(tab, chromedp.Evaluate[bool](`window.notReloaded = true`))
}

// fill is the colour node id's box is painted with.
func fill(tab *browsertest.Tab, id string) string {
	return browsertest.Get(tab, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('`+box(id, "")+` rect')).fill`))
}

func notReloaded(t *testing.T, tab *browsertest.Tab) {
	t.Helper()
	if !browsertest.Get(tab, chromedp.Evaluate[bool](`window.notReloaded === true`)) {
		t.Fatal("the page was loaded again: the nodes must be coloured without a reload")
	}
}

// A drain started while the page is open colours the nodes as their
// receipts land, without a reload: sum's render is held, and the page
// shows feed committed and sum not yet before sum is let go.
func TestBrowserWorldLiveDrain(t *testing.T) {
	tab := browsertest.New(t)
	f := newWorldFixture(t)
	openLive(tab, f.ts.URL)
	waitFor(tab, box("feed", ".s-waiting"))
	waiting := fill(tab, "feed")

	// The first drain, into a state directory that did not exist.
	f.holdNode, f.hold = "sum", make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- f.drain(1, 1) }()
	waitFor(tab, box("feed", ".s-rendered"))
	if got, want := fill(tab, "feed"), "rgb(218, 251, 225)"; got != want || fill(tab, "sum") != waiting {
		t.Fatalf("feed, rendered, is painted %s (want %s); sum, waiting, %s (want %s)", got, want, fill(tab, "sum"), waiting)
	}
	if got := browsertest.Get(tab, chromedp.AttributeValue(chromedp.CSS(box("sum", "")), "class")); !strings.Contains(got.Value, "s-waiting") {
		t.Fatalf("while sum renders, its box is %q: it has no receipt yet", got.Value)
	}
	close(f.hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitFor(tab, box("report", ".s-rendered"))
	// ui.js may put a fresh copy of the page in place (it does when its
	// stream opens): what follows lands on the copy.
	browsertest.Eval[bool](tab, `(window.proseUI.refresh(), true)`)
	tab.WaitFor(`document.querySelectorAll("#landed li").length == 0`)

	// The second: feed's counts move; sum is stale until its receipt
	// lands, then report is.
	f.hold = make(chan struct{})
	go func() { done <- f.drain(2, 1) }()
	waitFor(tab, box("sum", ".s-stale"))
	if title := browsertest.Get(tab, chromedp.TextContent(chromedp.CSS(box("feed", "")+" title"))); !strings.Contains(title, "drain 2 step 1") {
		t.Fatalf("feed's title %q does not name its receipt of drain 2", title)
	}
	close(f.hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitFor(tab, box("report", ".s-rendered"))
	waitFor(tab, `#landed li:nth-child(3)`)
	landed := browsertest.Get(tab, chromedp.Text(chromedp.CSS("#landed")))
	for _, want := range []string{"drain 2 step 3: report rendered (input)", "drain 2 step 1: feed rendered (external)"} {
		if !strings.Contains(landed, want) {
			t.Errorf("the receipts listed as they landed lack %q:\n%s", want, landed)
		}
	}
	if n := browsertest.Get(tab, chromedp.Text(chromedp.CSS(`.legend .count[data-status="rendered"]`))); n != "3" {
		t.Errorf("the legend counts %s rendered, want 3", n)
	}
	notReloaded(t, tab)
	allLocal(t, tab)
}

// A node's version diff shows the field that moved between any two
// versions chosen on the page.
func TestBrowserWorldVersionDiff(t *testing.T) {
	tab := browsertest.New(t)
	f := newWorldFixture(t)
	f.mustDrain(1, 1)
	f.mustDrain(5, 1)
	f.mustDrain(9, 1)
	tab.Do(chromedp.Navigate(f.ts.URL + "/ui/world/node/sum"))
	opts := browsertest.Get(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('select[name=from] option')].map(o => o.value)`))
	if len(opts) != 3 {
		t.Fatalf("the form offers %d versions, want 3", len(opts))
	}
	tab.Fill(map[string]string{`select[name=from]`: opts[0], `select[name=to]`: opts[2]}, `form.diff button`)
	// The page the form leads to, loaded (the page before had a diff too).
	tab.WaitFor(`new URLSearchParams(location.search).get("from") !== null && document.readyState === "complete" && document.querySelector("table.diff code.to") !== null`)
	row := browsertest.Get(tab, chromedp.Text(chromedp.CSS(`table.diff tbody tr`)))
	if f := strings.Fields(row); strings.Join(f, " ") != "total changed 1 9" {
		t.Fatalf("the diff of the first and the third version reads %q, want total changed 1 9", row)
	}
	tab.Screenshot("world-node")
}

// An edited truth shows as failing verification: on the graph, live,
// and on the node's page at the truth.
func TestBrowserWorldEditedTruth(t *testing.T) {
	tab := browsertest.New(t)
	f := newWorldFixture(t)
	f.mustDrain(1, 1)
	openLive(tab, f.ts.URL)
	waitFor(tab, box("sum", ".s-rendered"))
	st, err := store.Open(f.state)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st.TruthPath("sum"), []byte(`{"label":"total","total":42}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(tab, box("sum", ".failing"))
	notReloaded(t, tab)
	if c := browsertest.Get(tab, chromedp.AttributeValue(chromedp.CSS(box("report", "")), "class")); strings.Contains(c.Value, "failing") {
		t.Fatalf("report, untouched, is %q", c.Value)
	}
	tab.Do(chromedp.Navigate(f.ts.URL + "/ui/world/node/sum"))
	alert := browsertest.Get(tab, chromedp.Text(chromedp.CSS(`#truth + ul.problems`)))
	if !strings.Contains(alert, "verification fails") || !strings.Contains(alert, "truth.json") || !strings.Contains(alert, "edited") {
		t.Fatalf("the truth's problem reads %q", alert)
	}
	if truth := browsertest.Get(tab, chromedp.Text(chromedp.CSS(`pre.truth.failing`))); !strings.Contains(truth, "42") {
		t.Fatalf("the page shows %q, not the file as it is", truth)
	}
}

// A drain's page steps through the drain without a reload.
func TestBrowserWorldDrainReplay(t *testing.T) {
	tab := browsertest.New(t)
	f := newWorldFixture(t)
	f.mustDrain(1, 1)
	f.mustDrain(2, 1)
	tab.Do(chromedp.Navigate(f.ts.URL + "/ui/world/drain/2?step=0"))
	browsertest.Get(tab, chromedp.Evaluate[bool](`window.notReloaded = true`))
	waitFor(tab, box("sum", ".s-rendered"))
	tab.Click(`nav.replay a[data-step=next]`)
	waitFor(tab, box("sum", ".s-stale"))
	waitFor(tab, box("feed", ".current"))
	tab.Click(`nav.replay a[data-step=next]`)
	waitFor(tab, box("report", ".s-stale"))
	waitFor(tab, `table.steps tr#step-2[aria-current=step]`)
	if at := browsertest.Get(tab, chromedp.Text(chromedp.CSS("#replay-at"))); at != "Step 2 of 3" {
		t.Fatalf("the replay says %q", at)
	}
	notReloaded(t, tab)
}

// TestBrowserWorldScreenshot draws a world of thirteen nodes in every
// status and takes the pictures of the README (with
// PROSE_UI_SCREENSHOTS set).
func TestBrowserWorldScreenshot(t *testing.T) {
	tab := browsertest.New(t)
	f := newWorldFixture(t)
	// A wider world than the fixture's: lanes reading report, and a
	// digest of them.
	for i := 1; i <= 8; i++ {
		src := worldContract(fmt.Sprintf("lane-%d", i), "responsibility", "- `report`: the truth of `report`.", "- `seen`: the report")
		os.WriteFile(filepath.Join(f.dir, fmt.Sprintf("lane-%d.prose.md", i)), []byte(src), 0o644)
	}
	os.WriteFile(filepath.Join(f.dir, "digest.prose.md"), []byte(worldContract("digest", "responsibility",
		"- `lanes`: the truths of `lane-1`, `lane-2`, `lane-3` and `lane-4`.", "- `seen`: the lanes")), 0o644)
	os.WriteFile(filepath.Join(f.dir, "audit.prose.md"), []byte(worldContract("audit", "gateway", "", "- `log`: what was audited")), 0o644)
	g, diags, err := graph.Load(f.dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	f.g = g
	f.tokens = 120
	f.srv, f.ts = newTestServer(t, Options{RunDir: filepath.Join(f.dir, ".prose", "runs"), StateDir: f.state, Graph: g, Poll: 20e6})
	f.mustDrain(1, 1)
	f.fail["lane-3"] = true
	f.mustDrain(2, 1)
	f.fail["lane-3"] = false
	f.holdNode, f.hold = "report", make(chan struct{})
	done := make(chan error, 1)
	openLive(tab, f.ts.URL)
	go func() { done <- f.drain(3, 1) }()
	waitFor(tab, box("sum", ".s-rendered"))
	waitFor(tab, box("report", ".s-stale"))
	counts := browsertest.Get(tab, chromedp.Text(chromedp.CSS(".legend")))
	for _, want := range []string{"rendered 10", "failed 1", "stale 1", "waiting 1"} {
		if !strings.Contains(strings.Join(strings.Fields(counts), " "), want) {
			t.Errorf("the legend %q lacks %q", counts, want)
		}
	}
	tab.Screenshot("world")
	close(f.hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	tab.Do(chromedp.Navigate(f.ts.URL + "/ui/world/drain/3?step=3"))
	waitFor(tab, box("report", ".current"))
	tab.Screenshot("world-drain")
}

// The graph is keyboard-navigable: Tab reaches each node's box, Enter
// opens its page; no request of the world pages leaves 127.0.0.1.
func TestBrowserWorldKeyboard(t *testing.T) {
	tab := browsertest.New(t)
	f := newWorldFixture(t)
	f.mustDrain(1, 1)
	tab.Do(chromedp.Navigate(f.ts.URL + "/ui/world"))
	waitFor(tab, box("sum", ".s-rendered"))
	var reached []string
	for range 20 {
		tab.Do(chromedp.KeyEvent(kb.Tab))
		id := browsertest.Eval[string](tab, `document.activeElement.getAttribute("data-id") || ""`)
		reached = append(reached, id)
		if id == "sum" {
			break
		}
	}
	if reached[len(reached)-1] != "sum" || !contains(reached, "feed") {
		t.Fatalf("Tab reaches %q, not feed then sum", reached)
	}
	tab.Do(chromedp.KeyEvent(kb.Enter))
	tab.WaitFor(`location.pathname == "/ui/world/node/sum" && document.querySelector("h1") !== null`)
	allLocal(t, tab)
}
