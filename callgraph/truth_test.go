package callgraph_test

import (
	"strings"
	"testing"

	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/spec"
)

func maintains(t testing.TB, fields ...string) *spec.Spec {
	t.Helper()
	src := "---\nname: node\nkind: responsibility\n---\n\n# Node\n\n### Maintains\n\n"
	for _, f := range fields {
		src += "- `" + f + "`: a field\n"
	}
	src += "\n#### risk\n\nThe risk part.\n\n#### history\n\nThe history part.\n"
	sp, diags := spec.Parse("node.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return sp
}

// The whole truth, only the facets, or neither: what each form of a
// Maintains with facets gives.
func TestTruthForms(t *testing.T) {
	one, two := maintains(t, "accounts"), maintains(t, "accounts", "owner")
	for _, c := range []struct {
		name string
		sp   *spec.Spec
		in   string
		want string // the truth, or the error's text
	}{
		{"whole, facets inside the field", one, `{"accounts":{"risk":1,"history":[1]},"extra":true}`, `{"accounts":{"risk":1,"history":[1]},"extra":true,"risk":1,"history":[1]}`},
		{"whole, facets beside it", one, `{"accounts":[],"history":[2],"risk":3}`, `{"accounts":[],"history":[2],"risk":3}`},
		{"whole, no facet anywhere", one, `{"accounts":"a"}`, `{"accounts":"a"}`},
		{"a bare value is the one field", one, `[1,2]`, `{"accounts":[1,2]}`},
		{"only facets, one field: the field is their object", one, `{"history":[],"risk":0}`, `{"history":[],"risk":0,"accounts":{"risk":0,"history":[]}}`},
		{"only some facets", one, `{"risk":0}`, `{"risk":0,"accounts":{"risk":0}}`},
		{"fields held by facets", two, `{"risk":{"accounts":1},"history":{"owner":"ann"}}`, `{"risk":{"accounts":1},"history":{"owner":"ann"}}`},
		{"a facet in two fields is taken from neither", two, `{"accounts":{"risk":1},"owner":{"risk":2}}`, `{"accounts":{"risk":1},"owner":{"risk":2}}`},
		{"only facets, two fields", two, `{"risk":0}`, `returns an object without the field(s) "accounts", "owner" (as members, or inside one facet): return its whole truth (the fields "accounts", "owner") or only its facets ("risk", "history")`},
		{"a field missing", two, `{"accounts":1,"risk":0}`, `returns an object without the field(s) "owner"`},
		{"a misspelt field", one, `{"acounts":1}`, `returns an object without the field(s) "accounts"`},
		{"text with two fields", two, `"hello"`, `returns string: return its whole truth`},
	} {
		v, err := delegation.FromJSON([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		out, err := callgraph.Truth(c.sp, v)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			b, _ := delegation.ToJSON(out)
			got = string(b)
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// Any JSON answer either gives an object holding every facet it names as
// a member, or an error naming the node; it never panics.
func FuzzTruth(f *testing.F) {
	for _, s := range []string{`{"accounts":{"risk":1}}`, `{"risk":0,"history":[]}`, `[1]`, `null`, `{"owner":{"risk":{"history":2}}}`, `"x"`} {
		f.Add(s, true)
		f.Add(s, false)
	}
	one, two := maintains(f, "accounts"), maintains(f, "accounts", "owner")
	f.Fuzz(func(t *testing.T, in string, single bool) {
		v, err := delegation.FromJSON([]byte(in))
		if err != nil {
			return
		}
		sp := two
		if single {
			sp = one
		}
		out, err := callgraph.Truth(sp, v)
		if err != nil {
			if !strings.Contains(err.Error(), "node.prose.md:") {
				t.Errorf("an error without the node's position: %v", err)
			}
			return
		}
		for _, k := range []string{"risk", "history"} {
			if x, ok := out.Get(k); ok {
				if _, err := delegation.ToJSON(x); err != nil {
					t.Errorf("facet %s: %v", k, err)
				}
			}
		}
	})
}
