package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The auth middleware alone, as a non-loopback listener would run it:
// everything but /health wants the exact bearer token.
func TestAuth(t *testing.T) {
	h := Auth("tok", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	cases := []struct {
		path, header string
		want         int
	}{
		{"/health", "", 204},
		{"/status", "", 401},
		{"/status", "Bearer tok", 204},
		{"/status", "bearer tok", 204},
		{"/status", "BEARER  tok", 204},
		{"/status", "Basic tok", 401},
		{"/status", "tok", 401},
		{"/status", "Bearer tok2", 401},
		{"/status", "Bearer to", 401},
		{"/status", "tok", 401},
		{"/trigger/x", "Bearer tok", 204},
		{"/metrics", "Basic dG9r", 401},
	}
	for _, c := range cases {
		req := httptest.NewRequest("GET", c.path, nil)
		if c.header != "" {
			req.Header.Set("Authorization", c.header)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != c.want {
			t.Errorf("%s %q: %d, want %d", c.path, c.header, w.Code, c.want)
		}
		if w.Code == 401 && (w.Header().Get("WWW-Authenticate") == "" || contains([]string{w.Body.String()}, "tok")) {
			t.Errorf("%s: 401 without a challenge, or echoing the token", c.path)
		}
		// A request that sent a header is told it was refused, not that
		// a token is required (which reads as if none had come).
		if w.Code == 401 && (c.header == "") != strings.Contains(w.Body.String(), "a bearer token is required") {
			t.Errorf("%s %q: 401 says %s", c.path, c.header, w.Body.String())
		}
	}
}
