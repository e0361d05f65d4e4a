package cli

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// trigger --wait stops at an answer about its drain that is not one of
// a known drain (404 after a restart on another state directory, 401,
// 500), naming it: it never polls on in silence.
func TestTriggerWaitStopsAtABadAnswer(t *testing.T) {
	for _, c := range []struct {
		code int
		body string
	}{
		{http.StatusNotFound, `{"error": "no drain 5"}`},
		{http.StatusUnauthorized, `{"error": "a bearer token is required"}`},
		{http.StatusOK, `not json`},
		{http.StatusOK, `{"drain": 5, "state": "unknown", "outcome": null}`},
	} {
		polls := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == "POST" && r.URL.Path == "/trigger/g":
				w.WriteHeader(http.StatusAccepted)
				w.Write([]byte(`{"drain": 5, "duplicate": false}`))
			case r.Method == "GET" && r.URL.Path == "/drains/5":
				polls++
				if polls == 1 { // first it is queued, as a drain is
					w.Write([]byte(`{"drain": 5, "state": "queued", "outcome": null}`))
					return
				}
				w.WriteHeader(c.code)
				w.Write([]byte(c.body))
			default:
				http.NotFound(w, r)
			}
		}))
		// The deadline only ends a test that would hang; it is no assertion.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var out bytes.Buffer
		err := postTrigger(ctx, streams{out: &out, err: &out}, &triggerOptions{node: "g", server: srv.URL, wait: true}, []byte(`{"a":1}`))
		interrupted := ctx.Err() != nil
		cancel()
		srv.Close()
		var ee *exitError
		switch {
		case interrupted:
			t.Errorf("%d %s: still polling (%d polls)", c.code, c.body, polls)
		case !errors.As(err, &ee) || ee.Code != exitFailure || ee.Err == nil:
			t.Errorf("%d %s: %v, want exit %d with a message", c.code, c.body, err, exitFailure)
		case !strings.Contains(ee.Err.Error(), "drain 5") || !strings.Contains(ee.Err.Error(), c.body):
			t.Errorf("%d %s: %q names neither the drain nor the answer", c.code, c.body, ee.Err)
		}
		if polls != 2 {
			t.Errorf("%d %s: %d polls, want 2", c.code, c.body, polls)
		}
	}
}

// --server wants a URL: a bare HOST:PORT (or another scheme) is a usage
// error naming the flag and the form, not the parser's words about a
// path segment.
func TestTriggerServerNotAURL(t *testing.T) {
	for _, server := range []string{"127.0.0.1:7077", "localhost", "ftp://127.0.0.1:7077", "http://"} {
		var out bytes.Buffer
		err := postTrigger(context.Background(), streams{out: &out, err: &out}, &triggerOptions{node: "g", server: server}, nil)
		var ee *exitError
		if !errors.As(err, &ee) || ee.Code != exitUsage || ee.Err == nil || !strings.Contains(ee.Err.Error(), "--server") || !strings.Contains(ee.Err.Error(), "http://127.0.0.1:7077") {
			t.Errorf("--server %s: %v, want a usage error naming the flag and a URL's form", server, err)
		}
	}
}

// --data that gives nothing (an empty file, blank stdin, blank text) is
// refused before anything is sent: over HTTP an empty body would be a
// manual wake, which the event meant was not.
func TestTriggerEmptyData(t *testing.T) {
	posts := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts++
		w.WriteHeader(http.StatusAccepted)
		w.Write([]byte(`{"drain": 1, "duplicate": false}`))
	}))
	defer srv.Close()
	empty := t.TempDir() + "/empty.json"
	if err := os.WriteFile(empty, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{"@" + empty, "-", " "} {
		var out bytes.Buffer
		err := runTrigger(context.Background(), streams{in: strings.NewReader(" \n"), out: &out, err: &out}, &triggerOptions{node: "g", server: srv.URL, data: data})
		var ee *exitError
		if !errors.As(err, &ee) || ee.Code != exitUsage || ee.Err == nil || !strings.Contains(ee.Err.Error(), "--data") {
			t.Errorf("--data %s: %v, want a usage error naming --data", data, err)
		}
	}
	if posts != 0 {
		t.Errorf("%d posts sent, want none", posts)
	}
}
