package run

import (
	"reflect"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/redact"
)

func as(kv ...string) []bind.Assignment {
	var out []bind.Assignment
	for i := 0; i < len(kv); i += 2 {
		out = append(out, bind.Assignment{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

// Values given again replace every journaled value of their name (a list
// slot whole); names the run did not set come first in one fixed order;
// the values still withheld are named.
func TestOverrides(t *testing.T) {
	req := Request{Spec: "s.prose.md", Bindings: bind.Settings{
		Config: as("max_steps", "4"),
		Slots:  as("advancer", redact.Mark, "c", "exec:a", "c", "exec:b"),
	}, BaseURL: redact.Mark, Model: "m1"}
	if got := req.withheld(); !reflect.DeepEqual(got, []string{"slot advancer", "base-url"}) {
		t.Errorf("withheld = %q", got)
	}
	o := Overrides{Bindings: bind.Settings{Slots: as("advancer", "exec:./adv.sh", "c", "exec:z"), Inputs: as("task", "x")},
		BaseURL: "https://me:pw@h/v1"}
	got := o.apply(req)
	want := bind.Settings{Config: as("max_steps", "4"), Slots: as("advancer", "exec:./adv.sh", "c", "exec:z"), Inputs: as("task", "x")}
	if !reflect.DeepEqual(got.Bindings, want) || got.BaseURL != "https://me:pw@h/v1" || got.Model != "m1" {
		t.Errorf("apply:\n got %+v\nwant %+v", got, want)
	}
	if left := got.withheld(); len(left) != 0 {
		t.Errorf("withheld after the overrides = %q", left)
	}
	o = Overrides{Bindings: bind.Settings{Inputs: as("z", "1", "a", "2", "m", "3"), Config: as("k", "4")}}
	for range 20 {
		g := o.apply(Request{})
		if !reflect.DeepEqual(g.Bindings.Inputs, as("a", "2", "m", "3", "z", "1")) || !reflect.DeepEqual(g.Bindings.Config, as("k", "4")) {
			t.Fatalf("added names: %+v", g.Bindings)
		}
	}
	if g := (Overrides{Bindings: bind.Settings{InputJSON: `{"a":1}`}}).apply(Request{Bindings: bind.Settings{InputJSON: redact.Mark}}); g.Bindings.InputJSON != `{"a":1}` {
		t.Errorf("--input-json override: %q", g.Bindings.InputJSON)
	}
}

// A journal keeps the request with its secrets withheld and named.
func TestRequestRedacted(t *testing.T) {
	red := redact.ForEnv(nil).WithShapes()
	var h journal.Header
	r := Request{Spec: "s.prose.md", Bindings: bind.Settings{
		Slots:  as("svc", "exec:curl -H 'Authorization: Bearer sk-abcdefghijklmnopqrstuvwx' x"),
		Config: as("api_key", "hunter2hunter2", "n", "3"),
	}, BaseURL: "https://me:secretpw@h/v1"}
	got := r.redacted(red, &h)
	if got.Bindings.Slots[0].Value != redact.Mark || got.Bindings.Config[0].Value != redact.Mark ||
		got.Bindings.Config[1].Value != "3" || got.BaseURL != redact.Mark {
		t.Errorf("redacted = %+v", got)
	}
	if want := []string{"slot svc", "config api_key", "base-url"}; !reflect.DeepEqual(h.Redacted, want) {
		t.Errorf("header names %q, want %q", h.Redacted, want)
	}
}
