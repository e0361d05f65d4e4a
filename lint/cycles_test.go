package lint_test

import (
	"strings"
	"testing"
)

// Calls among one file's nodes that go round, a node calling itself
// included, and inline nodes wired by name in a cycle are errors naming
// the path (issue 18, item 33).
func TestCallCycles(t *testing.T) {
	const head = "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `x`: in\n\n### Returns\n\n- `y`: out\n\n"
	node := func(name, body string) string {
		s := "## " + name + "\n\n### Parameters\n\n- `x`: in\n\n### Returns\n\n- `y`: out\n\n"
		if body != "" {
			s += "### Execution\n\n```prose\n" + body + "\n```\n\n"
		}
		return s
	}
	exe := func(body string) string { return "### Execution\n\n```prose\n" + body + "\n```\n\n" }
	for _, tc := range []struct {
		name, src string
		want      []string // code and message fragment, in order
	}{
		{"the file calls itself", head + exe("return call f\n  x: x"),
			[]string{"lint/call-cycle call f: f calls itself"}},
		{"a node calls itself", head + exe("return call a\n  x: x") + node("a", "if x == 0:\n  return 0\nreturn call a\n  x: x"),
			[]string{"lint/call-cycle call a: a calls itself"}},
		{"two nodes call each other", head + exe("return call a\n  x: x") + node("a", "return call b\n  x: x") + node("b", "return call a\n  x: x"),
			[]string{"lint/call-cycle call a closes a cycle of calls: a → b → a"}},
		{"a node calls the file's node", head + exe("return call a\n  x: x") + node("a", "return call f\n  x: x"),
			[]string{"lint/call-cycle call f closes a cycle of calls: f → a → f"}},
		{"calls that do not go round", head + exe("let r = call a\n  x: x\nreturn call b\n  x: r") + node("a", "return call b\n  x: x") + node("b", ""),
			nil},
		{"wired in a cycle", "---\nname: w\nkind: function\n---\n\n### Parameters\n\n- `x`: in\n\n### Returns\n\n- `z`: out\n\n" +
			"## p\n\n### Parameters\n\n- `x`: in\n- `q`: from q\n\n### Returns\n\n- `pv`: out\n\n" +
			"## q\n\n### Parameters\n\n- `pv`: from p\n\n### Returns\n\n- `q`: out\n- `z`: out\n",
			[]string{`lint/call-cycle input "q" of p comes from q, which waits on p in turn: the inline nodes are wired in a cycle (p ← q ← p`}},
		{"wired in a line", "---\nname: w\nkind: function\n---\n\n### Parameters\n\n- `x`: in\n\n### Returns\n\n- `z`: out\n\n" +
			"## p\n\n### Parameters\n\n- `x`: in\n\n### Returns\n\n- `pv`: out\n\n" +
			"## q\n\n### Parameters\n\n- `pv`: from p\n\n### Returns\n\n- `z`: out\n",
			nil},
	} {
		got := lintSrc(t, "dir/"+strings.Fields(tc.src)[2]+".prose.md", tc.src)
		if len(got) != len(tc.want) {
			t.Errorf("%s: findings\n%s\nwant %d", tc.name, strings.Join(got, "\n"), len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s: finding %q, want %q", tc.name, got[i], w)
			}
		}
	}
}
