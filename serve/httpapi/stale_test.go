package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/receipt"
)

// staleBackend is a backend whose last reload failed for why.
type staleBackend struct {
	Backend
	why string
}

func (b staleBackend) Stale() string { return b.why }
func (b staleBackend) Status() (map[string]*receipt.Receipt, error) {
	return map[string]*receipt.Receipt{}, nil
}
func (b staleBackend) Depth() int                                  { return 0 }
func (b staleBackend) Connectors() map[string]serve.ConnectorState { return nil }

// A server serving the graph loaded before a reload that failed says so
// on /status (with why) and on /health, for as long as it holds; one
// whose graph is current says nothing of it.
func TestStatusSaysTheGraphIsStale(t *testing.T) {
	get := func(b Backend, path string) map[string]any {
		t.Helper()
		w := httptest.NewRecorder()
		Handler(b, Options{}).ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		var m map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil || w.Code != 200 {
			t.Fatalf("%s: %d %s", path, w.Code, w.Body)
		}
		return m
	}
	why := "a change to the project's files failed to load, so the graph loaded before is served: note.prose.md:2:1: ..."
	if got := get(staleBackend{why: why}, "/status")["stale"]; got != why {
		t.Errorf("/status stale = %v, want %q", got, why)
	}
	if got := get(staleBackend{why: why}, "/health")["stale"]; got != true {
		t.Errorf("/health stale = %v, want true", got)
	}
	for _, path := range []string{"/status", "/health"} {
		if got, ok := get(staleBackend{}, path)["stale"]; ok {
			t.Errorf("%s of a current graph says stale %v", path, got)
		}
	}
}
