package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzTriggerBody: any POST body to any node path is answered with one
// of the documented statuses (202 queued, 400, 404, 413) and a JSON body,
// never a panic; a refused one queues nothing, an accepted one at most
// one entry.
func FuzzTriggerBody(f *testing.F) {
	for _, s := range []struct{ node, body string }{
		{"poll", `{"a":1}`}, {"poll", ""}, {"review", `{"a":1}`}, {"review", ""}, {"nosuch", "{}"},
		{"poll", `{"a":`}, {"poll", `{"a":1} {"b":2}`}, {"poll", "\xff\xfe"}, {"poll", `[1,2,3]`}, {"poll", `"x"`},
		{"poll", `{"pad":"` + strings.Repeat("x", 300) + `"}`}, {"..%2f..", "{}"}, {"poll%00", "{}"},
	} {
		f.Add(s.node, []byte(s.body))
	}
	s := continuityServer(f)
	h := Handler(s, Options{MaxEventBytes: 256})
	f.Fuzz(func(t *testing.T, node string, body []byte) {
		target := "/trigger/" + node
		if strings.ContainsAny(node, "/?#% \t\r\n") || !validTarget(target) {
			return // not a request line a client can send to this route
		}
		before := s.Depth()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", target, strings.NewReader(string(body))))
		after := s.Depth()
		switch w.Code {
		case http.StatusAccepted:
			if after > before+1 {
				t.Fatalf("one trigger queued %d entries", after-before)
			}
		case http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusMethodNotAllowed,
			// the mux redirects a path it cleans (/trigger/. to /trigger/)
			http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusMovedPermanently:
			if after != before {
				t.Fatalf("a refused trigger (%d) queued %d entries", w.Code, after-before)
			}
		default:
			t.Fatalf("POST %s %q: status %d: %s", target, body, w.Code, w.Body.String())
		}
		if w.Code == http.StatusAccepted || w.Code == http.StatusBadRequest || w.Code == http.StatusRequestEntityTooLarge {
			if !json.Valid(w.Body.Bytes()) {
				t.Fatalf("POST %s: status %d with a body that is not JSON: %q", target, w.Code, w.Body.String())
			}
		}
	})
}

// validTarget reports whether httptest.NewRequest accepts target (it
// panics on a request line net/http cannot parse).
func validTarget(target string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	httptest.NewRequest("POST", target, nil)
	return true
}
