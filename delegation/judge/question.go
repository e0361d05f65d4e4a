package judge

import (
	"strings"

	"github.com/proselang/prose/delegation/syntax"
)

// ask is what a condition asks of a decision, before negation.
type ask int

const (
	askNone     ask = iota
	askPositive     // certifies, accepts, approves, passes, proceeds; `is acceptable`
	askNegative     // rejects, fails, aborts, blocks; `is a failure`
	askSays         // `X says WORD`: the decision is WORD (see question.word)
)

// question is the decidable reading of a natural-language condition.
type question struct {
	ask     ask
	word    class  // for askSays: the class of WORD
	said    string // for askSays: WORD as written
	negated bool   // flip the answer
	subject string // the name path whose value carries the decision
}

var positiveVerbs = setOf("certifies", "certify", "accepts", "accept", "approves", "approve",
	"passes", "pass", "proceeds", "proceed", "continues", "continue", "clears", "clear",
	"allows", "allow", "permits", "permit", "succeeds", "succeed", "okays")

var negativeVerbs = setOf("rejects", "reject", "fails", "fail", "aborts", "abort",
	"blocks", "block", "denies", "deny", "refuses", "refuse", "vetoes", "veto")

var articles = setOf("the", "a", "an", "to")

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// parseQuestion reads what cond asks. The zero question (ask == askNone)
// means no deterministic rule understands the condition's form.
func parseQuestion(cond *syntax.NaturalCond) question {
	if cond == nil {
		return question{}
	}
	if s := cond.Says; s != nil {
		q := question{subject: s.Subject, negated: s.Negated}
		switch s.Polarity {
		case syntax.Positive:
			q.ask = askPositive
		case syntax.Negative:
			q.ask = askNegative
		}
		return q
	}
	q := question{subject: leadingPath(cond), negated: cond.Negated}
	if q.subject == "" {
		return question{}
	}
	verb := strings.ToLower(cond.Verb)
	switch {
	case positiveVerbs[verb]:
		q.ask = askPositive
	case negativeVerbs[verb]:
		q.ask = askNegative
	case verb == "says" || verb == "say":
		q.said = saidWord(cond.Text, verb)
		if q.word = wordClass(q.said); q.word != clsNone {
			q.ask = askSays
		}
	}
	return q
}

// leadingPath is the condition's grammatical subject: its first name path
// after any article.
func leadingPath(cond *syntax.NaturalCond) string {
	for _, w := range cond.Words {
		if articles[strings.ToLower(w.Path)] {
			continue
		}
		return w.Path
	}
	return ""
}

// saidWord returns the single word after the verb in `X says WORD` (an
// article or `to` before it is dropped), or "" when more than one word
// follows: `decision says abort` gives "abort".
func saidWord(text, verb string) string {
	fields := strings.Fields(strings.ToLower(text))
	for i, f := range fields {
		if f != verb {
			continue
		}
		var rest []string
		for _, r := range fields[i+1:] {
			r = strings.Trim(r, `"'.,!:`+"`")
			if r != "" && !articles[r] {
				rest = append(rest, r)
			}
		}
		if len(rest) == 1 {
			return rest[0]
		}
		return ""
	}
	return ""
}

// answer applies the question to one decision class. ok is false when the
// class does not settle it (a `proceed: false` does not tell abort from
// adjust).
func (q question) answer(c class) (holds, ok bool) {
	switch q.ask {
	case askPositive:
		return c.positive(), true
	case askNegative:
		return c.negative(), true
	case askSays:
		return saysAnswer(q.word, c)
	}
	return false, false
}

// saysAnswer decides `X says WORD` for a decision of class c. Accepting
// words (certify, approve, proceed, continue...) all count as the same
// answer, as do stopping ones (abort, reject, fail...); adjust is its own.
func saysAnswer(word, c class) (holds, ok bool) {
	switch {
	case word.positive():
		return c.positive(), true
	case c == clsNo:
		return false, false // refusing, but which refusal?
	case word == clsAdjust:
		return c == clsAdjust, true
	default: // a stopping word
		return c.negative(), true
	}
}
