package ui

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/internal/browsertest"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// newTestServer serves a Server of o on 127.0.0.1 for the test.
func newTestServer(t *testing.T, o Options) (*Server, *httptest.Server) {
	t.Helper()
	if o.Poll == 0 {
		o.Poll = 20 * time.Millisecond
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close()
		ts.CloseClientConnections()
		ts.Close()
	})
	return s, ts
}

// allLocal checks that the tab made requests, every one to 127.0.0.1
// (the tab also fails the test at once on another).
func allLocal(t *testing.T, tab *browsertest.Tab) {
	t.Helper()
	reqs := tab.Requests()
	if len(reqs) == 0 {
		t.Fatal("the tab made no requests")
	}
	for _, u := range reqs {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Errorf("the tab asked for %s", u)
		}
	}
}

// TestBrowserRunsList: in Chromium the list shows a finished, a failed and
// a waiting run with their statuses, a run's page shows the failed call's
// spec line, and no request leaves 127.0.0.1.
func TestBrowserRunsList(t *testing.T) {
	r := newRuns(t, "fine", "broken", "release", "fan")
	tab := browsertest.New(t)
	_, ts := newTestServer(t, Options{RunDir: r.runDir})
	tab.Do(chromedp.Navigate(ts.URL + "/"))
	tab.WaitFor(`document.querySelectorAll("#runs tr[data-run]").length == 4`)
	rows := browsertest.Eval[[]string](tab, `Array.from(document.querySelectorAll("#runs tr[data-run]")).map(r => r.dataset.run + " " + r.querySelector(".status").textContent)`)
	for name, status := range map[string]string{"fine": "ok", "broken": "error", "release": "waiting"} {
		if !contains(rows, r.ids[name]+" "+status) {
			t.Errorf("the list shows %q; want run %s (%s) as %s", rows, r.ids[name], name, status)
		}
	}
	gates := browsertest.Eval[string](tab, fmt.Sprintf(`document.querySelector('tr[data-run=%q] td:last-child').textContent`, r.ids["release"]))
	if strings.TrimSpace(gates) != "1" {
		t.Errorf("the waiting run's gates column says %q, want 1", gates)
	}
	tab.Screenshot("runs")
	// keyboard: the first Tab reaches the skip link, Enter moves to the
	// content, and the next Tabs reach the filter and each run's link
	tab.Do(chromedp.KeyEvent(kb.Tab))
	if got := browsertest.Eval[string](tab, `document.activeElement.textContent`); got != "Skip to content" {
		t.Errorf("the first Tab focuses %q, want the skip link", got)
	}
	tab.Do(chromedp.KeyEvent(kb.Enter))
	tab.WaitFor(`location.hash == "#main"`)
	var reached []string
	for i := 0; i < 12; i++ {
		tab.Do(chromedp.KeyEvent(kb.Tab))
		reached = append(reached, browsertest.Eval[string](tab, `document.activeElement.id || document.activeElement.textContent`))
	}
	for _, want := range []string{"f-status", "f-q", r.ids["broken"]} {
		if !contains(reached, want) {
			t.Errorf("Tab from the content reaches %q, not %s", reached, want)
		}
	}
	// a filter narrows the list
	tab.Fill(map[string]string{"#f-status": "error"}, "form.filter button")
	tab.WaitFor(`location.search.includes("status=error") && document.querySelectorAll("#runs tr[data-run]").length == 1`)
	// a run's page: the failure at its line, keyboard-reachable links
	tab.Click(fmt.Sprintf(`a[href="/ui/runs/%s"]`, r.ids["broken"]))
	tab.WaitFor(`document.querySelector(".source .hit") !== null`)
	hit := browsertest.Eval[string](tab, `document.querySelector(".source .hit").textContent`)
	if !strings.Contains(hit, `let done = call worker`) {
		t.Errorf("the failed run's page marks %q as its failing line", hit)
	}
	tab.Screenshot("run")
	tab.Do(chromedp.Navigate(ts.URL + "/ui/runs/" + r.ids["release"]))
	tab.WaitFor(`document.querySelector("form.gate") !== null`)
	tab.Screenshot("gate")
	tab.Do(chromedp.Navigate(ts.URL + "/ui/runs/" + r.ids["fan"]))
	tab.WaitFor(`document.querySelectorAll(".branches .branch").length == 2`)
	allLocal(t, tab)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestBrowserLiveRuns: a run journaled while the list is open shows on it
// without a reload (server-sent events).
func TestBrowserLiveRuns(t *testing.T) {
	r := newRuns(t, "fine")
	tab := browsertest.New(t)
	_, ts := newTestServer(t, Options{RunDir: r.runDir})
	tab.Do(chromedp.Navigate(ts.URL + "/ui/"))
	tab.WaitFor(`document.querySelectorAll("#runs tr[data-run]").length == 1 && !document.getElementById("live").hidden`)
	browsertest.Eval[bool](tab, `window.notReloaded = true`)
	req := run.Request{Spec: "fine.prose.md", Dir: r.dir, Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "worker", Value: "go:w"}}}}
	res, err := run.Local{}.Run(context.Background(), req, r.opts)
	if err != nil {
		t.Fatal(err)
	}
	tab.WaitFor(fmt.Sprintf(`document.querySelector('tr[data-run=%q]') !== null`, res.RunID))
	if !browsertest.Eval[bool](tab, `window.notReloaded === true`) {
		t.Error("the page was reloaded; want it updated in place")
	}
}

// TestBrowserCrossSitePost: a page of another origin (another port of
// 127.0.0.1) that posts an answer to the run's form changes nothing.
func TestBrowserCrossSitePost(t *testing.T) {
	r := newRuns(t, "release")
	id := r.ids["release"]
	gs, _ := journal.Waiting(r.runDir, id)
	s, ts := newTestServer(t, Options{RunDir: r.runDir})
	// It even knows the CSRF token: the origin checks alone refuse it.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!doctype html><form id=f method=post action="%s/ui/runs/%s/answer"><input name=gate value=%q><input name=value value=evil><input name=csrf value=%q></form><script>document.getElementById("f").submit()</script>`,
			ts.URL, id, gs[0].Path.Key(), s.csrf)
	}))
	defer evil.Close()
	tab := browsertest.New(t)
	tab.Do(chromedp.Navigate(evil.URL))
	tab.WaitFor(`location.href.includes("/answer") && document.body.textContent.includes("refused")`)
	if gs, _ := journal.Waiting(r.runDir, id); gs[0].Answer != nil {
		t.Fatalf("a cross-site post recorded the answer %s", gs[0].Answer)
	}
}

// TestBrowserServe: the serve page of a served world shows its queue, and
// its form queues an event for a gateway as POST /trigger does: a second
// send of the same event is a duplicate.
func TestBrowserServe(t *testing.T) {
	g, diags, err := graph.Load("../serve/testdata/continuity")
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	state := t.TempDir()
	st, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Options{Graph: g, Store: st, Drain: drain.Given(g, nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	runDir := filepath.Join(t.TempDir(), "runs")
	_, ts := newTestServer(t, Options{RunDir: runDir, StateDir: state, Graph: g, Backend: srv,
		Started: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC), Now: func() time.Time { return time.Date(2026, 12, 1, 8, 30, 0, 0, time.UTC) }})
	tab := browsertest.New(t)
	tab.Do(chromedp.Navigate(ts.URL + "/ui/serve"))
	tab.WaitFor(`document.getElementById("depth") !== null`)
	// poll's schedule is the half hours from 9; review, weekly, never
	// fired: serve wakes it at once
	wakes := browsertest.Eval[string](tab, `Array.from(document.querySelectorAll("#wakes tbody tr")).map(r => r.cells[0].textContent + ": " + r.cells[1].textContent).join("; ")`)
	if want := "review: at once (it never fired); poll: 2026-12-01 09:00:00Z"; wakes != want {
		t.Errorf("the next wakes say %q, want %q", wakes, want)
	}
	for i := 1; i <= 2; i++ {
		tab.Fill(map[string]string{"#t-node": "poll", "#t-event": `{"id": 7, "title": "x"}`}, "#trigger button")
		tab.WaitFor(fmt.Sprintf(`document.getElementById("depth") && document.getElementById("depth").textContent.trim() == "%d"`, i))
	}
	notice := browsertest.Eval[string](tab, `document.getElementById("notice").textContent`)
	if !strings.Contains(notice, "duplicate") {
		t.Errorf("the second send of one event says %q, want it called a duplicate", notice)
	}
	v, err := serve.ReadQueue(state)
	if err != nil || v.Accepted != 2 || v.Duplicates != 1 {
		t.Fatalf("the queue holds %+v (%v), want 2 accepted, 1 duplicate", v, err)
	}
	if got := browsertest.Eval[string](tab, `document.getElementById("accepted").textContent + "/" + document.getElementById("duplicates").textContent`); got != "2/1" {
		t.Errorf("the page says %s accepted/duplicated, want 2/1", got)
	}
	tab.Screenshot("serve")
}

// TestBrowserWithoutScript: with script turned off the pages read whole
// and a gate is answered by its form alone.
func TestBrowserWithoutScript(t *testing.T) {
	r := newRuns(t, "release")
	id := r.ids["release"]
	tab := browsertest.New(t)
	_, ts := newTestServer(t, Options{RunDir: r.runDir})
	if _, err := chromedp.Call(tab.Ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	tab.Do(chromedp.Navigate(ts.URL + "/ui/"))
	tab.WaitFor(fmt.Sprintf(`document.querySelector('tr[data-run=%q]') !== null`, id))
	if browsertest.Eval[bool](tab, `window.proseUI !== undefined`) {
		t.Fatal("the page's script ran")
	}
	tab.Do(chromedp.Navigate(ts.URL+"/ui/runs/"+id), chromedp.SendKeys(chromedp.CSS(`form.gate input[name=value]`), "v9"),
		chromedp.Click(chromedp.CSS(`form.gate button[type=submit]`)))
	tab.WaitFor(`document.querySelector(".notice") !== null`)
	if gs, _ := journal.Waiting(r.runDir, id); string(gs[0].Answer) != `"v9"` {
		t.Fatalf("the form without script recorded %s, want \"v9\"", gs[0].Answer)
	}
}
