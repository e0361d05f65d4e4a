package bind_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
)

// RunInput splits what was given into references and binds each to what
// Env.Runs resolves it to.
func TestRunInputReferences(t *testing.T) {
	var asked []string
	env := &bind.Env{Runs: func(ref string) (delegation.Value, []string, error) {
		asked = append(asked, ref)
		if ref == "bad" {
			return nil, nil, errors.New(`no run "bad"`)
		}
		return "<" + ref + ">", []string{"w " + ref}, nil
	}}
	list := func(v ...string) *delegation.List {
		var out []delegation.Value
		for _, s := range v {
			out = append(out, s)
		}
		return delegation.NewList(out...)
	}
	for _, c := range []struct {
		name     string
		typ      string
		v        delegation.Value
		texts    []string
		fromText bool
		want     string // JSON of the bound value
		err      string
	}{
		{name: "one", typ: "run", texts: []string{" a "}, fromText: true, want: `"<a>"`},
		{name: "one twice", typ: "run", texts: []string{"a", "b"}, fromText: true, err: "given 2 times, but it takes one run (declare it run[] for several)"},
		{name: "one empty", typ: "run", texts: []string{" "}, fromText: true, err: "no run given"},
		{name: "one json", typ: "run", v: "a", want: `"<a>"`},
		{name: "one json number", typ: "run", v: int64(3), err: "want a run id (text), got integer"},
		{name: "one json list", typ: "run", v: list("a"), err: "want a run id (text), got list"},
		{name: "commas", typ: "run[]", texts: []string{"a, b,c"}, fromText: true, want: `["<a>","<b>","<c>"]`},
		{name: "repeated", typ: "run[]", texts: []string{"a", "b,c"}, fromText: true, want: `["<a>","<b>","<c>"]`},
		{name: "json array text", typ: "run[]", texts: []string{`["a", "b"]`}, fromText: true, want: `["<a>","<b>"]`},
		{name: "none", typ: "run[]", texts: []string{`[]`}, fromText: true, want: `[]`},
		{name: "empty text", typ: "run[]", texts: []string{""}, fromText: true, err: "no runs given"},
		{name: "empty element", typ: "run[]", texts: []string{"a,,b"}, fromText: true, err: "run 2 of the list is empty"},
		{name: "bad json text", typ: "run[]", texts: []string{`["a"`}, fromText: true, err: "is not a JSON array of run ids"},
		{name: "json list", typ: "run[]", v: list("a", "b"), want: `["<a>","<b>"]`},
		{name: "json string", typ: "run[]", v: "a,b", want: `["<a>","<b>"]`},
		{name: "json list of numbers", typ: "run[]", v: delegation.NewList(int64(1)), err: "element 0: want a run id (text), got integer"},
		{name: "json object", typ: "run[]", v: delegation.NewObject(), err: "want run ids (a list of text, or one text of ids separated by commas), got object"},
		{name: "unresolved", typ: "run[]", texts: []string{"a,bad"}, fromText: true, err: `no run "bad"`},
	} {
		got, warnings, err := env.RunInput(c.typ, c.v, c.texts, c.fromText)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: got %v, want an error holding %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		raw, _ := delegation.ToJSON(got)
		if string(raw) != c.want {
			t.Errorf("%s: got %s, want %s", c.name, raw, c.want)
		}
		if n := strings.Count(c.want, "<"); len(warnings) != n {
			t.Errorf("%s: warnings %q, want %d", c.name, warnings, n)
		}
	}
	if len(asked) == 0 {
		t.Fatal("Runs was never asked")
	}
}

// Without Env.Runs an input typed run is refused, never bound to its
// text.
func TestRunInputWithoutRuns(t *testing.T) {
	_, _, err := (&bind.Env{}).RunInput("run", nil, []string{"a"}, true)
	if err == nil || !strings.Contains(err.Error(), "reads none") {
		t.Errorf("got %v, want the input refused", err)
	}
}
