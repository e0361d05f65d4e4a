// Package judge decides the natural-language conditions of a Delegation
// block without a model wherever the run's data allows it.
//
// Deterministic implements delegation.Judge; Decide applies the rules
// alone; NeedsModel tells a runner before a run whether a condition can
// need a model at all.
//
// # Forms read
//
// A rule reads a condition only in one of these forms; any other text
// (a second clause, a hedge, a quantifier, a longer object) goes to the
// model, even when the data carries a clear decision, because a wrong
// deterministic answer is worse than asking:
//
//   - `[not] [the] SUBJECT {does|not|never|explicitly|...} VERB [OBJECT]`,
//     VERB accepting (certifies, accepts, approves, endorses, passes,
//     proceeds, continues, clears, allows, permits, succeeds, greenlights
//     and their plain and past forms) or refusing (rejects, fails, aborts,
//     blocks, denies, refuses, vetoes, declines, stops, halts); OBJECT at
//     most four words, none of them a conjunction, preposition, negation,
//     quantifier or hedge (`the proposal`, not `the proposal and tests
//     pass`, `most of the plan`). `fails to VERB` negates VERB; two
//     negations are not read.
//   - `SUBJECT says [to] WORD`, WORD one decision word.
//   - `SUBJECT is [not] [a] WORD`, WORD a decision word (certified,
//     approved, rejected, a pass, a failure...) or acceptable,
//     unacceptable, successful, unsuccessful.
//   - `CRITERION says SUBJECT is [not] PREDICATE` as the parser reads it
//     (syntax.Says), with a predicate of known polarity.
//
// # Rules, in order
//
//   - "says-null-criterion": `CRITERION says SUBJECT is [not] PREDICATE`
//     where CRITERION is null or empty (no rubric): any non-error result
//     counts as a success, so a negative predicate (failure, error,
//     invalid...) does not hold and a positive one (acceptable, valid...)
//     does; `is not` flips the answer.
//   - "structured-verdict": the subject (a `says` form's SUBJECT, else the
//     condition's leading name) is a bare decision word ("accept",
//     "Certified.") or an object with a `verdict`, `decision` or `status`
//     word (or boolean, or a nested verdict object one level down), or a
//     boolean `certified`, `accepted`, `approved`, `proceed`, `ok`, `pass`
//     or `passed` field; keys match up to case. The decision is matched
//     against the question: accepting verbs and words ask for an
//     accepting decision (certify, accept, approve, pass, proceed,
//     continue, ok, success or a true boolean); refusing ones for a
//     refusal (reject, fail, abort, stop, block, error or a false
//     boolean); `X says WORD` and `X is WORD` ask whether the decision is
//     WORD, where all accepting words count as one, all stopping words as
//     one, and adjust is its own. Several signals in one value must
//     agree, else the value does not decide. A list (several verdicts:
//     all or any?) and a bare boolean (`problem` true blocks, `approval`
//     true passes) never decide.
//   - "evaluation-verdict": in `CRITERION says SUBJECT is PREDICATE`,
//     when the subject carries no decision and CRITERION is an object
//     whose `verdict` or `decision` field does (`evaluation says the result
//     is acceptable` after `evaluation = {"verdict": "accept"}`), that
//     decision answers. A criterion's `status` or boolean fields are not
//     read: they could describe a rubric as well as an outcome.
//   - "null-subject": for a verb form (not `says ... is`), a null subject
//     carries no decision: `verdict certifies the proposal` is false and
//     `decision does not explicitly proceed` is true.
//   - "no-explicit-decision": a verb qualified by explicitly, expressly,
//     clearly, unambiguously, unequivocally, unmistakably, definitely or
//     definitively asks for an explicit decision. When the verb (or the
//     word of `says WORD`) is accepting and the subject carries no
//     recognized decision, the subject does not explicitly accept:
//     `decision does not explicitly proceed` holds for
//     {"reason": "unclear"}, and `decision explicitly approves the change`
//     does not. This fails closed. It applies to an object or list with
//     nothing in it that may say yes (no true boolean, no accepting word
//     or yes/go/allowed/safe/lgtm anywhere, no decision field holding
//     prose or a number), a number, false, or a blank string. Any other
//     string ("yes, go ahead") may say yes in prose, and true may mean
//     yes: the model reads those. A refusing verb (`explicitly rejects`)
//     is not read this way, since "no explicit refusal" is the answer
//     that proceeds.
//
// Anything else goes to Next, normally the model judge of package llm.
// Without Next it is an error naming the condition and its position, saying
// how to configure a model or return a structured verdict.
//
// Fail-closed judgments (delegation.Judgment.FailClosed) are never given
// the proceeding answer by guesswork: the rules decide only from the data,
// and a model judge that cannot read a verdict answers
// Judgment.SafeHolds.
package judge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
)

// Rule names, as found in delegation.Verdict.Rule.
const (
	RuleSaysNullCriterion  = "says-null-criterion"
	RuleStructuredVerdict  = "structured-verdict"
	RuleNullSubject        = "null-subject"
	RuleEvaluationVerdict  = "evaluation-verdict"
	RuleNoExplicitDecision = "no-explicit-decision"
)

// Deterministic is a delegation.Judge that decides from the data and hands
// the rest to Next. It is safe for concurrent use.
type Deterministic struct {
	// Next judges what no rule decides (nil: that is an error).
	Next delegation.Judge

	decided   atomic.Int64
	delegated atomic.Int64
	// questions caches each condition's reading (by syntax node).
	questions sync.Map // *syntax.NaturalCond -> question
}

// Stats counts a Deterministic judge's work.
type Stats struct {
	// Decided is the judgments settled by a rule: model calls avoided.
	Decided int64
	// Delegated is the judgments handed to Next (or refused without one).
	Delegated int64
}

// Stats returns the counts so far.
func (d *Deterministic) Stats() Stats {
	return Stats{Decided: d.decided.Load(), Delegated: d.delegated.Load()}
}

// ErrNeedsModel is wrapped by the error returned when a condition needs a
// model and none is configured.
var ErrNeedsModel = errors.New("needs a model")

// Judge implements delegation.Judge.
func (d *Deterministic) Judge(ctx context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	if j.IsChoice() {
		// No rule picks an option: a choice's criteria are weighed.
		d.delegated.Add(1)
		if d.Next == nil {
			return delegation.Verdict{}, needsModelError(j)
		}
		return d.Next.Judge(ctx, j)
	}
	if err := formMismatch(j, d.question); err != nil {
		return delegation.Verdict{}, err
	}
	if v, ok := decide(j, d.question); ok {
		d.decided.Add(1)
		return v, nil
	}
	d.delegated.Add(1)
	if d.Next == nil {
		return delegation.Verdict{}, needsModelError(j)
	}
	return d.Next.Judge(ctx, j)
}

// question reads cond once per judge.
func (d *Deterministic) question(cond *syntax.NaturalCond) question {
	if q, ok := d.questions.Load(cond); ok {
		return q.(question)
	}
	q := parseQuestion(cond)
	d.questions.Store(cond, q)
	return q
}

// Decide applies the deterministic rules to j; ok is false when none
// decides.
func Decide(j *delegation.Judgment) (delegation.Verdict, bool) {
	if formMismatch(j, parseQuestion) != nil {
		return delegation.Verdict{}, false
	}
	return decide(j, parseQuestion)
}

func decide(j *delegation.Judgment, read func(*syntax.NaturalCond) question) (delegation.Verdict, bool) {
	if j == nil || j.Cond == nil || j.IsChoice() {
		return delegation.Verdict{}, false
	}
	if v, ok := saysNullCriterion(j); ok {
		return v, true
	}
	q := read(j.Cond)
	if q.ask == askNone {
		return formVerdict(j)
	}
	subj, bound := lookup(j.Values, q.subject)
	if !bound {
		return delegation.Verdict{}, false
	}
	sigs := signals(subj)
	if len(sigs) > 0 {
		return structured(q, q.subject, sigs, RuleStructuredVerdict)
	}
	if j.Cond.Says != nil {
		return evaluationVerdict(q, j)
	}
	if subj == nil {
		holds := q.negated
		return delegation.Verdict{Holds: holds, Rule: RuleNullSubject,
			Reasoning: fmt.Sprintf("%s is null: it carries no decision", q.subject)}, true
	}
	if q.explicit && q.positive() && lacksExplicitDecision(subj) {
		return delegation.Verdict{Holds: q.negated, Rule: RuleNoExplicitDecision,
			Reasoning: fmt.Sprintf("%s carries no explicit decision (no verdict, decision or status word, no proceed/approved... boolean), "+
				"so it does not explicitly %s", q.subject, explicitWhat(q))}, true
	}
	return delegation.Verdict{}, false
}

// evaluationVerdict decides `CRITERION says SUBJECT is PREDICATE` when
// the subject carries no decision and the criterion is an evaluation
// object whose verdict or decision field holds one.
func evaluationVerdict(q question, j *delegation.Judgment) (delegation.Verdict, bool) {
	crit, _ := lookup(j.Values, j.Cond.Says.Criterion)
	o, ok := crit.(*delegation.Object)
	if !ok {
		return delegation.Verdict{}, false
	}
	sigs := verdictSignals(o, 1)
	if len(sigs) == 0 {
		return delegation.Verdict{}, false
	}
	return structured(q, j.Cond.Says.Criterion, sigs, RuleEvaluationVerdict)
}

// lacksExplicitDecision reports whether v, which carries no recognized
// decision, cannot be read as saying yes: an object or list with nothing
// that may affirm (see maybeAffirms), a number, false, a blank string.
// Other strings may say yes in prose, and true may mean yes: the model
// reads those.
func lacksExplicitDecision(v delegation.Value) bool {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v) == ""
	case bool:
		return !v
	case int64, float64:
		return true
	case *delegation.Object, *delegation.List:
		budget := 256
		return !maybeAffirms(v, 4, &budget)
	}
	return false
}

// explicitWhat words what an explicit question asked for: "proceed",
// "say proceed", "read certified".
func explicitWhat(q question) string {
	switch {
	case q.ask != askSays:
		return q.verb
	case q.verb == "says" || q.verb == "say":
		return "say " + q.said
	}
	return "read " + q.said
}

func saysNullCriterion(j *delegation.Judgment) (delegation.Verdict, bool) {
	s := j.Cond.Says
	if s == nil || s.Polarity == syntax.Unknown {
		return delegation.Verdict{}, false
	}
	crit, bound := lookup(j.Values, s.Criterion)
	if !bound || !isEmpty(crit) {
		return delegation.Verdict{}, false
	}
	holds := s.Polarity == syntax.Positive
	if s.Negated {
		holds = !holds
	}
	why := fmt.Sprintf("%s is empty: with no rubric any non-error result counts as a success, so %q %s",
		s.Criterion, s.Predicate, map[bool]string{true: "holds", false: "does not hold"}[holds])
	return delegation.Verdict{Holds: holds, Rule: RuleSaysNullCriterion, Reasoning: why}, true
}

// structured decides q from the decisions sigs that the value named
// name carries.
func structured(q question, name string, sigs []class, rule string) (delegation.Verdict, bool) {
	decided, holds := false, false
	var names []string
	for _, c := range sigs {
		h, ok := q.answer(c)
		if !ok {
			continue
		}
		if decided && h != holds {
			return delegation.Verdict{}, false // the value contradicts itself
		}
		decided, holds = true, h
		names = append(names, c.String())
	}
	if !decided {
		return delegation.Verdict{}, false
	}
	if q.negated {
		holds = !holds
	}
	why := fmt.Sprintf("%s carries a structured decision (%s)", name, strings.Join(names, ", "))
	return delegation.Verdict{Holds: holds, Rule: rule, Reasoning: why}, true
}

// lookup returns the value of path in values and whether it is there.
func lookup(values *delegation.Object, path string) (delegation.Value, bool) {
	if values == nil || path == "" {
		return nil, false
	}
	return values.Get(path)
}

// isEmpty reports whether a criterion gives no rubric: null, a blank
// string, an empty list or object.
func isEmpty(v delegation.Value) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(v) == ""
	case *delegation.List:
		return v.Len() == 0
	case *delegation.Object:
		return v.Len() == 0
	}
	return false
}

func needsModelError(j *delegation.Judgment) error {
	text := ""
	if j.Cond != nil {
		text = j.Cond.Text
	}
	if j.IsChoice() {
		return fmt.Errorf("%s: the choice %q %w to pick an option, and none is configured: "+
			"set --model (or PROSE_MODEL) with OPENAI_API_KEY and, for a local or other provider, OPENAI_BASE_URL; or write if/elif/else over conditions the data decides",
			j.Pos, text, ErrNeedsModel)
	}
	return fmt.Errorf("%s: condition %q %w to judge, and none is configured: "+
		"set --model (or PROSE_MODEL) with OPENAI_API_KEY and, for a local or other provider, OPENAI_BASE_URL; or %s%s",
		j.Pos, text, ErrNeedsModel, structuredHint(j.Cond), wordForNothing(j))
}

// wordForNothing notes a criterion that is the text "null" or "none" (as
// `--config failure_criteria=null` gives: a string is taken verbatim),
// which is a rubric, not the absence of one.
func wordForNothing(j *delegation.Judgment) string {
	if j.Cond == nil || j.Cond.Says == nil {
		return ""
	}
	v, _ := lookup(j.Values, j.Cond.Says.Criterion)
	s, ok := v.(string)
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "null", "none", "nil":
		if ok {
			return fmt.Sprintf("; note that %s is the text %q, a rubric: for no rubric leave it unset or empty",
				j.Cond.Says.Criterion, s)
		}
	}
	return ""
}

// structuredHint says what data would let a rule decide cond, in words
// that fit its question.
func structuredHint(cond *syntax.NaturalCond) string {
	q := parseQuestion(cond)
	if cond != nil && cond.Says != nil {
		s := cond.Says
		if s.Polarity == syntax.Unknown {
			return fmt.Sprintf("use a predicate whose sense is known, such as `%s says %s is acceptable` or `... is a failure`", s.Criterion, s.Subject)
		}
		return fmt.Sprintf("make %s a structured result such as {\"status\": \"passed\"} or {\"status\": \"failed\"} "+
			"(with %s unset or empty, any non-error result counts as a success)", s.Subject, s.Criterion)
	}
	switch {
	case q.ask == askNone:
		return "write the condition as an expression over the service's result (if gate.proceed == true:), " +
			"or in a form the rules read, such as `verdict approves the change` or `decision says abort`"
	case q.ask == askSays:
		return fmt.Sprintf("make the service return a structured decision such as {\"decision\": %q}", q.said)
	case strings.HasPrefix(q.verb, "proceed") || strings.HasPrefix(q.verb, "continu"):
		return "make the service return a structured decision such as {\"proceed\": true} or {\"proceed\": false}"
	case strings.HasPrefix(q.verb, "certif"):
		return "make the service return a structured verdict such as {\"verdict\": \"certify\"} or {\"verdict\": \"reject\"}"
	}
	return "make the service return a structured verdict such as {\"verdict\": \"accept\"} or {\"verdict\": \"reject\"}"
}
