package judge

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

var pathRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*`)

// verbCond builds a condition as the parser does for a verb form.
func verbCond(text, verb string, negated bool) *syntax.NaturalCond {
	c := &syntax.NaturalCond{Text: text, Verb: verb, Negated: negated}
	for _, loc := range pathRE.FindAllStringIndex(text, -1) {
		c.Words = append(c.Words, syntax.Word{Pos: diag.Pos(loc[0]), Path: text[loc[0]:loc[1]]})
	}
	return c
}

// saysCond builds `CRIT says SUBJ is [not] PRED`.
func saysCond(crit, subj string, not bool, pred string, pol syntax.Polarity) *syntax.NaturalCond {
	text := crit + " says " + subj + " is "
	if not {
		text += "not "
	}
	text += pred
	c := verbCond(text, "says", false)
	c.Says = &syntax.Says{Criterion: crit, Subject: subj, Predicate: strings.TrimPrefix(pred, "a "),
		Negated: not, Polarity: pol}
	return c
}

// values builds Judgment.Values from a JSON object; "" means no values.
func values(t *testing.T, js string) *delegation.Object {
	t.Helper()
	if js == "" {
		return delegation.NewObject()
	}
	v, err := delegation.FromJSON([]byte(js))
	if err != nil {
		t.Fatalf("values %s: %v", js, err)
	}
	return v.(*delegation.Object)
}

type decideCase struct {
	name   string
	cond   *syntax.NaturalCond
	values string
	// want: "true", "false" or "model" (no rule decides)
	want string
	rule string
}

var (
	certifies   = verbCond("verdict certifies the proposal", "certifies", false)
	accepts     = verbCond("verdict accepts result", "accepts", false)
	saysAbort   = verbCond("decision says abort", "says", false)
	saysAdjust  = verbCond("decision says adjust", "says", false)
	notProceed  = verbCond("decision does not explicitly proceed", "proceed", true)
	rejects     = verbCond("verdict rejects the plan", "rejects", false)
	isFailure   = saysCond("failure_criteria", "result", false, "a failure", syntax.Negative)
	isNotFail   = saysCond("failure_criteria", "result", true, "a failure", syntax.Negative)
	candFailure = saysCond("failure_criteria", "candidate_result", false, "a failure", syntax.Negative)
	acceptable  = saysCond("acceptance_criteria", "attempt.result", false, "acceptable", syntax.Positive)
	purple      = saysCond("criteria", "result", false, "purple", syntax.Unknown)
)

func decideCases() []decideCase {
	sv, ns := RuleStructuredVerdict, RuleNullSubject
	return []decideCase{
		// ratchet: verdict certifies the proposal
		{"certify word", certifies, `{"verdict": {"verdict": "certify"}}`, "true", sv},
		{"certified word", certifies, `{"verdict": {"verdict": "Certified"}}`, "true", sv},
		{"certified bool", certifies, `{"verdict": {"certified": true, "notes": "x"}}`, "true", sv},
		{"certified false", certifies, `{"verdict": {"certified": false, "feedback": "no"}}`, "false", sv},
		{"reject word", certifies, `{"verdict": {"verdict": "reject", "reason": "x"}}`, "false", sv},
		{"bare accept", certifies, `{"verdict": "accept"}`, "true", sv},
		{"bare rejected punct", certifies, `{"verdict": " REJECTED. "}`, "false", sv},
		{"adjust is not certify", certifies, `{"verdict": {"verdict": "adjust"}}`, "false", sv},
		{"null verdict", certifies, `{"verdict": null}`, "false", ns},
		{"prose verdict", certifies, `{"verdict": "Looks good, but step 2 is wrong"}`, "model", ""},
		{"contradiction", certifies, `{"verdict": {"verdict": "certify", "certified": false}}`, "model", ""},
		{"agreeing signals", certifies, `{"verdict": {"status": "passed", "ok": true}}`, "true", sv},
		{"nested verdict", certifies, `{"verdict": {"decision": {"verdict": "approve"}}}`, "true", sv},
		{"no decision field", certifies, `{"verdict": {"feedback": "fine"}}`, "model", ""},
		{"number verdict", certifies, `{"verdict": 7}`, "model", ""},
		{"unbound subject", certifies, `{"proposal": "x"}`, "model", ""},
		{"string in bool field", certifies, `{"verdict": {"certified": "yes"}}`, "model", ""},
		// worker-critic: verdict accepts result
		{"accepted bool", accepts, `{"verdict": {"accepted": true}}`, "true", sv},
		{"rejected status", accepts, `{"verdict": {"verdict": "rejected"}}`, "false", sv},
		{"ok false", accepts, `{"verdict": {"ok": false}}`, "false", sv},
		{"pass true", accepts, `{"verdict": {"pass": true}}`, "true", sv},
		{"status failed", accepts, `{"verdict": {"status": "failed"}}`, "false", sv},
		{"verdict bool", accepts, `{"verdict": {"verdict": true}}`, "true", sv},
		// a refusing verb
		{"rejects on reject", rejects, `{"verdict": "reject"}`, "true", sv},
		{"rejects on certified false", rejects, `{"verdict": {"certified": false}}`, "true", sv},
		{"rejects on approve", rejects, `{"verdict": "approve"}`, "false", sv},
		// oversight: decision says abort / adjust
		{"abort on abort", saysAbort, `{"decision": {"decision": "abort"}}`, "true", sv},
		{"abort on stop", saysAbort, `{"decision": "stop"}`, "true", sv},
		{"abort on continue", saysAbort, `{"decision": {"decision": "continue"}}`, "false", sv},
		{"abort on adjust", saysAbort, `{"decision": {"decision": "adjust", "adjusted_brief": "b"}}`, "false", sv},
		{"abort on proceed false", saysAbort, `{"decision": {"proceed": false}}`, "model", ""},
		{"abort on proceed true", saysAbort, `{"decision": {"proceed": true}}`, "false", sv},
		{"abort on null", saysAbort, `{"decision": null}`, "false", ns},
		{"adjust on adjust", saysAdjust, `{"decision": "adjust"}`, "true", sv},
		{"adjust on abort", saysAdjust, `{"decision": {"decision": "abort"}}`, "false", sv},
		{"adjust on continue", saysAdjust, `{"decision": {"status": "continue"}}`, "false", sv},
		{"adjust on proceed false", saysAdjust, `{"decision": {"proceed": false}}`, "model", ""},
		// guard: decision does not explicitly proceed
		{"guard proceed true", notProceed, `{"decision": {"proceed": true, "reason": "ok"}}`, "false", sv},
		{"guard proceed false", notProceed, `{"decision": {"proceed": false, "reason": "risky"}}`, "true", sv},
		{"guard bare proceed", notProceed, `{"decision": "proceed"}`, "false", sv},
		{"guard block", notProceed, `{"decision": {"decision": "block"}}`, "true", sv},
		{"guard adjust", notProceed, `{"decision": {"decision": "adjust"}}`, "true", sv},
		{"guard reason only", notProceed, `{"decision": {"reason": "fine"}}`, "true", RuleNoExplicitDecision},
		{"guard null", notProceed, `{"decision": null}`, "true", ns},
		{"guard prose", notProceed, `{"decision": "sure, go ahead"}`, "model", ""},
		// retry-with-learning, fallback-chain: failure_criteria says ... is a failure
		{"null criterion failure", isFailure, `{"failure_criteria": null, "result": {"x": 1}}`, "false", RuleSaysNullCriterion},
		{"blank criterion failure", isFailure, `{"failure_criteria": "  ", "result": "x"}`, "false", RuleSaysNullCriterion},
		{"empty object criterion", isFailure, `{"failure_criteria": {}, "result": "x"}`, "false", RuleSaysNullCriterion},
		{"empty list criterion", isFailure, `{"failure_criteria": [], "result": "x"}`, "false", RuleSaysNullCriterion},
		{"null criterion is not failure", isNotFail, `{"failure_criteria": null, "result": "x"}`, "true", RuleSaysNullCriterion},
		{"null criterion structured failure", isFailure, `{"failure_criteria": null, "result": {"status": "failed"}}`, "false", RuleSaysNullCriterion},
		{"criterion and failed status", candFailure, `{"failure_criteria": "must compile", "candidate_result": {"status": "failed"}}`, "true", sv},
		{"criterion and passed status", candFailure, `{"failure_criteria": "must compile", "candidate_result": {"status": "passed"}}`, "false", sv},
		{"criterion and error word", isFailure, `{"failure_criteria": "no errors", "result": "error"}`, "true", sv},
		{"criterion not failure passed", isNotFail, `{"failure_criteria": "c", "result": {"pass": true}}`, "true", sv},
		{"criterion and prose", isFailure, `{"failure_criteria": "must compile", "result": "it compiled"}`, "model", ""},
		{"criterion and null result", isFailure, `{"failure_criteria": "must compile", "result": null}`, "model", ""},
		{"unbound criterion", isFailure, `{"result": "x"}`, "model", ""},
		// race: acceptance_criteria says attempt.result is acceptable
		{"null acceptance", acceptable, `{"acceptance_criteria": null, "attempt.result": "x"}`, "true", RuleSaysNullCriterion},
		{"acceptance and accept", acceptable, `{"acceptance_criteria": "c", "attempt.result": {"verdict": "accept"}}`, "true", sv},
		{"acceptance and reject", acceptable, `{"acceptance_criteria": "c", "attempt.result": {"verdict": "reject"}}`, "false", sv},
		// forms no rule understands
		{"unknown polarity", purple, `{"criteria": null, "result": "x"}`, "model", ""},
		{"unknown verb", verbCond("verdict likes the proposal", "likes", false), `{"verdict": "accept"}`, "model", ""},
		{"says sentence", verbCond("decision says we should stop now", "says", false), `{"decision": "abort"}`, "model", ""},
		{"leading article", verbCond("the verdict certifies the proposal", "certifies", false), `{"verdict": "certify"}`, "true", sv},
	}
}

func TestDecide(t *testing.T) {
	for _, tc := range decideCases() {
		t.Run(tc.name, func(t *testing.T) {
			j := &delegation.Judgment{Cond: tc.cond, Values: values(t, tc.values)}
			v, ok := Decide(j)
			got := "model"
			if ok {
				got = map[bool]string{true: "true", false: "false"}[v.Holds]
			}
			if got != tc.want {
				t.Fatalf("%q with %s: got %s (%+v), want %s", tc.cond.Text, tc.values, got, v, tc.want)
			}
			if ok && (v.Rule != tc.rule || v.Reasoning == "" || v.Asked) {
				t.Errorf("verdict %+v: want rule %q, a reasoning, not asked", v, tc.rule)
			}
		})
	}
}

type countingJudge struct {
	n    int
	resp delegation.Verdict
}

func (c *countingJudge) Judge(ctx context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	c.n++
	return c.resp, nil
}

func TestDeterministicDelegatesOnlyUndecided(t *testing.T) {
	next := &countingJudge{resp: delegation.Verdict{Holds: true, Asked: true, Model: "m"}}
	d := &Deterministic{Next: next}
	var wantNext, wantDecided int64
	for _, tc := range decideCases() {
		j := &delegation.Judgment{Cond: tc.cond, Values: values(t, tc.values)}
		v, err := d.Judge(context.Background(), j)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.want == "model" {
			wantNext++
			if !v.Asked || v.Model != "m" {
				t.Errorf("%s: verdict %+v did not come from Next", tc.name, v)
			}
		} else {
			wantDecided++
		}
	}
	if int64(next.n) != wantNext {
		t.Errorf("Next asked %d times, want %d", next.n, wantNext)
	}
	if s := d.Stats(); s.Decided != wantDecided || s.Delegated != wantNext {
		t.Errorf("Stats = %+v, want decided %d delegated %d", s, wantDecided, wantNext)
	}
}

func TestNoModelError(t *testing.T) {
	d := &Deterministic{}
	j := &delegation.Judgment{
		Cond:   certifies,
		Pos:    diag.Position{File: "ratchet.prose.md", Line: 81, Col: 6},
		Values: values(t, `{"verdict": "I am fairly convinced"}`),
	}
	_, err := d.Judge(context.Background(), j)
	if err == nil {
		t.Fatal("no error without a model")
	}
	if !errors.Is(err, ErrNeedsModel) {
		t.Errorf("error %v does not wrap ErrNeedsModel", err)
	}
	for _, want := range []string{"ratchet.prose.md:81:6", `"verdict certifies the proposal"`,
		"--model", "PROSE_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL", `{"verdict": "certify"}`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if s := d.Stats(); s.Delegated != 1 || s.Decided != 0 {
		t.Errorf("Stats = %+v", s)
	}
}

func TestNilJudgment(t *testing.T) {
	if _, ok := Decide(nil); ok {
		t.Error("nil judgment decided")
	}
	if _, ok := Decide(&delegation.Judgment{}); ok {
		t.Error("judgment without condition decided")
	}
	if _, err := (&Deterministic{}).Judge(context.Background(), &delegation.Judgment{}); err == nil {
		t.Error("no error for an empty judgment without a model")
	}
}

func TestNeedsModel(t *testing.T) {
	config := map[string]delegation.Value{"failure_criteria": nil, "acceptance_criteria": "tests pass"}
	known := func(p string) (delegation.Value, bool) { v, ok := config[p]; return v, ok }
	cases := []struct {
		cond *syntax.NaturalCond
		want Need
	}{
		{isFailure, NeedNever},
		{isNotFail, NeedNever},
		{acceptable, NeedMaybe},
		{purple, NeedAlways},
		{certifies, NeedMaybe},
		{notProceed, NeedMaybe},
		{saysAbort, NeedMaybe},
		{verbCond("verdict likes it", "likes", false), NeedAlways},
		{verbCond("decision says we should stop", "says", false), NeedAlways},
		{nil, NeedAlways},
	}
	for _, tc := range cases {
		if got := NeedsModel(tc.cond, known); got != tc.want {
			t.Errorf("NeedsModel(%v) = %v, want %v", tc.cond, got, tc.want)
		}
	}
	if got := NeedsModel(isFailure, nil); got != NeedMaybe {
		t.Errorf("NeedsModel without known values = %v, want maybe", got)
	}
}

// TestNoModelErrorCriterionSpelledNull: a criterion given as the text
// "null" is a rubric; the error says so and how to give none.
func TestNoModelErrorCriterionSpelledNull(t *testing.T) {
	cond := saysCond("failure_criteria", "outcome", false, "failure", syntax.Negative)
	for _, crit := range []string{`"null"`, `" None "`, `"the result is empty"`} {
		j := &delegation.Judgment{Cond: cond, Pos: diag.Position{File: "r.prose.md", Line: 7, Col: 8},
			Values: values(t, `{"failure_criteria": `+crit+`, "outcome": "ERROR: no database"}`)}
		_, err := (&Deterministic{}).Judge(context.Background(), j)
		if err == nil {
			t.Fatalf("%s: no error without a model", crit)
		}
		noted := strings.Contains(err.Error(), "is the text") && strings.Contains(err.Error(), "leave it unset or empty")
		if want := crit != `"the result is empty"`; noted != want {
			t.Errorf("%s: note present %v, want %v: %v", crit, noted, want, err)
		}
		if !strings.Contains(err.Error(), "with failure_criteria unset or empty") {
			t.Errorf("%s: hint %v", crit, err)
		}
	}
}

// A condition in a claim form whose subject is of a kind the form cannot
// read is an error of the judgment, not false: `score is at least 0.5`
// with score "0.9" (text, as --input gives an untyped input) took the
// other branch with exit 0. A subject of the right kind is decided.
func TestClaimFormOfTheWrongKindIsAnError(t *testing.T) {
	d := &Deterministic{}
	for _, tc := range []struct{ cond, values, want string }{
		{"score is at least 0.5", `{"score": "0.9"}`, `score is at least 0.5: score is a string, not a number ("0.9"), so the compare form cannot decide it`},
		{"items has more than 3 items", `{"items": "a, b"}`, "items is a string, not a list"},
		{"items does not have more than 3 items", `{"items": "a, b"}`, "items is a string, not a list"},
		{`count contains "1"`, `{"count": 12}`, "count is an integer, not text, a list or an object"},
	} {
		j := &delegation.Judgment{Cond: parseCond(t, tc.cond), Values: values(t, tc.values)}
		v, err := d.Judge(context.Background(), j)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s with %s: %+v, %v; want the error %q", tc.cond, tc.values, v, err, tc.want)
		}
		if _, ok := Decide(j); ok {
			t.Errorf("%s with %s: Decide decided it", tc.cond, tc.values)
		}
	}
	j := &delegation.Judgment{Cond: parseCond(t, "score is at least 0.5"), Values: values(t, `{"score": 0.9}`)}
	if v, err := d.Judge(context.Background(), j); err != nil || !v.Holds {
		t.Errorf("a number: %+v, %v", v, err)
	}
}
