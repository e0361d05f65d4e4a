// Package judge decides the natural-language conditions of a Delegation
// block without a model wherever the run's data allows it.
//
// Deterministic implements delegation.Judge. It applies, in order, the
// rules of the design (step 1, expression conditions, is the evaluator's):
//
//   - "says-null-criterion": `CRITERION says SUBJECT is [not] PREDICATE`
//     where CRITERION is null or empty (no rubric): any non-error result
//     counts as a success, so a negative predicate (failure, error,
//     invalid...) does not hold and a positive one (acceptable, valid...)
//     does; `is not` flips the answer.
//   - "structured-verdict": the subject (a `says` form's SUBJECT, else the
//     condition's leading name) is a bare decision word ("accept") or an
//     object with a `verdict`, `decision` or `status` word, or a boolean
//     `certified`, `accepted`, `approved`, `proceed`, `ok`, `pass` or
//     `passed` field. The decision is matched against the condition's verb:
//     certifies/accepts/approves/passes/proceeds ask for an accepting
//     decision (certify, accept, approve, pass, proceed, continue, ok,
//     success or a true boolean); rejects/fails/aborts/blocks ask for a
//     refusal (reject, fail, abort, stop, block, error or a false boolean);
//     `X says WORD` asks whether the decision is WORD, where all accepting
//     words count as one, all stopping words as one, and adjust is its
//     own. Several signals in one value must agree, else the value does
//     not decide.
//   - "null-subject": for a verb form (not `says ... is`), a null subject
//     carries no decision: `verdict certifies the proposal` is false and
//     `decision does not explicitly proceed` is true.
//
// Anything else goes to Next, normally the model judge of package llm.
// Without Next it is an error naming the condition and its position, saying
// how to configure a model or return a structured verdict.
//
// Fail-closed judgments (delegation.Judgment.FailClosed) are never given
// the proceeding answer by guesswork: the rules decide only from the data,
// and a model judge that cannot read a verdict answers
// Judgment.SafeHolds.
//
// NeedsModel tells a runner before a run whether a condition can need a
// model at all.
package judge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
)

// Rule names, as found in delegation.Verdict.Rule.
const (
	RuleSaysNullCriterion = "says-null-criterion"
	RuleStructuredVerdict = "structured-verdict"
	RuleNullSubject       = "null-subject"
)

// Deterministic is a delegation.Judge that decides from the data and hands
// the rest to Next. It is safe for concurrent use.
type Deterministic struct {
	// Next judges what no rule decides (nil: that is an error).
	Next delegation.Judge

	decided   atomic.Int64
	delegated atomic.Int64
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
	if v, ok := Decide(j); ok {
		d.decided.Add(1)
		return v, nil
	}
	d.delegated.Add(1)
	if d.Next == nil {
		return delegation.Verdict{}, needsModelError(j)
	}
	return d.Next.Judge(ctx, j)
}

// Decide applies the deterministic rules to j; ok is false when none
// decides.
func Decide(j *delegation.Judgment) (delegation.Verdict, bool) {
	if j == nil || j.Cond == nil {
		return delegation.Verdict{}, false
	}
	if v, ok := saysNullCriterion(j); ok {
		return v, true
	}
	q := parseQuestion(j.Cond)
	if q.ask == askNone {
		return delegation.Verdict{}, false
	}
	subj, bound := lookup(j.Values, q.subject)
	if !bound {
		return delegation.Verdict{}, false
	}
	if v, ok := structured(q, subj); ok {
		return v, true
	}
	if subj == nil && j.Cond.Says == nil {
		holds := q.negated
		return delegation.Verdict{Holds: holds, Rule: RuleNullSubject,
			Reasoning: fmt.Sprintf("%s is null: it carries no decision", q.subject)}, true
	}
	return delegation.Verdict{}, false
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

// structured decides q from the decisions v carries.
func structured(q question, v delegation.Value) (delegation.Verdict, bool) {
	sigs := signals(v)
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
	why := fmt.Sprintf("%s carries a structured decision (%s)", q.subject, strings.Join(names, ", "))
	return delegation.Verdict{Holds: holds, Rule: RuleStructuredVerdict, Reasoning: why}, true
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
	return fmt.Errorf("%s: condition %q %w to judge, and none is configured: "+
		"set --model (or PROSE_MODEL) with OPENAI_API_KEY and, for a local or other provider, OPENAI_BASE_URL; "+
		"or make the service return a structured verdict such as {\"verdict\": \"certify\"} or {\"proceed\": false}",
		j.Pos, text, ErrNeedsModel)
}
