package check

import (
	"strconv"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
)

// CodeChoice: a choice whose options cannot be picked as written (two
// options of one label, a blank label: an error) or whose pick means
// little or is easily mistaken (one option, an empty option, two labels
// alike but for case: a warning).
const CodeChoice = "check/choice"

// choice checks `choice CRITERIA:` and its options. Upstream makes a
// duplicate label a warning; here it is an error (decided): the judge
// answers with a label, so of two options labelled alike the second could
// never run, and which one the judge meant could not be told.
func (c *checker) choice(s *syntax.ChoiceStmt) {
	c.criteria(s.Criteria)
	first := map[string]*syntax.Option{}
	folded := map[string]*syntax.Option{}
	for _, o := range s.Options {
		low := strings.ToLower(strings.TrimSpace(o.Label))
		if prev := folded[low]; prev != nil && prev.Label != o.Label {
			c.diags.Warnf(c.f, o.LabelPos, CodeChoice,
				"option %s differs from option %s (line %d) in case or spacing alone: a pick must name one exactly, and a model may give either; give them labels apart",
				strconv.Quote(o.Label), strconv.Quote(prev.Label), c.f.Position(prev.LabelPos).Line)
		} else if prev == nil {
			folded[low] = o
		}
		switch prev := first[o.Label]; {
		case strings.TrimSpace(o.Label) == "":
			c.diags.Errorf(c.f, o.LabelPos, CodeChoice,
				"an option's label is blank: the judge picks an option by its label; name it (option \"retry\":)")
		case prev != nil:
			c.diags.Errorf(c.f, o.LabelPos, CodeChoice,
				"option %s is given twice in this choice (line %d): the judge picks by label, so this one could never run; give each option its own label",
				strconv.Quote(o.Label), c.f.Position(prev.LabelPos).Line)
		default:
			first[o.Label] = o
		}
		if len(o.Body) == 0 {
			c.diags.Warnf(c.f, o.Option, CodeChoice,
				"option %s has no statements: picked, it does nothing; write what it does, or leave it out if the choice never means to do nothing",
				strconv.Quote(o.Label))
		}
	}
	if len(s.Options) == 1 {
		c.diags.Warnf(c.f, s.Choice, CodeChoice,
			"a choice of one option always runs it, after asking the judge for nothing: write its statements in place, or add the other options")
	}
	blocks := make([]func(), len(s.Options))
	for i, o := range s.Options {
		blocks[i] = func() { c.stmts(o.Body) }
	}
	c.alternatives(blocks...)
}

// criteria checks a choice's criteria as a natural condition's words
// are checked: they should name the values to weigh, else the judge
// picks without any data.
func (c *checker) criteria(n *syntax.NaturalCond) {
	if !c.mentionsBound(n) {
		c.diags.Warnf(c.f, n.TextPos, CodeConditionNoNames,
			"the criteria %q of this choice mention no bound name; the judge would pick without any data: name the values it weighs (choice best recovery path for failure:)", n.Text)
	}
}
