package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
)

// prose serve answers a request at the route a gateway's ### Receives
// declares as POST /trigger/ID for it, beside its own endpoints and its
// page; a route an edit adds is served from the drain that reloads it.
func TestServeDeclaredRoute(t *testing.T) {
	s, file, src := newServedCopy(t)
	routed := strings.Replace(string(src), "### Receives\n\n", "### Receives\n\n- POST /events/counter\n", 1)
	if routed == string(src) {
		t.Fatal("the corpus file changed: no ### Receives to add a route to")
	}
	if err := os.WriteFile(file, []byte(routed), 0o644); err != nil {
		t.Fatal(err)
	}
	s.start()
	defer s.stop()

	s.mu.Lock()
	said := strings.Join(s.lines, "\n")
	s.mu.Unlock()
	if !strings.Contains(said, "routes the gateways declare: POST /events/counter (counter-events)") {
		t.Errorf("prose serve does not say the routes it serves:\n%s", said)
	}
	const event = `{"id":"e1","kind":"click","value":1}`
	code, b := s.do("POST", "/events/counter", "", []byte(event))
	var a ack
	if code != http.StatusAccepted || json.Unmarshal(b, &a) != nil || a.Drain == 0 || a.Duplicate {
		t.Fatalf("POST /events/counter: %d %s", code, b)
	}
	if o := s.outcome(a.Drain); o.Rendered == 0 || o.Error != "" {
		t.Fatalf("the drain of the route's event: %+v", o)
	}
	if rs := gatewayReceipts(t, s.state); len(rs) != 1 || rs[0].Status != "rendered" {
		t.Fatalf("the gateway's receipts after the route's event: %v", rs)
	}
	// The same event by /trigger is the one the route delivered.
	if _, a := s.post(event); !a.Duplicate {
		t.Errorf("the event sent again by /trigger is not a duplicate of the route's: %+v", a)
	}
	code, b = s.do("POST", "/events/other", "", []byte(event))
	if code != http.StatusNotFound || !strings.Contains(string(b), "POST /events/counter (counter-events)") {
		t.Errorf("POST /events/other: %d %s, want a 404 naming the declared route", code, b)
	}
	if code, b := s.do("GET", "/ui", "", nil); code != http.StatusOK {
		t.Errorf("GET /ui beside the routes: %d %s", code, b)
	}

	more := strings.Replace(routed, "- POST /events/counter\n", "- POST /events/counter\n- PUT /events/other\n", 1)
	if err := os.WriteFile(file, []byte(more), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, b := s.do("POST", "/trigger/counter-events", "", nil); code != http.StatusAccepted || json.Unmarshal(b, &a) != nil {
		t.Fatalf("a wake: %d %s", code, b)
	}
	if o := s.outcome(a.Drain); o.Reload != "reloaded" {
		t.Fatalf("after the edit: reload %q, want reloaded", o.Reload)
	}
	if code, b := s.do("PUT", "/events/other", "", []byte(`{"id":"e2","kind":"view","value":2}`)); code != http.StatusAccepted {
		t.Errorf("PUT /events/other after the reload: %d %s", code, b)
	}
}
