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
	"pass": clsAccept, "passed": clsAccept, "passes": clsAccept,
	"ok": clsAccept, "success": clsAccept, "succeeded": clsAccept,
	"proceed": clsProceed, "continue": clsProceed,
	"adjust": clsAdjust, "adjusted": clsAdjust, "revise": clsAdjust,
	"abort": clsAbort, "aborted": clsAbort, "stop": clsAbort, "halt": clsAbort,
	"reject": clsReject, "rejected": clsReject,
	"fail": clsReject, "failed": clsReject, "failure": clsReject,
	"deny": clsReject, "denied": clsReject,
	"block": clsReject, "blocked": clsReject, "error": clsReject,
}

// decisionFields are the object keys whose string value is a decision word.
var decisionFields = []string{"verdict", "decision", "status"}

// booleanFields are the object keys whose boolean value is a decision.
var booleanFields = []string{"certified", "accepted", "approved", "proceed", "ok", "pass", "passed"}

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
	var out []class
	for _, k := range decisionFields {
		f, ok := o.Get(k)
		if !ok {
			continue
		}
		switch f := f.(type) {
		case bool:
			out = append(out, boolClass(f))
		case *delegation.Object:
			if depth > 0 {
				out = append(out, collect(f, depth-1)...)
			}
		default:
			out = append(out, collect(f, 0)...)
		}
	}
	for _, k := range booleanFields {
		if b, ok := getBool(o, k); ok {
			out = append(out, boolClass(b))
		}
	}
	return out
}

func getBool(o *delegation.Object, key string) (bool, bool) {
	v, ok := o.Get(key)
	if !ok {
		return false, false
	}
	b, ok := v.(bool)
	return b, ok
}

func boolClass(b bool) class {
	if b {
		return clsYes
	}
	return clsNo
}
