package judge

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/claim/form"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
)

// RuleClaimForm names the rule that decides a condition in one of the
// claim forms (package claim/form) about the name it starts with.
const RuleClaimForm = "claim-form"

// Conditions in a claim form (issue 18, item 33).
//
// Decided: a natural-language condition that no verdict rule reads, that
// starts with a bound name path and goes on in one of the fixed forms of
// an expectation (`items is empty`, `items contains "p"`, `notes has at
// most 3 items`, `score is_integer_between(0, 100)`), is decided from
// that name's value by the same code prose test decides the expectation
// with (claim/form), so a run and a test agree and neither asks a model.
// A condition a verdict rule reads (`verdict accepts the draft`) is
// decided by that rule, as before.

// subjectForm splits cond into its leading name path and the rest, when
// the text starts with that path and the rest is in a claim form.
func subjectForm(cond *syntax.NaturalCond) (path, rest string, ok bool) {
	if cond == nil || len(cond.Words) == 0 || cond.Words[0].Pos != cond.TextPos {
		return "", "", false
	}
	path = cond.Words[0].Path
	text, found := strings.CutPrefix(cond.Text, path)
	if !found || text == "" || text[0] != ' ' {
		return "", "", false
	}
	rest = strings.TrimSuffix(strings.Join(strings.Fields(text), " "), ".")
	if _, ok := form.Decide(rest, nil); !ok {
		return "", "", false
	}
	return path, rest, true
}

// formMismatch is the error of a condition in a claim form whose subject
// is of a kind the form cannot read (`score is at least 0.5` where score
// is text, `items has more than 3 items` where items is text): decided,
// it would be false for the wrong reason and take the other branch with
// exit 0, where `score >= 0.5` stops the run (semantics.md 19). nil when
// the condition is in no form or its subject fits.
func formMismatch(j *delegation.Judgment, read func(*syntax.NaturalCond) question) error {
	if j == nil || j.Cond == nil || j.Cond.Says != nil || read(j.Cond).ask != askNone {
		return nil
	}
	path, rest, ok := subjectForm(j.Cond)
	if !ok {
		return nil
	}
	v, bound := lookup(j.Values, path)
	if !bound {
		return nil
	}
	r, ok := form.Decide(rest, v)
	if !ok || r.Mismatch == "" {
		return nil
	}
	shown, _ := delegation.ToJSON(v)
	if len(shown) > 80 {
		shown = append(shown[:77:77], "..."...)
	}
	return fmt.Errorf("%s %s: %s is %s (%s), so the %s form cannot decide it: give it a value of that kind (a value given with --input is text unless its input declares a type)",
		path, rest, path, r.Mismatch, shown, r.Rule)
}

// formVerdict decides j by a claim form, when its condition is in one.
func formVerdict(j *delegation.Judgment) (delegation.Verdict, bool) {
	path, rest, ok := subjectForm(j.Cond)
	if !ok {
		return delegation.Verdict{}, false
	}
	v, bound := lookup(j.Values, path)
	if !bound {
		return delegation.Verdict{}, false
	}
	r, ok := form.Decide(rest, v)
	if !ok {
		return delegation.Verdict{}, false
	}
	why := fmt.Sprintf("%s %s: decided from the data by the %s form", path, rest, r.Rule)
	if r.Detail != "" {
		why += " (" + r.Detail + ")"
	}
	return delegation.Verdict{Holds: r.Holds, Rule: RuleClaimForm, Reasoning: why}, true
}
