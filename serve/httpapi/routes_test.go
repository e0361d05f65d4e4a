package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// inboxSpec is a gateway whose Receives declares routes (one item each)
// and the shape of its events.
func inboxSpec(routes ...string) string {
	return "---\nname: inbox\nkind: gateway\n---\n\n# Inbox\n\n### Continuity\n\n- external-driven\n\n### Receives\n\n" +
		strings.Join(routes, "\n") + "\n- An email: `{ id, subject }`\n\n### Maintains\n\n- `mail`: the emails delivered, latest last\n"
}

// echo renders a gateway's truth as the events it was delivered.
type echo struct{}

func (echo) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	return &reconcile.Answer{Truth: map[string]any{"mail": append([]any{}, req.Events...)}}, nil
}

// routeServer serves the project in dir as prose serve does: reloading
// it from its files before each drain, rendering with echo.
func routeServer(t *testing.T, dir string) *serve.Server {
	t.Helper()
	load := func(specs *specgraph.Graph) (*serve.Reloaded, error) {
		g, diags, err := graph.LoadWith(dir, specs)
		if err != nil {
			return nil, err
		}
		if diags.HasErrors() {
			return nil, errors.New(diags.Errors().String())
		}
		return &serve.Reloaded{Graph: g, Drain: drain.Given(g, func(*graph.Node) (reconcile.Renderer, error) { return echo{}, nil }, nil)}, nil
	}
	first, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := serve.New(serve.Options{Graph: first.Graph, Drain: first.Drain, Store: st, Reload: load})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func writeInbox(t *testing.T, dir string, routes ...string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "inbox.prose.md"), []byte(inboxSpec(routes...)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// do sends one request to h and returns the answer.
func do(h http.Handler, method, target, body string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// A POST at the route a gateway declares is POST /trigger/ID for it: the
// same answer, the same event delivered and committed, the same receipt.
func TestRouteIsTrigger(t *testing.T) {
	dir := t.TempDir()
	writeInbox(t, dir, "- POST /inbox/deliver")
	const event = `{"id": "e1", "subject": "hello"}`
	var answers []string
	var truths []any
	var wakes []string
	for _, target := range []string{"/inbox/deliver", "/trigger/inbox"} {
		s := routeServer(t, dir)
		w := do(Handler(s, Options{}), "POST", target, event)
		if w.Code != http.StatusAccepted {
			t.Fatalf("POST %s: %d %s", target, w.Code, w.Body)
		}
		answers = append(answers, w.Body.String())
		if err := s.DrainQueued(context.Background()); err != nil {
			t.Fatal(err)
		}
		v, ok, err := s.Store().CheckedTruth("inbox")
		if err != nil || !ok {
			t.Fatalf("POST %s: no truth committed (%v)", target, err)
		}
		truths = append(truths, v)
		r, err := s.Store().Last("inbox")
		if err != nil || r == nil {
			t.Fatal(err)
		}
		wake, _ := json.Marshal(r.Wake)
		wakes = append(wakes, string(r.Status)+" "+string(wake))
	}
	if answers[0] != answers[1] {
		t.Errorf("the route answered %s, /trigger %s", answers[0], answers[1])
	}
	want := map[string]any{"mail": []any{map[string]any{"id": "e1", "subject": "hello"}}}
	if !reflect.DeepEqual(truths[0], want) || !reflect.DeepEqual(truths[1], want) {
		t.Errorf("truths %v and %v, want %v", truths[0], truths[1], want)
	}
	if wakes[0] != wakes[1] {
		t.Errorf("receipts differ: route %s, trigger %s", wakes[0], wakes[1])
	}
}

// A route refuses what /trigger refuses, queueing nothing; a method the
// gateway does not declare is a 405 naming the one it does; a path
// nothing answers is a 404 naming the routes; serve's own endpoints
// answer as before.
func TestRouteRefusals(t *testing.T) {
	dir := t.TempDir()
	writeInbox(t, dir, "- POST /inbox/deliver", "- PUT /inbox/deliver")
	s := routeServer(t, dir)
	h := Handler(s, Options{MaxEventBytes: 64})
	cases := []struct {
		method, target, body string
		want                 int
		says                 string
	}{
		{"POST", "/inbox/deliver", `{"id": "e1", "subject": "` + strings.Repeat("x", 64) + `"}`, http.StatusRequestEntityTooLarge, "larger than 64 bytes"},
		{"POST", "/inbox/deliver", `{"id": "e1"}`, http.StatusBadRequest, `lacks \"subject\"`},
		{"PUT", "/inbox/deliver", `{"id": "e1", "subjcet": "x"}`, http.StatusBadRequest, "did you mean"},
		{"POST", "/inbox/deliver", `{"id":`, http.StatusBadRequest, ""},
		{"GET", "/inbox/deliver", ``, http.StatusMethodNotAllowed, "route by POST, PUT"},
		{"DELETE", "/inbox/deliver", ``, http.StatusMethodNotAllowed, "inbox.prose.md:14:3"},
		{"POST", "/inbox/deliver/", `{}`, http.StatusNotFound, "the routes the gateways declare are POST /inbox/deliver (inbox), PUT /inbox/deliver (inbox)"},
		{"POST", "/inbox", `{}`, http.StatusNotFound, "POST /trigger/ID"},
		{"GET", "/", ``, http.StatusNotFound, "nothing is served at /"},
		{"POST", "/status", ``, http.StatusMethodNotAllowed, ""},
		{"GET", "/status", ``, http.StatusOK, "queue_depth"},
		{"GET", "/nodes/nosuch", ``, http.StatusNotFound, "no node"},
	}
	for _, c := range cases {
		w := do(h, c.method, c.target, c.body)
		if w.Code != c.want || !strings.Contains(w.Body.String(), c.says) {
			t.Errorf("%s %s %s: %d %s, want %d saying %q", c.method, c.target, c.body, w.Code, w.Body, c.want, c.says)
		}
	}
	if w := do(h, "POST", "/inbox/deliver", `{"id": "e1", "subject": "x"}`, "Content-Type", "text/plain"); w.Code != http.StatusUnsupportedMediaType || !strings.Contains(w.Body.String(), "POST /inbox/deliver takes a JSON event") {
		t.Errorf("an event sent as text/plain at the route: %d %s, want 415 as /trigger answers, naming the route", w.Code, w.Body)
	}
	if w := do(h, "GET", "/inbox/deliver", ""); w.Header().Get("Allow") != "POST, PUT" {
		t.Errorf("405 allows %q, want POST, PUT", w.Header().Get("Allow"))
	}
	if d := s.Depth(); d != 0 {
		t.Fatalf("refused requests queued %d entries", d)
	}
	if w := do(h, "PUT", "/inbox/deliver", `{"id": "e1", "subject": "x"}`); w.Code != http.StatusAccepted {
		t.Errorf("PUT at the route: %d %s", w.Code, w.Body)
	}
}

// With a token a route wants it as every endpoint does, in the
// Authorization header only.
func TestRouteWantsTheToken(t *testing.T) {
	dir := t.TempDir()
	writeInbox(t, dir, "- POST /inbox/deliver")
	s := routeServer(t, dir)
	h := Handler(s, Options{Token: "tok"})
	const event = `{"id": "e1", "subject": "x"}`
	for _, c := range []struct {
		target string
		header []string
		want   int
	}{
		{"/inbox/deliver", nil, http.StatusUnauthorized},
		{"/inbox/deliver?token=tok", nil, http.StatusUnauthorized},
		{"/inbox/deliver?access_token=tok", nil, http.StatusUnauthorized},
		{"/inbox/deliver", []string{"Authorization", "Bearer nope"}, http.StatusUnauthorized},
		{"/nowhere", nil, http.StatusUnauthorized},
		{"/inbox/deliver", []string{"Authorization", "Bearer tok"}, http.StatusAccepted},
	} {
		w := do(h, "POST", c.target, event, c.header...)
		if w.Code != c.want {
			t.Errorf("POST %s %v: %d %s, want %d", c.target, c.header, w.Code, w.Body, c.want)
		}
		if w.Code == http.StatusUnauthorized && strings.Contains(w.Body.String(), "/inbox/deliver") {
			t.Errorf("a 401 names the routes: %s", w.Body)
		}
	}
}

// A route an edit adds is served from the reload that reads the edit,
// and one an edit removes is no longer, without a restart.
func TestRouteFollowsTheReload(t *testing.T) {
	dir := t.TempDir()
	writeInbox(t, dir, "- POST /inbox/deliver")
	s := routeServer(t, dir)
	h := Handler(s, Options{})
	const event = `{"id": "e1", "subject": "x"}`
	drainNow := func() {
		t.Helper()
		if w := do(h, "POST", "/trigger/inbox", ""); w.Code != http.StatusAccepted {
			t.Fatalf("wake: %d %s", w.Code, w.Body)
		}
		if err := s.DrainQueued(context.Background()); err != nil {
			t.Fatal(err)
		}
		if why := s.Stale(); why != "" {
			t.Fatalf("the reload failed: %s", why)
		}
	}
	if w := do(h, "POST", "/inbox/redeliver", event); w.Code != http.StatusNotFound {
		t.Fatalf("an undeclared route: %d %s", w.Code, w.Body)
	}
	writeInbox(t, dir, "- POST /inbox/redeliver")
	drainNow()
	if w := do(h, "POST", "/inbox/redeliver", event); w.Code != http.StatusAccepted {
		t.Errorf("the route the edit added: %d %s", w.Code, w.Body)
	}
	if w := do(h, "POST", "/inbox/deliver", event); w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "are POST /inbox/redeliver (inbox)") {
		t.Errorf("the route the edit removed: %d %s", w.Code, w.Body)
	}
}

// Every path serve registers (this package's endpoints, the page the
// command mounts beside them) is one graph.ServeEndpoints names, so lint
// refuses a route serve would answer itself: a new endpoint must be
// added there.
func TestServeEndpointsAreReserved(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	files = append(files, filepath.Join("..", "..", "internal", "cli", "ui.go"))
	re := regexp.MustCompile(`\bmux\.Handle(?:Func)?\("(?:[A-Z]+ )?(/[^"]*)"`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			seen++
			pat := regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(m[1], "x")
			if pat == "/" {
				continue // the API itself, mounted below the page
			}
			if graph.ServeEndpoint(pat) == "" {
				t.Errorf("%s registers %s, which graph.ServeEndpoints does not reserve: a gateway could declare it as a route", f, m[1])
			}
		}
	}
	if seen < 10 {
		t.Fatalf("found %d registered paths: the pattern no longer reads them", seen)
	}
}
