package judge

import (
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
)

// Need says whether judging a condition can take a model.
type Need int

const (
	// NeedNever: the condition is settled by a rule from values known
	// before the run (a `says` whose criterion is null or empty).
	NeedNever Need = iota
	// NeedMaybe: a rule settles it when the run's data carries a
	// structured verdict (or a null subject); other data needs a model.
	NeedMaybe
	// NeedAlways: no rule understands the condition's form; every
	// evaluation of it asks a model.
	NeedAlways
)

func (n Need) String() string {
	switch n {
	case NeedNever:
		return "never"
	case NeedMaybe:
		return "maybe"
	}
	return "always"
}

// NeedsModel tells, before a run, whether judging cond can need a model.
// known returns the values fixed before the run starts (config after
// defaults, inputs) by name path, and false for names the run binds
// itself. A runner with no model configured can refuse to start when a
// reachable condition is NeedAlways, and let NeedMaybe conditions fail
// at run time (with their position) if the data does not decide them.
func NeedsModel(cond *syntax.NaturalCond, known func(path string) (delegation.Value, bool)) Need {
	if cond == nil || cond.Choice {
		return NeedAlways // no rule picks a choice's option
	}
	if s := cond.Says; s != nil {
		if s.Polarity == syntax.Unknown {
			return NeedAlways
		}
		if known != nil {
			if v, ok := known(s.Criterion); ok && isEmpty(v) {
				return NeedNever
			}
		}
		return NeedMaybe
	}
	if parseQuestion(cond).ask == askNone {
		if _, _, ok := subjectForm(cond); ok {
			return NeedMaybe // decided from the name's value when it is bound (form.go)
		}
		return NeedAlways
	}
	return NeedMaybe
}
