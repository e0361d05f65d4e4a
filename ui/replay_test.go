package ui

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/journal"
)

// TestReplayFromPage: a replay from the run's page of an untouched run
// says it ended as the run did; after the spec changed (and the run kept
// no copy of it) the page shows where the replay diverges.
func TestReplayFromPage(t *testing.T) {
	r := newRuns(t, "fine")
	id := r.ids["fine"]
	s, ts := newTestServer(t, Options{RunDir: r.runDir, Rerun: r.opts})
	replay := func() string {
		resp, err := ts.Client().PostForm(ts.URL+"/ui/runs/"+id+"/replay", url.Values{"csrf": {s.csrf}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("replay: %d", resp.StatusCode)
		}
		_, body := get(t, ts.Client(), ts.URL+"/ui/runs/"+id)
		return body
	}
	if body := replay(); !strings.Contains(body, `data-same="true"`) {
		t.Fatalf("the replay of an untouched run:\n%s", body)
	}
	os.RemoveAll(filepath.Join(r.runDir, id, journal.SourcesDir))
	spec := filepath.Join(r.dir, "fine.prose.md")
	b, _ := os.ReadFile(spec)
	os.WriteFile(spec, []byte(strings.Replace(string(b), `step: "one"`, `step: "two"`, 1)), 0o644)
	body := replay()
	if !strings.Contains(body, `data-same="false"`) {
		t.Fatalf("the replay of a changed spec:\n%s", body)
	}
	if !strings.Contains(body, "changed since the run started") {
		t.Errorf("the page does not say why the replay differs:\n%s", body)
	}
}

// TestDivergedCallMarked: the call a replay diverged at is marked on the
// timeline, and no other.
func TestDivergedCallMarked(t *testing.T) {
	r := newRuns(t, "fan")
	id := r.ids["fan"]
	s, ts := newTestServer(t, Options{RunDir: r.runDir})
	l, err := s.readRun(id)
	if err != nil {
		t.Fatal(err)
	}
	var call string
	for _, rec := range l.Records {
		if rec.Type == journal.TypeEnd {
			call = rec.ID.Key()
		}
	}
	s.replays[id] = &replayView{Msg: "call " + call + " diverges from the journal: other arguments", ID: call}
	_, body := get(t, ts.Client(), ts.URL+"/ui/runs/"+id)
	if n := strings.Count(body, `class="step call diverged`); n != 1 || !strings.Contains(body, `class="step call diverged depth-0 ok" data-call="`+call+`"`) {
		t.Errorf("%d calls marked diverged, want %s alone:\n%s", n, call, body)
	}
}
