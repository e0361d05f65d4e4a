package delegation

import (
	"fmt"

	"github.com/proselang/prose/delegation/syntax"
)

// Absent is the value of a name whose value does not exist: an input of a
// world-model node whose producer has never published a truth (its first
// render failed, or a gateway has had no event). Absent is not null
// (semantics.md 16a): reading the name, in an expression, an
// interpolation, a member read or a call's argument, is an error naming
// the input and its producer; only `X is present`, `X is not present`,
// `X is null` and `X is not null` test it, and there an absent value is
// not present, as null is. So a program handles a cold start only on
// purpose, and nothing it gives was computed from a value that does not
// exist.
type Absent struct {
	Name     string // the input
	Producer string // the node that gives it, as a reader names it
}

// MarshalJSON refuses: an absent value has no JSON form.
func (a *Absent) MarshalJSON() ([]byte, error) {
	return nil, fmt.Errorf("input %s is absent: %s has not published it yet", a.Name, a.Producer)
}

// absent is the error of a read of the absent value a through x.
func (f *frame) absent(x *syntax.Ident, a *Absent) error {
	return f.errorf(x.NamePos, KindRuntime, "'%s' is absent: %s has not published it yet, so this render cannot use it (it runs again when %s publishes; to handle a cold start, test it first: `if %s is present:`)",
		x.Name, a.Producer, a.Producer, x.Name)
}

// evalTested evaluates the operand of `is null` / `is present`: a name
// holding an absent value is tested, not read, and is not present.
func (f *frame) evalTested(x syntax.Expr) (Value, error) {
	if id, ok := x.(*syntax.Ident); ok {
		if _, ok := f.slot(&id.Binding).v.(*Absent); ok {
			return nil, nil
		}
	}
	return f.eval(x)
}

// absentIn is the error of a natural-language condition that mentions a
// name holding an absent value (vals are the values it would be judged
// on), nil when it mentions none.
func (f *frame) absentIn(nc *syntax.NaturalCond, vals *Object) error {
	for _, k := range vals.Keys() {
		v, _ := vals.Get(k)
		if a, ok := v.(*Absent); ok {
			return f.errorf(nc.TextPos, KindRuntime, "the condition %q cannot be decided: '%s' is absent: %s has not published it yet (it runs again when %s publishes; to handle a cold start, test it first: `if %s is present:`)",
				nc.Text, a.Name, a.Producer, a.Producer, a.Name)
		}
	}
	return nil
}
