package check_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/delegation/syntax"
)

// An optional input without a default joined into text by a program that
// never tests it is a warning at the join ("for null" when the caller
// leaves it out); a default, a test of it anywhere, or a binding of the
// name silence it.
func TestNullInText(t *testing.T) {
	decls := func() *check.Decls {
		return &check.Decls{Inputs: []check.Name{
			{Name: "topic", Type: "string"},
			{Name: "audience", Type: "string", Optional: true, NullIfOmitted: true},
			{Name: "tone", Optional: true},
		}}
	}
	for _, r := range []struct {
		name, code string
		want       []string
	}{
		{"joined with +", "return \"About \" + topic + \" for \" + audience\n", []string{"1:37"}},
		{"interpolated", "return \"About {topic} for {audience}\"\n", []string{"1:28"}},
		{"reported once", "let a = \"for \" + audience\nreturn a + \" and \" + audience\n", []string{"1:18"}},
		{"a default: never null", "return \"in \" + tone + \" tone\"\n", nil},
		{"tested first", "if audience is present:\n  return \"for \" + audience\nreturn \"for all\"\n", nil},
		{"tested in a condition", "if audience:\n  return \"for {audience}\"\nreturn \"x\"\n", nil},
		{"rebound", "let audience = \"all\"\nreturn \"for \" + audience\n", nil},
		{"not text", "return [audience]\n", nil},
	} {
		t.Run(r.name, func(t *testing.T) {
			prog, errs := syntax.ParseString("f.prose.md", r.code)
			if len(errs) > 0 {
				t.Fatalf("parse: %v", errs)
			}
			var got []string
			for _, d := range check.Check(prog, decls()) {
				if d.Code == check.CodeNullInText {
					got = append(got, fmt.Sprintf("%d:%d", d.Position.Line, d.Position.Col))
				}
			}
			if !slices.Equal(got, r.want) {
				t.Errorf("got %q, want %q", got, r.want)
			}
		})
	}
}
