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
	askSays         // `X says WORD`, `X is WORD`: the decision is WORD (see question.word)
)

// question is the decidable reading of a natural-language condition.
type question struct {
	ask     ask
	word    class  // for askSays: the class of WORD
	said    string // for askSays: WORD as written
	negated bool   // flip the answer
	// explicit is set when an adverb such as `explicitly` qualifies the
	// verb: only an explicit positive decision makes the clause true.
	explicit bool
	subject  string // the name path whose value carries the decision
	verb     string // the verb as written, lower-cased
}

// positive reports whether the question, before negation, asks for a
// decision that lets the work go on.
func (q question) positive() bool {
	return q.ask == askPositive || (q.ask == askSays && q.word.positive())
}

var positiveVerbs = setOf("certifies", "certify", "certified", "accepts", "accept", "accepted",
	"approves", "approve", "approved", "endorses", "endorse", "endorsed",
	"passes", "pass", "passed", "proceeds", "proceed", "proceeded", "continues", "continue",
	"clears", "clear", "cleared", "allows", "allow", "allowed", "permits", "permit", "permitted",
	"succeeds", "succeed", "succeeded", "okays", "okayed", "greenlights", "greenlight", "greenlighted")

var negativeVerbs = setOf("rejects", "reject", "rejected", "fails", "fail", "failed",
	"aborts", "abort", "aborted", "blocks", "block", "blocked", "denies", "deny", "denied",
	"refuses", "refuse", "refused", "vetoes", "veto", "vetoed", "declines", "decline", "declined",
	"stops", "stop", "stopped", "halts", "halt", "halted")

var copulas = setOf("is", "are", "was", "were")

var articles = setOf("the", "a", "an")

// Words the clause reader understands between the subject and the verb.
var (
	negationWords = setOf("not", "never", "doesn't", "don't", "didn't", "isn't", "aren't", "wasn't",
		"weren't", "won't", "cannot", "can't", "hasn't", "haven't")
	auxiliaryWords = setOf("does", "do", "did", "has", "have")
	// explicitAdverbs ask for an explicit decision (see the package doc).
	explicitAdverbs = setOf("explicitly", "expressly", "clearly", "unambiguously", "unequivocally",
		"unmistakably", "definitely", "definitively")
	// neutralAdverbs change nothing a rule decides on.
	neutralAdverbs = setOf("really", "actually", "still", "also", "truly", "indeed", "fully", "formally", "finally")
)

// clauseBreakers are words that, after the verb, show the condition says
// more than `SUBJECT VERB [OBJECT]`: a second clause, a qualification, a
// quantifier. A condition holding one is left to the model.
var clauseBreakers = setOf("and", "or", "but", "nor", "unless", "if", "when", "whenever", "while",
	"because", "since", "although", "though", "except", "only", "yet", "so", "then", "than",
	"with", "without", "after", "before", "until", "to", "of", "for", "in", "on", "at", "by", "from",
	"into", "as", "not", "no", "never", "nothing", "none", "partially", "partly", "mostly", "almost",
	"nearly", "conditionally", "tentatively", "provisionally", "all", "every", "each", "both", "either",
	"neither", "some", "any", "most", "few", "is", "are", "was", "were", "be", "been", "does", "do",
	"did", "has", "have", "had", "will", "would", "should", "could", "can", "may", "might", "must",
	"says", "say", "said")

// maxObjectWords bounds the object after a verb: `the proposal`, `the
// draft change`. A longer tail is prose a rule does not read.
const maxObjectWords = 4

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
	subject := leadingPath(cond)
	cl, ok := readClause(cond.Text, subject)
	if subject == "" || !ok {
		return question{}
	}
	q := question{subject: subject, negated: cl.negated, explicit: cl.explicit, verb: cl.verb}
	switch {
	case positiveVerbs[cl.verb] && plainObject(cl.tail):
		q.ask = askPositive
	case negativeVerbs[cl.verb] && plainObject(cl.tail):
		q.ask = askNegative
	case cl.verb == "says" || cl.verb == "say":
		q.said = saidWord(cl.tail)
		if q.word = wordClass(q.said); q.word != clsNone {
			q.ask = askSays
		}
	case copulas[cl.verb] || cl.verb == "isn't" || cl.verb == "aren't" || cl.verb == "wasn't":
		return copulaQuestion(q, cl)
	}
	return q
}

// copulaQuestion reads `SUBJECT is [not] [a] WORD` where WORD is a
// decision word (certified, approved, rejected, a pass, a failure) or
// acceptable/unacceptable, successful/unsuccessful.
func copulaQuestion(q question, cl clause) question {
	if strings.HasSuffix(cl.verb, "n't") {
		q.negated = !q.negated
	}
	tail := cl.tail
	if len(tail) > 0 && (tail[0] == "not" || tail[0] == "never") {
		q.negated = !q.negated
		tail = tail[1:]
	}
	if len(tail) > 0 && articles[tail[0]] {
		tail = tail[1:]
	}
	if len(tail) != 1 {
		return question{}
	}
	if q.word = predicateClass(tail[0]); q.word == clsNone {
		return question{}
	}
	q.ask, q.said = askSays, tail[0]
	return q
}

// predicateClass classifies the predicate of `X is WORD`.
func predicateClass(w string) class {
	switch w {
	case "acceptable", "successful":
		return clsAccept
	case "unacceptable", "unsuccessful":
		return clsReject
	}
	return wordClass(w)
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

// clause is a condition read as `[not] [the] SUBJECT {negation|auxiliary|
// adverb} VERB TAIL...`.
type clause struct {
	negated  bool
	explicit bool
	verb     string
	tail     []string
}

// readClause reads text, whose subject path is subject. ok is false when
// the text is not one simple clause about subject: a comma or semicolon
// inside it, a word that is no plain word, two negations, or an unknown
// word between the subject and the verb (a hedge such as `probably`).
func readClause(text, subject string) (clause, bool) {
	words, ok := clauseWords(text)
	if !ok {
		return clause{}, false
	}
	var cl clause
	negations := 0
	i := 0
	for ; i < len(words) && (negationWords[words[i]] || words[i] == "no" || articles[words[i]]); i++ {
		if !articles[words[i]] {
			negations++
		}
	}
	if i >= len(words) || words[i] != strings.ToLower(subject) {
		return clause{}, false
	}
	for i++; i < len(words); i++ {
		w := words[i]
		switch {
		case negationWords[w]:
			negations++
		case auxiliaryWords[w] || neutralAdverbs[w]:
		case explicitAdverbs[w]:
			cl.explicit = true
		case (w == "fails" || w == "fail" || w == "failed") && i+1 < len(words) && words[i+1] == "to":
			negations++
			i++
		default:
			cl.verb, cl.tail = w, words[i+1:]
			cl.negated = negations == 1
			return cl, negations <= 1
		}
	}
	return clause{}, false
}

// clauseWords splits text into lower-cased words without the quotes and
// end punctuation around them. ok is false when punctuation splits the
// text into parts or a word holds characters other than letters, digits,
// '_', '-', '.' and an apostrophe.
func clauseWords(text string) ([]string, bool) {
	text = strings.ReplaceAll(strings.ToLower(text), "\u2019", "'")
	fields := strings.Fields(text)
	words := make([]string, 0, len(fields))
	for i, f := range fields {
		w := strings.Trim(f, "\"'`")
		end := strings.TrimRight(w, ".!?")
		if i < len(fields)-1 && end != w {
			return nil, false // `proceed. Then...`: a second sentence
		}
		w = strings.Trim(end, "\"'`")
		if w == "" {
			continue
		}
		for _, r := range w {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == '\'') {
				return nil, false
			}
		}
		words = append(words, w)
	}
	return words, true
}

// plainObject reports whether the words after a verb are a short object
// (`the proposal`) and nothing more.
func plainObject(tail []string) bool {
	if len(tail) > maxObjectWords {
		return false
	}
	for _, w := range tail {
		if clauseBreakers[w] || negationWords[w] || strings.Contains(w, "'") {
			return false
		}
	}
	return true
}

// saidWord returns the single word of `X says [to] [the] WORD`, or "" when
// more than one word follows: `decision says abort` gives "abort".
func saidWord(tail []string) string {
	var rest []string
	for _, r := range tail {
		if !articles[r] && r != "to" {
			rest = append(rest, r)
		}
	}
	if len(rest) == 1 {
		return rest[0]
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
