package llm

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A server that sends its headers and then closes the connection
// mid-body was reached: the attempt is retried, and when every attempt
// breaks off, the error says so instead of "cannot reach" and a check of
// the base URL.
func TestReplyCutMidBody(t *testing.T) {
	for _, cuts := range []int32{1, 100} {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) <= cuts {
				w.Header().Set("Content-Length", "500")
				w.WriteHeader(200)
				w.Write([]byte(`{"id":"x","choices":[{"mess`))
				w.(http.Flusher).Flush()
				conn, _, _ := w.(http.Hijacker).Hijack()
				conn.Close()
				return
			}
			w.Write([]byte(completion(`{"role":"assistant","content":"fine"}`, "stop", "")))
		}))
		sl := &sleeps{}
		c, err := NewClient(Config{BaseURL: srv.URL + "/v1", Model: "m", Sleep: sl.sleep, Timeout: 5 * time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		reply, err := chat(t, c)
		srv.Close()
		switch {
		case cuts == 1 && (err != nil || reply.Content != "fine" || n.Load() != 2):
			t.Errorf("one cut reply: %q, %v after %d requests, want the retry's answer", reply.Content, err, n.Load())
		case cuts > 1 && (err == nil || !strings.Contains(err.Error(), "broke off its reply") || strings.Contains(err.Error(), "cannot reach")):
			t.Errorf("every reply cut: %v", err)
		}
	}
}
