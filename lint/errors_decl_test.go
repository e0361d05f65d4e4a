package lint

import (
	"strings"
	"testing"

	"github.com/proselang/prose/spec"
)

// A throw of an error ### Errors does not declare is an error at the
// thrown name; declared names, a throw caught in place, a computed value
// and a node that declares no Errors are not.
func TestUndeclaredThrow(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n# F\n\n### Parameters\n\n- `x`: a value\n\n### Returns\n\n- `y`: a value\n\n" +
		"### Errors\n\n- `bad-input`: x is wrong\n- `timeout`: too slow\n\n### Execution\n\n```prose\n" +
		"if x == 1:\n  throw \"bad-inptu\"\n" +
		"if x == 2:\n  throw {error: \"unknown-thing\", message: \"no\"}\n" +
		"if x == 3:\n  throw {error: \"bad-input\", message: \"ok\"}\n" +
		"if x == 4:\n  throw x\n" +
		"try:\n  throw \"local\"\ncatch as e:\n  throw \"timeout\"\n" +
		"return {y: x}\n```\n"
	s, loaded := spec.Parse("f.prose.md", []byte(src))
	if loaded.HasErrors() {
		t.Fatal(loaded)
	}
	got := undeclaredThrows(s).String()
	for _, want := range []string{
		`f.prose.md:25:9: error: throw "bad-inptu": ### Errors of f declares only ` + "`bad-input`, `timeout`" + `; did you mean "bad-input"?; declare "bad-inptu" there or throw one of those [lint/undeclared-error]`,
		`f.prose.md:27:17: error: throw "unknown-thing"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n != 2 {
		t.Errorf("%d findings:\n%s", n, got)
	}
	none := strings.Replace(src, "### Errors\n\n- `bad-input`: x is wrong\n- `timeout`: too slow\n\n", "", 1)
	s, _ = spec.Parse("f.prose.md", []byte(none))
	if d := undeclaredThrows(s); len(d) != 0 {
		t.Errorf("a node with no ### Errors: %s", d)
	}
}
