package lint_test

import (
	"strings"
	"testing"
)

// An Execution whose return cannot give the two or more outputs its node
// declares is an error at the return, saying what it gives or which keys
// the object lacks (issue 18, item 33); one output takes any value, and a
// name or a call may hold the object.
func TestReturnShape(t *testing.T) {
	fn := func(returns, body string) string {
		s := "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `x`: in\n\n### Returns\n\n"
		for _, r := range strings.Fields(returns) {
			s += "- `" + r + "`: out\n"
		}
		return s + "\n### Execution\n\n```prose\n" + body + "\n```\n"
	}
	for _, tc := range []struct{ name, returns, body, want string }{
		{"text joined to text", "a b", `return "done " + x`, "check/return-shape return gives a string, but f declares 2 outputs"},
		{"a comparison", "a b", `return x == 1`, "check/return-shape return gives a boolean, but f declares 2 outputs"},
		{"a sum of names", "a b", `return x + x`, ""},
		{"a string literal", "a b", `return "done"`, "check/return-shape return gives a string, but f declares 2 outputs (a, b): return an object with those keys"},
		{"nothing", "a b", "if x:\n  return\nreturn { a: 1, b: 2 }", "check/return-shape return gives nothing, but f declares 2 outputs (a, b)"},
		{"never returns", "a b", "let y = x", "check/return-shape the Execution never returns, so its value is null, but f declares 2 outputs (a, b)"},
		{"lacks a key", "a b c", "return { a: 1, c: x }", "check/return-shape this object lacks the output 'b': f declares 3 outputs (a, b, c)"},
		{"lacks two keys", "a b c", "return { a: x }", "check/return-shape this object lacks the outputs 'b', 'c': f declares 3 outputs (a, b, c)"},
		{"a key not declared", "a b", "return { a: x, b: x, c: x }", "check/return-shape the returned object has 'c', which f does not declare (it declares a, b)"},
		{"a list", "a b", "return [x]", "check/return-shape return gives a list, but f declares 2 outputs"},
		{"one output takes a string", "a", `return "done"`, ""},
		{"every key", "a b", "return { a: x, b: x }", ""},
		{"a name holds the object", "a b", "let r = { a: x, b: x }\nreturn r", ""},
		{"only throws", "a b", "throw \"bad\"", ""},
		{"one output never returns", "a", "let y = x", "check/return-shape the Execution never returns, so every run of it fails at its end, but f declares the output 'a'"},
		{"one output returns under an if", "a", "if x:\n  return x", ""},
		{"returns only in a collecting loop", "a", "let ys = for v in [x]:\n  return v\nlet n = 1", "check/return-shape the Execution never returns (the return at line 18 gives the value of one iteration of its loop, not the Execution's), so every run of it fails at its end"},
		{"returns in a statement loop", "a", "for v in [x]:\n  return v", ""},
	} {
		got := lintSrc(t, "dir/f.prose.md", fn(tc.returns, tc.body))
		var shape []string
		for _, g := range got {
			if strings.HasPrefix(g, "check/return-shape") || strings.Contains(g, "never returned") {
				shape = append(shape, g)
			}
		}
		switch {
		case tc.want == "" && len(shape) != 0:
			t.Errorf("%s: findings %q, want none", tc.name, shape)
		case tc.want != "" && (len(shape) != 1 || !strings.HasPrefix(shape[0], tc.want)):
			t.Errorf("%s: findings %q, want one starting %q", tc.name, shape, tc.want)
		}
	}
}
