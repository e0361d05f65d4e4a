package syntax

import (
	"reflect"
	"strings"
	"testing"
)

// condOf parses `if COND:` and returns the condition.
func condOf(t *testing.T, cond string) Expr {
	t.Helper()
	prog := parseOK(t, "if "+cond+":\n  x")
	return prog.Body[0].(*IfStmt).Cond
}

func TestNaturalConditions(t *testing.T) {
	tests := []struct {
		cond    string
		words   []string
		negated bool
		verb    string
		says    *Says
	}{
		{cond: "verdict certifies the proposal", words: []string{"verdict", "certifies", "the", "proposal"}, verb: "certifies"},
		{cond: "verdict accepts result", words: []string{"verdict", "accepts", "result"}, verb: "accepts"},
		{cond: "decision says abort", words: []string{"decision", "says", "abort"}, verb: "says"},
		{cond: "decision does not explicitly proceed", words: []string{"decision", "does", "explicitly", "proceed"}, negated: true, verb: "proceed"},
		{cond: "decision doesn't proceed", words: []string{"decision", "proceed"}, negated: true, verb: "proceed"},
		{cond: "decision doesn’t proceed", words: []string{"decision", "proceed"}, negated: true, verb: "proceed"},
		{cond: "result never Passes", words: []string{"result", "never", "Passes"}, negated: true, verb: "passes"},
		{cond: "draft fails to convince", words: []string{"draft", "fails", "to", "convince"}, negated: true, verb: "convince"},
		{cond: "failure_criteria says result is a failure",
			words: []string{"failure_criteria", "says", "result", "a", "failure"}, verb: "says",
			says: &Says{Criterion: "failure_criteria", Subject: "result", Predicate: "failure", Polarity: Negative}},
		{cond: "acceptance_criteria says attempt.result is acceptable",
			words: []string{"acceptance_criteria", "says", "attempt.result", "acceptable"}, verb: "says",
			says: &Says{Criterion: "acceptance_criteria", Subject: "attempt.result", Predicate: "acceptable", Polarity: Positive}},
		{cond: "rubric says draft is not the right answer",
			words: []string{"rubric", "says", "draft", "the", "right", "answer"}, verb: "says",
			says: &Says{Criterion: "rubric", Subject: "draft", Predicate: "right answer", Negated: true, Polarity: Positive}},
		{cond: "rubric says draft isn't valid",
			words: []string{"rubric", "says", "draft", "valid"}, verb: "says",
			says: &Says{Criterion: "rubric", Subject: "draft", Predicate: "valid", Negated: true, Polarity: Positive}},
		{cond: "rubric says draft is an empty answer",
			words: []string{"rubric", "says", "draft", "an", "empty", "answer"}, verb: "says",
			says: &Says{Criterion: "rubric", Subject: "draft", Predicate: "empty answer", Polarity: Negative}},
		{cond: "rubric says draft is purple",
			words: []string{"rubric", "says", "draft", "purple"}, verb: "says",
			says: &Says{Criterion: "rubric", Subject: "draft", Predicate: "purple", Polarity: Unknown}},
		{cond: "verdict's score is high", words: []string{"verdict", "score", "high"}, verb: "score"},
		{cond: "decision says 'abort'", words: []string{"decision", "says", "abort"}, verb: "says"},
		{cond: "the rubric says the draft is a pass", words: []string{"the", "rubric", "says", "the", "draft", "a", "pass"}, verb: "says",
			says: &Says{Criterion: "rubric", Subject: "draft", Predicate: "pass", Polarity: Positive}},
		{cond: "not the critic approves", words: []string{"the", "critic", "approves"}, negated: true, verb: "approves"},
		{cond: "verdict is not certified", words: []string{"verdict", "certified"}, negated: true, verb: "certified"},
		{cond: "verdict is certified", words: []string{"verdict", "certified"}, verb: "certified"},
		{cond: "decision doesn't unambiguously proceed", words: []string{"decision", "unambiguously", "proceed"}, negated: true, verb: "proceed"},
		{cond: "verdict.re-check says ok", words: []string{"verdict.re-check", "says", "ok"}, verb: "says"},
	}
	for _, tt := range tests {
		t.Run(tt.cond, func(t *testing.T) {
			n, ok := condOf(t, tt.cond).(*NaturalCond)
			if !ok {
				t.Fatalf("not a natural condition: %s", Dump(condOf(t, tt.cond)))
			}
			if n.Text != tt.cond {
				t.Errorf("Text = %q", n.Text)
			}
			var words []string
			code := "if " + tt.cond + ":\n  x"
			for _, w := range n.Words {
				words = append(words, w.Path)
				if !strings.HasPrefix(code[w.Pos:], w.Path) {
					t.Errorf("word %q at wrong position %d", w.Path, w.Pos)
				}
			}
			if !reflect.DeepEqual(words, tt.words) {
				t.Errorf("Words = %q, want %q", words, tt.words)
			}
			if n.Negated != tt.negated || n.Verb != tt.verb {
				t.Errorf("Negated, Verb = %v, %q; want %v, %q", n.Negated, n.Verb, tt.negated, tt.verb)
			}
			if !reflect.DeepEqual(n.Says, tt.says) {
				t.Errorf("Says = %+v, want %+v", n.Says, tt.says)
			}
			if code[n.TextPos:n.EndPos] != tt.cond {
				t.Errorf("span %q", code[n.TextPos:n.EndPos])
			}
		})
	}
}

func TestExpressionConditions(t *testing.T) {
	for cond, want := range map[string]string{
		"attempt.error is present":      "(is (. attempt error) present)",
		"current_score meets threshold": "(meets current_score threshold)",
		`a == "b" and c.d`:              `(and (== a "b") (. c d))`,
		"not done":                      "(not done)",
		"x is not null":                 "(is-not x null)",
		"ready":                         "ready",
	} {
		if got := Dump(condOf(t, cond)); got != want {
			t.Errorf("%s: got %s, want %s", cond, got, want)
		}
	}
}

func TestWhileConditionBounds(t *testing.T) {
	prog := parseOK(t, "loop until critic says draft is good (max: 3) as i:\n  x")
	w := prog.Body[0].(*WhileStmt)
	n, ok := w.Cond.(*NaturalCond)
	if !ok || n.Text != "critic says draft is good" || n.Says == nil || n.Says.Polarity != Positive {
		t.Fatalf("cond = %s %+v", Dump(w.Cond), n)
	}
	if Dump(w.Max) != "3" || w.Var == nil || w.Var.Name != "i" || !w.Until {
		t.Errorf("loop = %s", Dump(w))
	}
	w = parseOK(t, "loop while the draft is weak as i:\n  x").Body[0].(*WhileStmt)
	if w.Var == nil || w.Max != nil || Dump(w.Cond) != `(natural "the draft is weak")` {
		t.Errorf("loop = %s", Dump(w))
	}
}
