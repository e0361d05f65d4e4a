package judge

import (
	"context"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
)

// parseCond parses `if TEXT:` with the real parser and returns its
// natural-language condition (failing when TEXT is an expression).
func parseCond(t *testing.T, text string) *syntax.NaturalCond {
	t.Helper()
	prog, errs := syntax.ParseString("cond.prose", "if "+text+":\n    return 1\n")
	if errs.HasErrors() {
		t.Fatalf("%q: %v", text, errs)
	}
	var nc *syntax.NaturalCond
	syntax.Walk(prog, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.NaturalCond); ok && nc == nil {
			nc = c
		}
		return nc == nil
	})
	if nc == nil {
		t.Fatalf("%q is not a natural-language condition", text)
	}
	return nc
}

type ruleCase struct {
	cond, values string
	want         string // "true", "false" or "model"
	rule         string
}

func checkRules(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		c := parseCond(t, tc.cond)
		v, ok := Decide(&delegation.Judgment{Cond: c, Values: values(t, tc.values)})
		got := "model"
		if ok {
			got = map[bool]string{true: "true", false: "false"}[v.Holds]
		}
		if got != tc.want {
			t.Errorf("%q with %s: got %s (%+v), want %s", tc.cond, tc.values, got, v, tc.want)
			continue
		}
		if ok && (v.Rule != tc.rule || v.Reasoning == "") {
			t.Errorf("%q with %s: rule %q (%q), want %q", tc.cond, tc.values, v.Rule, v.Reasoning, tc.rule)
		}
		if ok && NeedsModel(c, nil) == NeedAlways {
			t.Errorf("%q decided although NeedsModel says always", tc.cond)
		}
	}
}

// TestExplicitlyProceeds: `explicitly` (clearly, unambiguously...) counts
// only an explicit positive decision; data that may say yes in prose
// still goes to the model.
func TestExplicitlyProceeds(t *testing.T) {
	const guard = "decision does not explicitly proceed"
	ne := RuleNoExplicitDecision
	checkRules(t, []ruleCase{
		{guard, `{"decision": {"reason": "unclear"}}`, "true", ne},
		{guard, `{"decision": {"reason": "looks fine", "risk": 3}}`, "true", ne},
		{guard, `{"decision": {}}`, "true", ne},
		{guard, `{"decision": ""}`, "true", ne},
		{guard, `{"decision": 0}`, "true", ne},
		{guard, `{"decision": false}`, "true", ne},
		{guard, `{"decision": []}`, "true", ne},
		{guard, `{"decision": ["too risky", "no tests"]}`, "true", ne},
		{guard, `{"decision": {"Proceed": true}}`, "false", RuleStructuredVerdict},
		{guard, `{"decision": {"DECISION": "Proceed."}}`, "false", RuleStructuredVerdict},
		{guard, `{"decision": "yes, go ahead"}`, "model", ""},
		{guard, `{"decision": true}`, "model", ""},
		{guard, `{"decision": {"safe_to_proceed": true}}`, "model", ""},
		{guard, `{"decision": {"answer": "proceed"}}`, "model", ""},
		{guard, `{"decision": {"answer": "Yes"}}`, "model", ""},
		{guard, `{"decision": {"decision": "I think we can go ahead"}}`, "model", ""},
		{guard, `{"decision": {"proceed": "yes"}}`, "model", ""},
		{guard, `{"decision": {"verdict": 1}}`, "model", ""},
		{guard, `{"decision": {"notes": {"checks": [{"ok": true}]}}}`, "model", ""},
		{guard, `{"decision": [{"proceed": true}]}`, "model", ""},
		{guard, `{"decision": {"proceed": true, "verdict": "abort"}}`, "model", ""},
		{"decision does not clearly proceed", `{"decision": {"reason": "unclear"}}`, "true", ne},
		{"decision doesn't unambiguously proceed", `{"decision": {"reason": "unclear"}}`, "true", ne},
		{"decision does not expressly approve the release", `{"decision": {"reason": "x"}}`, "true", ne},
		{"decision does not explicitly say proceed", `{"decision": {"reason": "x"}}`, "true", ne},
		{"decision explicitly proceeds", `{"decision": {"reason": "x"}}`, "false", ne},
		{"decision clearly approves the change", `{"decision": {"comment": "n/a"}}`, "false", ne},
		// Without the adverb, or with a refusing verb, the rule does not apply.
		{"decision does not proceed", `{"decision": {"reason": "unclear"}}`, "model", ""},
		{"decision explicitly rejects the plan", `{"decision": {"reason": "x"}}`, "model", ""},
		{"decision explicitly says abort", `{"decision": {"reason": "x"}}`, "model", ""},
	})
}

// TestUserConditions covers conditions as users write them beyond the
// corpus, and the forms that must still go to the model.
func TestUserConditions(t *testing.T) {
	sv, ev := RuleStructuredVerdict, RuleEvaluationVerdict
	checkRules(t, []ruleCase{
		{"review approves the change", `{"review": {"approved": true}}`, "true", sv},
		{"review approves the change", `{"review": {"status": "PASS"}}`, "true", sv},
		{"review approves the change", `{"review": "Certified."}`, "true", sv},
		{"review approves the change", `{"review": {"decision": {"verdict": "accept"}}}`, "true", sv},
		{"review approves the change", `{"review": {"Verdict": "rejected"}}`, "false", sv},
		{"review approved the change", `{"review": "approved"}`, "true", sv},
		{"the critic accepts the draft", `{"critic": {"verdict": "reject"}}`, "false", sv},
		{"verdict is certified", `{"verdict": {"verdict": "Certified."}}`, "true", sv},
		{"verdict is not certified", `{"verdict": {"verdict": "Certified."}}`, "false", sv},
		{"verdict is not certified", `{"verdict": "rejected"}`, "true", sv},
		{"verdict isn't approved", `{"verdict": "approve"}`, "false", sv},
		{"verdict is a pass", `{"verdict": {"status": "passed"}}`, "true", sv},
		{"result is a failure", `{"result": {"status": "error"}}`, "true", sv},
		{"result is acceptable", `{"result": {"ok": true}}`, "true", sv},
		{"result passes", `{"result": {"status": "PASS"}}`, "true", sv},
		{"result passed", `{"result": {"status": "failing"}}`, "false", sv},
		{"check fails", `{"check": {"status": "failed"}}`, "true", sv},
		{"check fails", `{"check": {"passed": true}}`, "false", sv},
		{"decision says stop", `{"decision": "abort"}`, "true", sv},
		{"decision says stop", `{"decision": {"decision": {"verdict": "accept"}}}`, "false", sv},
		{"decision says to proceed", `{"decision": {"proceed": true}}`, "true", sv},
		{"verdict does not certify the proposal", `{"verdict": "certify"}`, "false", sv},
		{"verdict fails to certify the proposal", `{"verdict": "reject"}`, "true", sv},
		{"verdict rejects the proposal", `{"verdict": {"approved": true}}`, "false", sv},
		{"verdict vetoes the release", `{"verdict": {"approved": false}}`, "true", sv},
		{"evaluation says the result is acceptable", `{"evaluation": {"verdict": "accept"}, "result": "a draft"}`, "true", ev},
		{"evaluation says the result is acceptable", `{"evaluation": {"verdict": "reject"}, "result": null}`, "false", ev},
		{"evaluation says the result is not acceptable", `{"evaluation": {"decision": {"approved": true}}, "result": "d"}`, "false", ev},
		{"evaluation says result is acceptable", `{"evaluation": {"verdict": "accept"}, "result": {"status": "failed"}}`, "false", sv},
		// A list holds several decisions: all or any? The model reads it.
		{"reviews approve the change", `{"reviews": [{"verdict": "accept"}, {"verdict": "accept"}]}`, "model", ""},
		{"evaluation says the result is acceptable", `{"evaluation": "The result is acceptable.", "result": "d"}`, "model", ""},
		// A criterion's status describes a rubric as well as an outcome.
		{"evaluation says the result is acceptable", `{"evaluation": {"status": "failed"}, "result": "d"}`, "model", ""},
		// More than `SUBJECT VERB OBJECT`: a second clause, a hedge, a quantifier.
		{"verdict certifies the proposal and tests pass", `{"verdict": "certify"}`, "model", ""},
		{"verdict certifies the proposal or budget runs out", `{"verdict": "certify"}`, "model", ""},
		{"verdict certifies the proposal only if tests pass", `{"verdict": "certify"}`, "model", ""},
		{"verdict certifies the proposal, mostly", `{"verdict": "certify"}`, "model", ""},
		{"verdict certifies most of the proposal", `{"verdict": "certify"}`, "model", ""},
		{"verdict certifies the proposal without reservations", `{"verdict": "certify"}`, "model", ""},
		{"verdict probably certifies the proposal", `{"verdict": "certify"}`, "model", ""},
		{"verdict partially approves the change", `{"verdict": "approve"}`, "model", ""},
		{"verdict's status is pass", `{"verdict": {"status": "pass"}}`, "model", ""},
		{"verdict is valid", `{"verdict": "accept"}`, "model", ""},
		{"verdict is certified by the board", `{"verdict": "certify"}`, "model", ""},
		{"decision does not not proceed", `{"decision": "proceed"}`, "model", ""},
		{"decision says stop now", `{"decision": "abort"}`, "model", ""},
	})
}

// TestNoModelHintFitsTheCondition: the error without a model suggests
// data in the shape the condition asks about.
func TestNoModelHintFitsTheCondition(t *testing.T) {
	cases := map[string]string{
		"gate does not explicitly proceed":           `{"proceed": true}`,
		"verdict certifies the proposal":             `{"verdict": "certify"}`,
		"review approves the change":                 `{"verdict": "accept"}`,
		"decision says abort":                        `{"decision": "abort"}`,
		"criteria says result is a failure":          `{"status": "failed"}`,
		"criteria says result is purple":             "a predicate whose sense is known",
		"the stars align for the review":             "as an expression",
		"verdict certifies the proposal and more so": "as an expression",
	}
	for text, want := range cases {
		c := parseCond(t, text)
		_, err := (&Deterministic{}).Judge(context.Background(), &delegation.Judgment{Cond: c, Values: values(t, `{"gate": "hm", "verdict": "hm", "review": "hm", "decision": "hm", "criteria": "c", "result": "r"}`)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v lacks %s", text, err, want)
		}
	}
}
