package ui

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/proselang/prose/journal"
)

// TestTokenEveryPageAndAction: with a token, every page, the events, the
// assets and every action answer 401 without it; ?token= sets a cookie
// and leads to the URL without the token, after which the pages answer.
func TestTokenEveryPageAndAction(t *testing.T) {
	r := newRuns(t, "release")
	id := r.ids["release"]
	_, ts := newTestServer(t, Options{RunDir: r.runDir, Token: "s3cret-token-of-the-test"})
	c := ts.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, p := range []string{"/", "/ui/", "/ui/runs/" + id, "/ui/serve", "/ui/world", "/ui/events?topic=runs", "/ui/static/ui.css", "/ui/?token=wrong"} {
		if code, _ := get(t, c, ts.URL+p); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", p, code)
		}
	}
	for _, p := range []string{"/ui/runs/" + id + "/answer", "/ui/runs/" + id + "/resume", "/ui/serve/trigger"} {
		resp, err := c.PostForm(ts.URL+p, url.Values{"gate": {"L17"}, "value": {"x"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("POST %s without the token: %d, want 401", p, resp.StatusCode)
		}
	}
	if gs, _ := journal.Waiting(r.runDir, id); len(gs) != 1 || gs[0].Answer != nil {
		t.Fatalf("a refused answer was recorded: %+v", gs)
	}
	// the token in the URL once: a cookie, and the URL without it
	resp, err := c.Get(ts.URL + "/ui/runs/" + id + "?token=s3cret-token-of-the-test")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/runs/"+id || len(resp.Cookies()) != 1 || !resp.Cookies()[0].HttpOnly {
		t.Fatalf("?token=: %d to %q with cookies %v; want 303 to the URL without it and an HttpOnly cookie", resp.StatusCode, resp.Header.Get("Location"), resp.Cookies())
	}
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(ts.URL)
	jar.SetCookies(u, resp.Cookies())
	c.Jar = jar
	code, body := get(t, c, ts.URL+"/ui/runs/"+id)
	if code != 200 || strings.Contains(body, "s3cret-token-of-the-test") {
		t.Errorf("with the cookie: %d (want 200), the token in the page: %v", code, strings.Contains(body, "s3cret-token-of-the-test"))
	}
	// a bearer header works as for prose serve
	req, _ := http.NewRequest("GET", ts.URL+"/ui/", nil)
	req.Header.Set("Authorization", "Bearer s3cret-token-of-the-test")
	resp, err = ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with the bearer header: %d, want 200", resp.StatusCode)
	}
}

// TestCrossSitePostRefused: an answer posted from another site (by its
// Sec-Fetch-Site, by its Origin) or without the form's CSRF token changes
// nothing; the same form from the page itself is recorded.
func TestCrossSitePostRefused(t *testing.T) {
	r := newRuns(t, "release")
	id := r.ids["release"]
	s, ts := newTestServer(t, Options{RunDir: r.runDir})
	gs, _ := journal.Waiting(r.runDir, id)
	form := url.Values{"gate": {gs[0].Path.Key()}, "value": {"v1"}, "csrf": {s.csrf}}
	post := func(form url.Values, hdr map[string]string) int {
		req, _ := http.NewRequest("POST", ts.URL+"/ui/runs/"+id+"/answer", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		c := *ts.Client()
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	noCSRF := url.Values{"gate": form["gate"], "value": form["value"]}
	for _, tc := range []struct {
		name string
		form url.Values
		hdr  map[string]string
	}{
		{"cross-site", form, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"same-site other port", form, map[string]string{"Sec-Fetch-Site": "same-site"}},
		{"other origin", form, map[string]string{"Origin": "http://evil.example"}},
		{"no csrf token", noCSRF, nil},
		{"wrong csrf token", url.Values{"gate": form["gate"], "value": form["value"], "csrf": {"0000"}}, nil},
	} {
		if code := post(tc.form, tc.hdr); code != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", tc.name, code)
		}
	}
	if gs, _ := journal.Waiting(r.runDir, id); gs[0].Answer != nil {
		t.Fatalf("a refused post recorded the answer %s", gs[0].Answer)
	}
	if code := post(form, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": ts.URL}); code != http.StatusSeeOther {
		t.Fatalf("the page's own post: %d, want 303", code)
	}
	if gs, _ := journal.Waiting(r.runDir, id); string(gs[0].Answer) != `"v1"` {
		t.Fatalf("the page's own post recorded %s, want \"v1\"", gs[0].Answer)
	}
}

// TestHostNotLoopbackRefused: without a token, a request whose Host names
// another machine (a name rebound to 127.0.0.1) is refused.
func TestHostNotLoopbackRefused(t *testing.T) {
	_, ts := newTestServer(t, Options{RunDir: t.TempDir()})
	for host, want := range map[string]int{"evil.example:80": 403, "localhost:1": 200, "127.0.0.1:9": 200, "[::1]:9": 200} {
		req, _ := http.NewRequest("GET", ts.URL+"/ui/", nil)
		req.Host = host
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
}
