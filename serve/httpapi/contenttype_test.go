package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An event sent with a Content-Type other than application/json is
// refused with 415 and queues nothing; application/json (with its
// parameters) and none are taken, and a wake (no body) is taken
// whatever it says.
func TestTriggerContentType(t *testing.T) {
	s := continuityServer(t)
	ts := httptest.NewServer(Handler(s, Options{}))
	defer ts.Close()
	post := func(ct, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("POST", ts.URL+"/trigger/poll", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "application/jsonx", "nonsense/"} {
		code, msg := post(ct, `{"a":1}`)
		if code != http.StatusUnsupportedMediaType || !strings.Contains(msg, "send it as Content-Type: application/json (or with none)") {
			t.Errorf("Content-Type %q: %d %s, want 415 saying what is taken", ct, code, msg)
		}
	}
	if _, msg := post("application/x-www-form-urlencoded", `{"a":1}`); !strings.Contains(msg, "curl -d") {
		t.Errorf("a form's refusal %s does not say how curl sends JSON", msg)
	}
	if d := s.Depth(); d != 0 {
		t.Fatalf("refused triggers queued %d entries", d)
	}
	for i, ct := range []string{"", "application/json", "Application/JSON; charset=utf-8"} {
		body := `{"a":` + string(rune('1'+i)) + `}`
		if code, msg := post(ct, body); code != http.StatusAccepted {
			t.Errorf("Content-Type %q: %d %s, want 202", ct, code, msg)
		}
	}
	if code, msg := post("text/plain", ""); code != http.StatusAccepted {
		t.Errorf("a wake sent as text/plain: %d %s, want 202", code, msg)
	}
}
