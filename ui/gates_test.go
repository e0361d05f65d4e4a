package ui

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/proselang/prose/journal"
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
