package syntax

import (
	"strconv"

	"github.com/proselang/prose/diag"
)

// ChoiceStmt is `choice CRITERIA:` and its options, each `option "LABEL":`
// with a block: the run's judge picks exactly one option by the criteria,
// and that option's block runs (semantics.md, Choice). The criteria are
// always natural language, never an expression: a choice's words are
// weighed, not evaluated.
type ChoiceStmt struct {
	Choice   diag.Pos
	Criteria *NaturalCond
	Options  []*Option
}

// Option is one `option "LABEL":` of a choice. Body is empty when the
// option's block is (the checker warns of it: picked, it does nothing).
type Option struct {
	Option   diag.Pos // the `option` keyword
	LabelPos diag.Pos // the label's opening quote
	LabelEnd diag.Pos
	Label    string
	Body     []Stmt
}

func (s *ChoiceStmt) Pos() diag.Pos { return s.Choice }
func (s *ChoiceStmt) End() diag.Pos {
	if len(s.Options) == 0 {
		return s.Criteria.End()
	}
	o := s.Options[len(s.Options)-1]
	return endOf(o.Body, o.LabelEnd)
}
func (*ChoiceStmt) stmt() {}

// Labels are the labels of the options, in written order.
func (s *ChoiceStmt) Labels() []string {
	out := make([]string, len(s.Options))
	for i, o := range s.Options {
		out[i] = o.Label
	}
	return out
}

// isChoiceStart reports whether the line starting at the current token,
// `choice` followed by words, a string, a discretion marker or ':', opens
// a choice (a name `choice` is read as a name elsewhere).
func (p *parser) isChoiceStart() bool {
	next := p.peek(1)
	return next.kind == IDENT || next.kind == STRING || next.kind == COLON ||
		isMark(next, markLine) || isMark(next, markBlock)
}

// parseChoice parses a choice and its options.
//
//	choice_stmt = 'choice' natural_text ':' NEWLINE INDENT option { option } OUTDENT .
//	option      = 'option' STRING ':' ( block | NEWLINE ) .
func (p *parser) parseChoice() Stmt {
	kw := p.advance()
	end := p.headEnd(false)
	start := p.p
	for _, m := range []string{markLine, markBlock} {
		if end-start >= 3 && isMark(&p.toks[start], m) && isMark(&p.toks[end-1], m) {
			start, end = start+1, end-1 // **CRITERIA**: the criteria between the markers
		}
	}
	if start >= end {
		p.errorf(kw.pos, "syntax/expected", "a choice needs its criteria, the words the option is picked by: choice best recovery path:")
	}
	s := &ChoiceStmt{Choice: kw.pos, Criteria: p.natural(p.toks[start:end])}
	s.Criteria.Choice = true
	p.p = end
	if p.p < len(p.toks) && (isMark(p.tok(), markLine) || isMark(p.tok(), markBlock)) {
		p.advance() // the closing marker
	}
	t := p.tok()
	if t.kind != COLON {
		p.errorf(t.pos, "syntax/expected", "unexpected %s in the choice line: expected ':' and the options on the following lines", describe(t))
	}
	colon := p.advance()
	if t := p.tok(); t.kind != NEWLINE {
		p.errorf(t.pos, "syntax/expected", "unexpected %s after ':': write the choice's options on the following lines, indented", describe(t))
	}
	if p.peek(1).kind != INDENT {
		p.errorf(colon.pos, "syntax/empty-block", "a choice needs at least one option, indented under it: option \"LABEL\":")
	}
	p.advance()
	ind := p.advance()
	p.enter(ind.pos)
	for k := p.tok().kind; k != OUTDENT && k != EOF; k = p.tok().kind {
		if !p.isWord("option") || p.peek(1).kind == ASSIGN {
			p.errorf(p.tok().pos, "syntax/option", "a choice holds options only: write each as option \"LABEL\": with its statements indented under it")
		}
		s.Options = append(s.Options, p.parseOption())
	}
	p.leave()
	p.expect(OUTDENT, "at the end of the choice")
	return s
}

// parseOption parses one `option "LABEL":` and its block, which may be
// empty (the next option, or the end of the choice, follows at once).
func (p *parser) parseOption() *Option {
	kw := p.advance()
	t := p.tok()
	if t.kind != STRING {
		p.errorf(t.pos, "syntax/option", "unexpected %s after 'option': an option's label is a string, option \"retry\":", describe(t))
	}
	p.advance()
	label, parts := interpolate(&p.a, p.value(t), t.raw, t.pos, litBraces(t.raw))
	if len(parts) > 0 {
		p.errorf(t.pos, "syntax/option", "an option's label is fixed text, the judge picks it by name: write it without {NAME} (\\{ for a brace)")
	}
	o := &Option{Option: kw.pos, LabelPos: t.pos, LabelEnd: t.end, Label: label}
	if p.tok().kind == COLON && p.peek(1).kind == NEWLINE && p.peek(2).kind != INDENT {
		p.advance()
		p.advance()
		return o // an empty option: the checker warns of it
	}
	if p.tok().kind == COLON && p.peek(1).kind == EOF {
		p.advance()
		return o
	}
	o.Body = p.parseBlock("option " + strconv.Quote(label))
	return o
}

// choiceAsValue reports a choice written as a value (`let x = choice
// ...:`): upstream's grammar has choice as a statement only.
func (p *parser) choiceAsValue() {
	p.errorf(p.tok().pos, "syntax/choice-value", "a choice is a statement, not a value: write the choice on its own line and bind the name in each option (let x = ...)")
}

// parseOptionOutside reports an `option` line that is no option of a
// choice.
func (p *parser) parseOptionOutside() Stmt {
	p.errorf(p.tok().pos, "syntax/option", "'option' outside a choice: an option belongs in a choice CRITERIA: block, indented under it")
	return nil
}
