package bind

// The error of binding: a *UsageError says how the run was asked for is
// wrong (package run gives it its run.Code).

import (
	"fmt"
	"strings"
)

// UsageError is a problem with how a run was asked for: bad flags, unknown
// or missing names, an invalid spec. The command exits 2 on it.
type UsageError struct {
	Problems []Problem
}

func (e *UsageError) Error() string { return strings.Join(e.Messages(), "\n") }

// Messages are the problems' sentences, in order.
func (e *UsageError) Messages() []string {
	out := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p.Msg
	}
	return out
}

// Usagef is the *UsageError of one problem of no particular kind.
func Usagef(format string, args ...any) *UsageError {
	return &UsageError{Problems: []Problem{Otherf(format, args...)}}
}

// Problem is one thing wrong with how a run was asked for: what kind of
// thing, about which name, and the sentence that says it and how to fix
// it. A program (an MCP host, an editor) reads Kind and Name; a person
// reads Msg.
type Problem struct {
	Kind ProblemKind
	// Name is the slot, input or config key it is about, as a flag
	// writes it ("critic", "reviewers[1].model"); "" when none.
	Name string
	Msg  string
}

// String is the problem's sentence.
func (p Problem) String() string { return p.Msg }

// Otherf is a Problem of kind OtherProblem.
func Otherf(format string, args ...any) Problem {
	return Problem{Kind: OtherProblem, Msg: fmt.Sprintf(format, args...)}
}

// Others are the Problems of kind OtherProblem of msgs.
func Others(msgs []string) []Problem {
	out := make([]Problem, len(msgs))
	for i, m := range msgs {
		out[i] = Problem{Kind: OtherProblem, Msg: m}
	}
	return out
}

// ProblemKind is what kind of thing a Problem is.
type ProblemKind uint8

// The kinds of problems.
const (
	OtherProblem  ProblemKind = iota // none of the below (a spec's, a model's, a callee's)
	UnknownSlot                      // --slot of a name the spec does not declare
	UnboundSlot                      // a slot the run needs that nothing binds
	BadBinding                       // a binding that cannot work as written
	UnknownInput                     // --input of a name the spec does not declare
	MissingInput                     // a required input not given
	UnknownConfig                    // --config of a name the spec does not declare
	MissingConfig                    // a required config key not given
	GivenTwice                       // one name set by two flags
	BadValue                         // a value that does not parse or has the wrong type
)

var problemKindNames = [...]string{"other", "unknown-slot", "unbound-slot", "bad-binding", "unknown-input", "missing-input", "unknown-config", "missing-config", "given-twice", "bad-value"}

// String names the kind: "missing-input".
func (k ProblemKind) String() string {
	if int(k) < len(problemKindNames) {
		return problemKindNames[k]
	}
	return fmt.Sprintf("ProblemKind(%d)", k)
}
