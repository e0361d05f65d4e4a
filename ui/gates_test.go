package ui

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/serve"
)

// TestAnswerFieldsGate: a gate's options and fields are a form; its
// values are journaled as the gate's JSON answer, each field of its type;
// a form the gate refuses (a count that is no integer, no choice) is
// answered 422 with the gate's reason, and nothing is recorded.
func TestAnswerFieldsGate(t *testing.T) {
	r := newRuns(t, "review")
	id := r.ids["review"]
	s, ts := newTestServer(t, Options{RunDir: r.runDir})
	_, body := get(t, ts.Client(), ts.URL+"/ui/runs/"+id)
	for _, want := range []string{`name="choice" value="ship"`, `name="field.approved"`, `name="field.count" type="number"`, `name="field.notes" type="text"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the gate's form lacks %s:\n%s", want, body)
		}
	}
	gs, _ := journal.Waiting(r.runDir, id)
	key := gs[0].Path.Key()
	c := *ts.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	post := func(v url.Values) (int, string) {
		v.Set("csrf", s.csrf)
		v.Set("gate", key)
		resp, err := c.PostForm(ts.URL+"/ui/runs/"+id+"/answer", v)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, bad := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"choice": {"ship"}, "field.approved": {"true"}, "field.count": {"abc"}, "field.notes": {"n"}}, "is not a number"},
		{url.Values{"choice": {"ship"}, "field.approved": {"true"}, "field.count": {"2.5"}, "field.notes": {"n"}}, "not integer"},
		{url.Values{"field.approved": {"true"}, "field.count": {"2"}, "field.notes": {"n"}}, "choose one of the options"},
		{url.Values{"json": {`{"choice": "ship"}`}}, "no field"},
	} {
		code, body := post(bad.form)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, bad.want) {
			t.Errorf("form %v: %d, want 422 saying %q:\n%s", bad.form, code, bad.want, body)
		}
	}
	if gs, _ := journal.Waiting(r.runDir, id); gs[0].Answer != nil {
		t.Fatalf("a refused form recorded %s", gs[0].Answer)
	}
	if code, body := post(url.Values{"choice": {"hold"}, "field.approved": {"false"}, "field.count": {"3"}, "field.notes": {"later"}}); code != http.StatusSeeOther {
		t.Fatalf("a good form: %d\n%s", code, body)
	}
	gs, _ = journal.Waiting(r.runDir, id)
	var got map[string]any
	json.Unmarshal(gs[0].Answer, &got)
	want := map[string]any{"choice": "hold", "approved": false, "count": float64(3), "notes": "later"}
	if len(got) != len(want) {
		t.Fatalf("recorded %s, want %v", gs[0].Answer, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("recorded %s: %s is %v, want %v", gs[0].Answer, k, got[k], v)
		}
	}
}

// FuzzFormAnswer: any form for any kind of gate gives valid JSON or an
// error, never a panic.
func FuzzFormAnswer(f *testing.F) {
	f.Add("gate", "ship", "true", "3", "x", "")
	f.Add("ask_user", "", "", "", "text", "")
	f.Add("gate", "", "maybe", "1e999", "", `{"a":1}`)
	f.Add("gate", "hold", "false", "-0", "", "{")
	f.Fuzz(func(t *testing.T, kind, choice, approved, count, value, raw string) {
		g := &gateView{Options: []string{"ship", "hold"}, Fields: []fieldView{{"approved", "boolean", "boolean"}, {"count", "integer", "number"}, {"x", "object", "json"}}}
		g.Kind = kind
		v := url.Values{"choice": {choice}, "field.approved": {approved}, "field.count": {count}, "field.x": {value}, "value": {value}, "json": {raw}}
		b, err := formAnswer(g, v)
		if err == nil && !json.Valid(b) {
			t.Fatalf("formAnswer gave %q, not JSON", b)
		}
	})
}

// TestExpiredGateTakesNoAnswer: past its timeout a gate's page offers no
// form (a resume takes its on_fail value), as prose answer refuses.
func TestExpiredGateTakesNoAnswer(t *testing.T) {
	r := newRuns(t, "release")
	id := r.ids["release"]
	if _, err := run.Answer(r.runDir, id, "", json.RawMessage(`"v1"`), false); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Resume(context.Background(), id, r.opts); delegation.Waiting(err) == nil {
		t.Fatalf("the resume did not wait at the gate: %v", err)
	}
	gs, _ := journal.Waiting(r.runDir, id)
	if len(gs) != 1 || gs[0].Deadline.IsZero() {
		t.Fatalf("waiting at %+v, want one gate with a deadline", gs)
	}
	now := gs[0].Deadline.Add(-time.Minute)
	_, ts := newTestServer(t, Options{RunDir: r.runDir, Now: func() time.Time { return now }})
	_, body := get(t, ts.Client(), ts.URL+"/ui/runs/"+id)
	if !strings.Contains(body, `name="choice" value="ship"`) {
		t.Fatalf("before its deadline the gate has no form:\n%s", body)
	}
	now = gs[0].Deadline.Add(time.Minute)
	_, body = get(t, ts.Client(), ts.URL+"/ui/runs/"+id)
	if strings.Contains(body, `name="choice"`) || !strings.Contains(body, "Its timeout has passed") {
		t.Fatalf("after its deadline the gate still takes an answer:\n%s", body)
	}
}

// TestTriggerNeedsServe: the serve page of prose ui (no serve behind it)
// takes no trigger and says where to send it; nothing is queued.
func TestTriggerNeedsServe(t *testing.T) {
	state := t.TempDir()
	s, ts := newTestServer(t, Options{RunDir: t.TempDir(), StateDir: state})
	resp, err := ts.Client().PostForm(ts.URL+"/ui/serve/trigger", url.Values{"csrf": {s.csrf}, "node": {"poll"}, "event": {"{}"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(b), "prose trigger") {
		t.Fatalf("%d, want 409 naming prose trigger:\n%s", resp.StatusCode, b)
	}
	if v, err := serve.ReadQueue(state); err != nil || v.Accepted != 0 {
		t.Fatalf("queue %+v, %v; want nothing queued", v, err)
	}
}
