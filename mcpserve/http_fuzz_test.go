package mcpserve

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// DropCancelled reads every POST body a client sends and every event the
// handler writes: whatever they hold, it must not fail, the handler must
// get the body byte for byte, and an event that answers no cancelled
// request must reach the client unchanged.
func FuzzDropCancelled(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}`), []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n"))
	f.Add([]byte(`[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}},{"id":"a","method":"x"}]`), []byte("data: {\"id\":\"a\",\"error\":{}}\n\ndata"))
	f.Add([]byte(`{"id":{},"method":"x"}`), []byte("data: not json\n\n"))
	f.Fuzz(func(t *testing.T, body, events []byte) {
		var got []byte
		h := DropCancelled(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got, _ = io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(events)
		}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
		if !bytes.Equal(got, body) {
			t.Fatalf("the handler read %q, want %q", got, body)
		}
		// No cancellation came before the events: all pass.
		if rec.Body.String() != string(events) && !strings.Contains(string(body), "cancelled") {
			t.Fatalf("events %q reached the client as %q", events, rec.Body.String())
		}
	})
}
