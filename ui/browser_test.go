package ui

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/proselang/prose/internal/browsertest"
)

// newTestServer serves a Server of o on 127.0.0.1 for the test.
func newTestServer(t *testing.T, o Options) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return s, ts
}

// TestBrowserEmptyRuns: the page loads in a browser, its nav is there, and
// every request it makes stays on 127.0.0.1.
func TestBrowserEmptyRuns(t *testing.T) {
	tab := browsertest.New(t)
	_, ts := newTestServer(t, Options{RunDir: t.TempDir()})
	tab.Do(chromedp.Navigate(ts.URL + "/"))
	text := browsertest.Get(tab, chromedp.Text(chromedp.CSS("main")))
	if !strings.Contains(text, "No runs") {
		t.Errorf("the runs page of an empty run directory says %q, want it to say there are no runs", text)
	}
	nav := browsertest.Get(tab, chromedp.Text(chromedp.CSS("nav")))
	for _, want := range []string{"Runs", "World", "Serve"} {
		if !strings.Contains(nav, want) {
			t.Errorf("nav %q lacks %s", nav, want)
		}
	}
	reqs := tab.Requests()
	if len(reqs) < 3 {
		t.Errorf("the tab made %d requests (%v); want the page, its CSS and its script at least", len(reqs), reqs)
	}
}
