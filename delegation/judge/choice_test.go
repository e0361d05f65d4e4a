package judge

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
)

// A choice is never decided by a rule, even when its criteria read as a
// condition a rule decides: it goes to Next, and without Next it needs a
// model.
func TestDeterministicHandsChoicesToNext(t *testing.T) {
	prog, errs := syntax.ParseString("t.md", "let verdict = 1\nchoice verdict accepts the draft:\n  option \"ship\":\n    return 1\n  option \"hold\":\n    return 2\n")
	if errs.HasErrors() {
		t.Fatal(errs)
	}
	cond := prog.Body[1].(*syntax.ChoiceStmt).Criteria
	vals := delegation.NewObject()
	vals.Set("verdict", jsonObject(t, `{"verdict": "accept"}`))
	j := &delegation.Judgment{Cond: cond, Values: vals, Options: []string{"ship", "hold"}}
	next := &countingJudge{resp: delegation.Verdict{Pick: "hold", Asked: true}}
	v, err := (&Deterministic{Next: next}).Judge(context.Background(), j)
	if err != nil || v.Pick != "hold" || next.n != 1 {
		t.Errorf("got %+v, %v after %d asks of Next", v, err, next.n)
	}
	if _, ok := Decide(j); ok {
		t.Error("Decide decided a choice")
	}
	_, err = (&Deterministic{}).Judge(context.Background(), j)
	if !errors.Is(err, ErrNeedsModel) || !strings.Contains(err.Error(), `the choice "verdict accepts the draft" needs a model to pick an option`) {
		t.Errorf("without Next: %v", err)
	}
	if n := NeedsModel(cond, nil); n != NeedAlways {
		t.Errorf("NeedsModel of a choice's criteria: %v", n)
	}
}

func jsonObject(t *testing.T, s string) delegation.Value {
	t.Helper()
	v, err := delegation.FromJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
