package check_test

import (
	"testing"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/delegation/syntax"
)

// FuzzCheck runs the checks on whatever the parser makes of arbitrary
// code, broken programs included: no panic, and every finding lies inside
// the source.
func FuzzCheck(f *testing.F) {
	for _, tc := range checkCases() {
		f.Add(tc.code)
	}
	f.Add("let xs = parallel first for c in cs:\n  return call c\nreturn xs")
	f.Add("parallel:\n  let a = call w\n  let b = call w\nreturn { a, b }")
	f.Add("let ys = xs\n  | filter:\n      item > 1\n  | pmap:\n      call w\n  | reduce(a, b):\n      a + b\nreturn item")
	f.Add("parallel (\"any\", count: 3, on-fail: \"ignore\"):\n  let a = call w\n  let b = call w\nreturn { a, b }")
	d := decls("w cs[] reviewer(task_brief,material)!a_list", "max_steps crit", "xs task_brief", "result other")
	f.Fuzz(func(t *testing.T, code string) {
		prog, _ := syntax.ParseString("f.prose.md", code)
		for _, diag := range check.Check(prog, d) {
			if diag.Line < 0 || diag.Offset > len(code) {
				t.Fatalf("finding outside the source: %s", diag)
			}
		}
	})
}

// FuzzEnsuresFields checks programs that read a slot whose ensures text
// is arbitrary (the fields it names are read from it): no panic, and every
// finding lies inside the source.
func FuzzEnsuresFields(f *testing.F) {
	f.Add("an object `{approved: boolean, notes: string}`", "let r = call s\n  on_fail use { approved: 1 }\nreturn r.aproved")
	f.Add("returns `score` (number) and `verdict` (string)", "let r = call s\nif r.scor:\n  r = 3\nreturn r.verdict")
	f.Add("{a, b: list, 'c': x}", "let r = call s\nreturn r.a.b")
	f.Add("{", "return (call s).x")
	f.Fuzz(func(t *testing.T, ensures, code string) {
		d := mistakeDecls("result:string")
		d.Slots = append(d.Slots, check.Slot{Name: "s", Ensures: ensures})
		prog, _ := syntax.ParseString("f.prose.md", code)
		for _, diag := range check.Check(prog, d) {
			if diag.Line < 0 || diag.Offset > len(code) {
				t.Fatalf("finding outside the source: %s", diag)
			}
		}
	})
}
