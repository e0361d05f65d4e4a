package ui

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/redact"
)

// get fetches path from the test server and returns its status and body.
func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRunPages: the list shows each run with its status, and each run's
// page its outcome, its failure at the spec line and its waiting gate.
func TestRunPages(t *testing.T) {
	r := newRuns(t, "fine", "broken", "release", "fan")
	_, ts := newTestServer(t, Options{RunDir: r.runDir})
	code, body := get(t, ts.Client(), ts.URL+"/ui/")
	if code != 200 {
		t.Fatalf("GET /ui/: %d\n%s", code, body)
	}
	for name, status := range map[string]string{"fine": "ok", "broken": "error", "release": "waiting", "fan": "ok"} {
		if !strings.Contains(body, `data-run="`+r.ids[name]+`" data-status="`+status+`"`) {
			t.Errorf("the list does not show run %s (%s) as %s:\n%s", r.ids[name], name, status, body)
		}
	}
	_, body = get(t, ts.Client(), ts.URL+"/ui/runs/"+r.ids["broken"])
	for _, want := range []string{"the worker broke", `class="line hit"`, "step: &#34;boom&#34;"} {
		if !strings.Contains(body, want) {
			t.Errorf("the failed run's page lacks %q:\n%s", want, body)
		}
	}
	gates, err := journal.Waiting(r.runDir, r.ids["release"])
	if err != nil || len(gates) != 1 {
		t.Fatalf("the release run waits at %v (%v), want one gate", gates, err)
	}
	_, body = get(t, ts.Client(), ts.URL+"/ui/runs/"+r.ids["release"])
	for _, want := range []string{`data-gate="` + gates[0].Path.Key() + `"`, "Which release?", `name="value"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the waiting run's page lacks %q:\n%s", want, body)
		}
	}
	_, body = get(t, ts.Client(), ts.URL+"/ui/runs/"+r.ids["fan"])
	if strings.Count(body, `class="branch"`) != 2 {
		t.Errorf("the parallel run's page does not lay out its two branches side by side:\n%s", body)
	}
}

// TestRetriesAndFallbacks: a retried call shows each attempt, the later
// one marked a retry; a call whose failure its on_fail replaced shows the
// failure and the run's result holds the fallback.
func TestRetriesAndFallbacks(t *testing.T) {
	r := newRuns(t, "flaky")
	_, ts := newTestServer(t, Options{RunDir: r.runDir})
	_, body := get(t, ts.Client(), ts.URL+"/ui/runs/"+r.ids["flaky"])
	for _, want := range []string{`data-attempt="1"`, `data-attempt="2"`, "retry, attempt 2", "not yet", "the worker broke", "fallback"} {
		if !strings.Contains(body, want) {
			t.Errorf("the run's page lacks %q:\n%s", want, body)
		}
	}
}

// TestPagesRedacted: a secret the page's redactor knows never shows, in
// the journal's values or anywhere else on the page.
func TestPagesRedacted(t *testing.T) {
	r := newRuns(t, "leaky")
	_, ts := newTestServer(t, Options{RunDir: r.runDir, Redactor: redact.New("pw-0f3a9c1e77b2d4")})
	_, body := get(t, ts.Client(), ts.URL+"/ui/runs/"+r.ids["leaky"])
	if strings.Contains(body, "0f3a9c1e77b2d4") || !strings.Contains(body, redact.Mark) {
		t.Errorf("the run's page shows the secret, or no mark where it was:\n%s", body)
	}
}

// TestJudgmentShown: a judgment shows its condition, its answer and who
// decided it (the model and its tokens), and the run's tokens count it.
func TestJudgmentShown(t *testing.T) {
	r := newRuns(t, "judged")
	_, ts := newTestServer(t, Options{RunDir: r.runDir})
	_, body := get(t, ts.Client(), ts.URL+"/ui/runs/"+r.ids["judged"])
	for _, want := range []string{"judgment <q>d says ship</q>", "holds = true, asked judge-model-1 (40 tokens in, 2 out)", "it says ship", "<dt>Tokens</dt><dd>42</dd>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the run's page lacks %q:\n%s", want, body)
		}
	}
	_, body = get(t, ts.Client(), ts.URL+"/ui/")
	if !strings.Contains(body, `<td class="num">42</td>`) {
		t.Errorf("the list does not count the judgment's 42 tokens:\n%s", body)
	}
}

// TestRunsPaginated: the list shows a page of runs at a time, newest
// first, with links to the pages beside it that keep the filter.
func TestRunsPaginated(t *testing.T) {
	r := newRuns(t, "fine", "broken", "fine", "broken", "fine")
	_, ts := newTestServer(t, Options{RunDir: r.runDir, PageSize: 2})
	all, _ := journal.List(r.runDir)
	if len(all) != 5 {
		t.Fatalf("%d runs journaled, want 5", len(all))
	}
	for page, want := range map[string][]string{"": {all[0].ID, all[1].ID}, "2": {all[2].ID, all[3].ID}, "3": {all[4].ID}, "99": {all[4].ID}} {
		_, body := get(t, ts.Client(), ts.URL+"/ui/?page="+page)
		if n := strings.Count(body, `data-run="`); n != len(want) {
			t.Errorf("page %q shows %d runs, want %d", page, n, len(want))
		}
		for _, id := range want {
			if !strings.Contains(body, `data-run="`+id+`"`) {
				t.Errorf("page %q lacks run %s", page, id)
			}
		}
	}
	_, body := get(t, ts.Client(), ts.URL+"/ui/?status=ok&page=1")
	if !strings.Contains(body, `href="/ui/?page=2&amp;status=ok" rel="next"`) || !strings.Contains(body, "3 of 5 runs") {
		t.Errorf("the filtered list's first page:\n%s", body)
	}
}
