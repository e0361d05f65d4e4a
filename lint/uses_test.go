package lint_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/proselang/prose/lint"
)

// useMain is a function whose Execution starts with uses and calls them.
const useMain = "---\nname: main\nkind: function\n---\n\n### Parameters\n\n- `x`: in\n\n### Returns\n\n- `out`: o\n\n" +
	"### Execution\n\n```prose\n" +
	"use \"./lib/helper\"\n" + // 17
	"use \"github.com/openprose/prose/packages/std/roles/critic\" as judge\n" +
	"use \"./lib/gone\" as gone\n" +
	"use \"std/evals/inspector\" as inspector\n" +
	"use \"std/roles/critc\" as critc\n" +
	"use \"./lib/other\" as fmt\n" + // 22
	"let h = call helper\n" +
	"  y: x\n" +
	"let j = call judge\n" +
	"  output: h\n" +
	"  criteria: \"clear\"\n" +
	"  mood: \"kind\"\n" +
	"let g = call gone\n" +
	"  x: x\n" +
	"return j.verdict\n```\n"

const useFunc = "---\nname: %s\nkind: function\n---\n\n### Parameters\n\n- `x`: in\n\n### Returns\n\n- `v`: v\n"

// A use that names nothing is an error at its string (a library path
// names what the library has near it); a call of its alias draws nothing
// more. A call of a used file or library spec is checked against its
// parameters as a sibling's is; an alias a sibling file answers to too
// is an error at the alias; an alias no call names is a warning.
func TestLintUses(t *testing.T) {
	fsys := fstest.MapFS{
		"app/main.prose.md":       {Data: []byte(useMain)},
		"app/lib/helper.prose.md": {Data: []byte(strings.Replace(useFunc, "%s", "helper", 1))},
		"app/lib/other.prose.md":  {Data: []byte(strings.Replace(useFunc, "%s", "other", 1))},
		"app/fmt.prose.md":        {Data: []byte(strings.Replace(useFunc, "%s", "fmt", 1))},
	}
	diags, err := lint.File(fsys, "app/main.prose.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diags {
		got = append(got, strings.TrimPrefix(d.Position.String(), "app/main.prose.md:")+" "+d.Code+" "+d.Message)
	}
	want := []string{
		`19:5 lint/unresolved-use use "./lib/gone": no ./lib/gone.prose.md or ./lib/gone/index.prose.md relative to app/main.prose.md`,
		`20:5 lint/unresolved-use use "std/evals/inspector": prose's library has no std/evals/inspector; it ships std/roles/... and std/patterns/...`,
		`21:5 lint/unresolved-use use "std/roles/critc": prose's library has no std/roles/critc; the nearest it ships is std/roles/critic`,
		`22:22 lint/use-shadows the use alias fmt reaches app/lib/other.prose.md, but app/fmt.prose.md answers to fmt too`,
		`24:3 lint/unknown-argument`,
		`23:`, // helper's missing x
		`28:3 lint/unknown-argument`,
		`22:22 lint/unused-use use "./lib/other" as fmt: no call of this Execution names fmt`,
	}
	joined := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("no finding %q in\n%s", w, joined)
		}
	}
	// a use whose alias a call names is used; one unresolved draws its
	// error alone
	if n := strings.Count(joined, "lint/unused-use"); n != 1 {
		t.Errorf("%d lint/unused-use findings, want 1 (fmt's):\n%s", n, joined)
	}
	if strings.Contains(joined, "lint/unresolved-call") {
		t.Errorf("a call of an unresolved use's alias draws lint/unresolved-call too:\n%s", joined)
	}
}
