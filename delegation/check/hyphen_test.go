package check_test

import (
	"testing"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/delegation/syntax"
)

// TestHyphenNames pins how hyphens read: a hyphen between two letters
// joins a name, in declarations, argument keys, object keys and members;
// with spaces or before a digit it subtracts; and an undefined hyphenated
// name made of two bound names draws the `a - b` suggestion.
func TestHyphenNames(t *testing.T) {
	for _, tc := range []struct {
		name, code, tree string
		inputs, slots    string
		want             []string // check findings
	}{
		{name: "declaration", code: "let session-source = 1\nreturn session-source",
			tree: "(let session-source 1)\n(return session-source)"},
		{name: "argument key and value", slots: "critic", inputs: "quality-bar",
			code: "let r = call critic\n  quality-bar: quality-bar\nreturn r",
			tree: "(let r (call critic (arg quality-bar quality-bar)))\n(return r)"},
		{name: "object key", inputs: "raw-notes",
			code: "return { raw-notes: raw-notes, x-y: 1 }",
			tree: "(return (object (raw-notes raw-notes) (x-y 1)))"},
		{name: "member", inputs: "review",
			code: "return review.final-feedback",
			tree: "(return (. review final-feedback))"},
		{name: "subtraction with spaces", inputs: "a b",
			code: "return a - b",
			tree: "(return (- a b))"},
		{name: "subtraction before a digit", inputs: "n",
			code: "return n-1",
			tree: "(return (- n 1))"},
		{name: "subtraction without spaces is a name", inputs: "total spent",
			code: "return total-spent",
			tree: "(return total-spent)",
			want: []string{
				"0 warning check/unused-input",
				"0 warning check/unused-input",
				"1:8 error check/undefined-name to subtract, write 'total - spent'",
			}},
		{name: "undefined hyphenated name without parts", inputs: "quality-bar",
			code: "return quality-bra",
			tree: "(return quality-bra)",
			want: []string{
				"0 warning check/unused-input",
				"1:8 error check/undefined-name did you mean 'quality-bar'?",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog, errs := syntax.ParseString("t.prose.md", tc.code)
			if len(errs) > 0 {
				t.Fatalf("parse: %v", errs)
			}
			if got := syntax.Dump(prog); got != tc.tree {
				t.Errorf("tree:\n%s\nwant:\n%s", got, tc.tree)
			}
			got := check.Check(prog, decls(tc.slots, "", tc.inputs, "")).Dedupe()
			got.Sort()
			if len(got) != len(tc.want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				if err := match(got[i], w); err != nil {
					t.Errorf("finding %d: %v\ngot: %s", i, err, got[i])
				}
			}
		})
	}
}
