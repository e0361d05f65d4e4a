package claim_test

import (
	"context"
	"testing"

	"github.com/proselang/prose/claim"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/delegation/syntax"
)

// A claim form decides the same sentence the same way as an expectation
// of prose test (claim.Decide) and as a program's condition in prose run
// (the deterministic judge), with no model either way.
func TestFormsAgreeWithConditions(t *testing.T) {
	list := func(xs ...delegation.Value) delegation.Value { return delegation.NewList(xs...) }
	obj := delegation.NewObject()
	obj.Set("k", "v")
	natural := 0
	for _, tc := range []struct {
		claim string
		value delegation.Value
	}{
		{"is empty", list()}, {"is empty", list("a")}, {"is empty", ""}, {"is not empty", list("a")},
		{`contains "p"`, list("a", "p")}, {`contains "p"`, list("a")}, {`contains "p"`, "a p b"},
		{"does not contain `q`", list("a")}, {"has at most 2 items", list("a", "b", "c")},
		{"has exactly 1 item", list("a")}, {"is at least 3", int64(4)}, {"is_integer_between(0, 10)", int64(11)},
		{`has key "k"`, obj}, {"is null", nil}, {"is a string", "x"}, {"matches /^a/", "abc"},
		{`equals "x"`, "x"}, {"has more than 3 words", "one two three four"},
	} {
		want, ok := claim.Decide(context.Background(), claim.Question{Path: "items", Claim: tc.claim, Value: tc.value})
		if !ok {
			t.Fatalf("prose test does not decide %q", tc.claim)
		}
		prog, errs := syntax.ParseString("c", "if items "+tc.claim+":\n  return 1\n")
		if errs.HasErrors() {
			t.Fatalf("%q: %v", tc.claim, errs)
		}
		cond, isNatural := prog.Body[0].(*syntax.IfStmt).Cond.(*syntax.NaturalCond)
		if !isNatural {
			continue // an expression: the evaluator's own
		}
		natural++
		vals := delegation.NewObject()
		vals.Set("items", tc.value)
		got, ok := judge.Decide(&delegation.Judgment{Cond: cond, Values: vals})
		if !ok {
			t.Errorf("prose run does not decide %q without a model", "items "+tc.claim)
			continue
		}
		if got.Holds != want.Holds {
			t.Errorf("items %s about %s: run says %v, test says %v", tc.claim, delegation.TypeName(tc.value), got.Holds, want.Holds)
		}
	}
	if natural < 15 {
		t.Errorf("%d of the claims read as natural conditions, want at least 15", natural)
	}
}
