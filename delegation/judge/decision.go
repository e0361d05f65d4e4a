package judge

import (
	"strings"

	"github.com/proselang/prose/delegation"
)

// class is the meaning of a recognized decision word.
type class int

const (
	clsNone    class = iota
	clsAccept        // certify, accept, approve, pass, ok, success
	clsProceed       // proceed, continue
	clsAdjust        // adjust, revise
	clsAbort         // abort, stop, halt
	clsReject        // reject, fail, deny, block, error, failure
	clsYes           // a boolean decision field that is true
	clsNo            // a boolean decision field that is false
)

// positive reports whether a decision of class c lets the work go on.
func (c class) positive() bool { return c == clsAccept || c == clsProceed || c == clsYes }

// negative reports whether a decision of class c stops or refuses the work.
func (c class) negative() bool { return c == clsAbort || c == clsReject || c == clsNo }

func (c class) String() string {
	return [...]string{"none", "accept", "proceed", "adjust", "abort", "reject", "yes", "no"}[c]
}

// decisionWords maps the decision words a service may return (in a
// `verdict`, `decision` or `status` field, or as a bare string) to their
// class.
var decisionWords = map[string]class{
	"certify": clsAccept, "certified": clsAccept,
	"accept": clsAccept, "accepted": clsAccept,
	"approve": clsAccept, "approved": clsAccept,
	"pass": clsAccept, "passed": clsAccept, "passes": clsAccept, "passing": clsAccept,
	"ok": clsAccept, "success": clsAccept, "succeeded": clsAccept,
	"proceed": clsProceed, "continue": clsProceed,
	"adjust": clsAdjust, "adjusted": clsAdjust, "revise": clsAdjust,
	"abort": clsAbort, "aborted": clsAbort, "stop": clsAbort, "stopped": clsAbort,
	"halt": clsAbort, "halted": clsAbort,
	"reject": clsReject, "rejected": clsReject,
	"fail": clsReject, "failed": clsReject, "failure": clsReject, "failing": clsReject,
	"deny": clsReject, "denied": clsReject,
	"block": clsReject, "blocked": clsReject, "error": clsReject, "errored": clsReject,
}

// decisionFieldSet holds the object keys whose value is a decision word
// (or a boolean, or a nested verdict object).
var decisionFieldSet = setOf("verdict", "decision", "status")

// evaluationFieldSet holds the keys of a `says` criterion that make it an
// evaluation carrying a verdict rather than a rubric.
var evaluationFieldSet = setOf("verdict", "decision")

// booleanFieldSet holds the object keys whose boolean value is a decision.
var booleanFieldSet = setOf("certified", "accepted", "approved", "proceed", "ok", "pass", "passed")

// wordClass classifies a bare decision word: trimmed, case-folded, with
// trailing sentence punctuation dropped. Anything longer than one word is
// prose and gives clsNone.
func wordClass(s string) class {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimRight(s, ".!")
	return decisionWords[s]
}

// signals extracts the decisions a value carries: a bare decision string,
// or an object's decision fields (a nested verdict object is looked into
// once). It returns nil when the value carries none.
func signals(v delegation.Value) []class {
	return collect(v, 1)
}

func collect(v delegation.Value, depth int) []class {
	switch v := v.(type) {
	case string:
		if c := wordClass(v); c != clsNone {
			return []class{c}
		}
	case *delegation.Object:
		return objectSignals(v, depth)
	}
	return nil
}

func objectSignals(o *delegation.Object, depth int) []class {
	return readObject(o, decisionFieldSet, true, depth)
}

// verdictSignals reads only the evaluation fields of o (verdict,
// decision): a decision word, a boolean, or (depth permitting) a nested
// verdict object.
func verdictSignals(o *delegation.Object, depth int) []class {
	return readObject(o, evaluationFieldSet, false, depth)
}

// readObject reads the decisions of o's keys (matched up to case) that
// are in words, and with booleans the boolean decision fields too.
func readObject(o *delegation.Object, words map[string]bool, booleans bool, depth int) []class {
	var out []class
	for _, k := range o.Keys() {
		lk := strings.ToLower(k)
		f, _ := o.Get(k)
		switch {
		case words[lk]:
			out = append(out, fieldSignals(f, depth)...)
		case booleans && booleanFieldSet[lk]:
			if b, ok := f.(bool); ok {
				out = append(out, boolClass(b))
			}
		}
	}
	return out
}

// fieldSignals reads a decision field's value.
func fieldSignals(f delegation.Value, depth int) []class {
	switch f := f.(type) {
	case bool:
		return []class{boolClass(f)}
	case *delegation.Object:
		if depth > 0 {
			return collect(f, depth-1)
		}
		return nil
	}
	return collect(f, 0)
}

// isDecisionKey reports whether k names a decision field or a boolean
// decision field, up to case.
func isDecisionKey(k string) bool {
	lk := strings.ToLower(k)
	return decisionFieldSet[lk] || booleanFieldSet[lk]
}

// affirmations are answers that may mean yes although they are no
// decision word: a value holding one is never read as "no explicit
// decision".
var affirmations = map[string]bool{"yes": true, "y": true, "true": true, "go": true, "go ahead": true,
	"allow": true, "allowed": true, "safe": true, "lgtm": true, "granted": true, "greenlight": true}

// maybeAffirms reports whether v might, read by a person, say yes: a true
// boolean anywhere, an accepting word or an affirmation anywhere, or a
// decision field holding something no rule reads (prose, a number). It
// looks depth levels deep and at most 256 values in all.
func maybeAffirms(v delegation.Value, depth int, budget *int) bool {
	if *budget--; *budget < 0 || depth < 0 {
		return true // too big to tell: not "no decision"
	}
	switch v := v.(type) {
	case bool:
		return v
	case string:
		w := strings.ToLower(strings.Trim(strings.TrimSpace(v), ".!"))
		return wordClass(w).positive() || affirmations[w]
	case *delegation.List:
		for _, e := range v.Elems() {
			if maybeAffirms(e, depth-1, budget) {
				return true
			}
		}
	case *delegation.Object:
		for _, k := range v.Keys() {
			f, _ := v.Get(k)
			if f != nil && isDecisionKey(k) && len(collect(f, 1)) == 0 {
				if _, isBool := f.(bool); !isBool {
					return true // a decision field no rule reads
				}
			}
			if maybeAffirms(f, depth-1, budget) {
				return true
			}
		}
	}
	return false
}

func boolClass(b bool) class {
	if b {
		return clsYes
	}
	return clsNo
}
