package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// Refused triggers queue nothing: too long (413), an unknown node (404),
// an event for a node that is no gateway or one that is not JSON, or not
// JSON the canonical form holds as sent (400).
// An empty body wakes any node (202).
func TestTriggerRefusals(t *testing.T) {
	s := continuityServer(t)
	h := Handler(s, Options{MaxEventBytes: 64})
	post := func(path, body string) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", path, strings.NewReader(body)))
		return w.Code
	}
	cases := []struct {
		path, body string
		want       int
	}{
		{"/trigger/poll", `{"pad":"` + strings.Repeat("x", 64) + `"}`, http.StatusRequestEntityTooLarge},
		{"/trigger/nosuch", `{}`, http.StatusNotFound},
		{"/trigger/review", `{"a":1}`, http.StatusBadRequest},
		{"/trigger/poll", `{"a":`, http.StatusBadRequest},
		{"/trigger/poll", `{"a":1} {"b":2}`, http.StatusBadRequest},
		{"/trigger/poll", `{"a":1e400}`, http.StatusBadRequest},
		{"/trigger/poll", `{"a":"\ud800"}`, http.StatusBadRequest},
	}
	for _, c := range cases {
		if got := post(c.path, c.body); got != c.want {
			t.Errorf("POST %s %q: %d, want %d", c.path, c.body, got, c.want)
		}
	}
	if d := s.Depth(); d != 0 {
		t.Fatalf("refused triggers queued %d entries", d)
	}
	if got := post("/trigger/review", ""); got != http.StatusAccepted {
		t.Errorf("a manual wake: %d, want 202", got)
	}
	if d := s.Depth(); d != 1 {
		t.Errorf("queue depth %d after one wake, want 1", d)
	}
}

// continuityServer is a server, not running, over the continuity graph
// of serve's testdata and a store in a temporary directory.
func continuityServer(tb testing.TB) *serve.Server {
	g, diags, err := graph.Load("../testdata/continuity")
	if err != nil || diags.HasErrors() {
		tb.Fatal(err, diags)
	}
	st, err := store.Open(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	s, err := serve.New(serve.Options{Graph: g, Store: st, Drain: drain.Given(g, nil, nil)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// A facet asked of a node that declares none is answered so, before
// and whether or not it has published, not with an empty list of
// facets.
func TestNodeFacetOfAWhole(t *testing.T) {
	s := continuityServer(t)
	h := Handler(s, Options{})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/nodes/poll?facet=headline", nil))
	if w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "declares no #### facets") {
		t.Errorf("GET /nodes/poll?facet=headline: %d %s", w.Code, w.Body.String())
	}
}
