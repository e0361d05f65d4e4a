package delegation

import (
	"strconv"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
)

// execChoice runs `choice CRITERIA:`: the host's Judge picks one option's
// label by the criteria (a Judgment with Options), and that option's
// block runs, as the taken branch of an if does (tail: semantics.md,
// rule 9). A pick that is none of the labels is an error, never a
// default option.
func (f *frame) execChoice(s *syntax.ChoiceStmt, tail bool) (ctrl, Value, bool, error) {
	i, err := f.pick(s)
	if err != nil {
		return ctrlNone, nil, false, err
	}
	return f.execBlock(s.Options[i].Body, tail)
}

// pick asks the host's Judge which option of s runs and returns its
// index.
func (f *frame) pick(s *syntax.ChoiceStmt) (int, error) {
	nc := s.Criteria
	if f.in.host.Judge == nil {
		return 0, f.errorf(nc.TextPos, KindJudge,
			"cannot pick an option of the choice %q: no judge is configured (configure a model)", nc.Text)
	}
	j := &Judgment{Path: f.id(nc.TextPos), Cond: nc, Pos: f.position(nc.TextPos), Values: f.condValues(nc), Options: s.Labels()}
	verdict, err := f.ask(j, "cannot pick an option of the choice ")
	if err != nil {
		return 0, err
	}
	for i, o := range s.Options {
		if o.Label == verdict.Pick {
			return i, nil
		}
	}
	quoted := make([]string, len(s.Options))
	for i, o := range s.Options {
		quoted[i] = strconv.Quote(o.Label)
	}
	return 0, f.errorf(nc.TextPos, KindJudge,
		"cannot pick an option of the choice %q: the judge picked %s, which is none of its options (%s)",
		nc.Text, strconv.Quote(verdict.Pick), strings.Join(quoted, ", "))
}
