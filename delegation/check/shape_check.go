package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
)

// memberRead checks X.Name against what X is known to hold: a member a
// value of that shape cannot have is lint/unknown-member, with the name
// meant. A slot's ensures may not list every field its answer holds, so
// there only a misspelling of a listed field is reported.
func (c *checker) memberRead(e *syntax.MemberExpr) {
	s := c.shapeOf(e.X)
	if s == nil || hasMember(s, e.Name) {
		return
	}
	what := pathOf(e.X)
	if what == "" {
		return
	}
	switch {
	case s.output != "":
		if didyoumean.Distance(e.Name, s.output) < len(s.output)/3+1 {
			c.diags.Errorf(c.f, e.NamePos, CodeUnknownMember,
				"%s has no member %q: %s returns one output, %q, and %s is that output (did you mean %s.%s, or %s?)",
				what, e.Name, s.callee, s.output, what, what, s.output, what)
			return
		}
		if s.kind != kUnknown && s.kind != kObject {
			c.diags.Errorf(c.f, e.NamePos, CodeUnknownMember,
				"%s has no member %q: %s returns one output, %q, declared %s, and %s is that output; %s has no members",
				what, e.Name, s.callee, s.output, s.kind.typeName(), what, s.kind)
		}
	case s.kind == kObject && s.closed:
		if s.from != "" {
			c.diags.Errorf(c.f, e.NamePos, CodeUnknownMember, "%s has no member %q: %s %s%s",
				what, e.Name, s.from, strings.Join(s.fieldNames(), ", "), c.suggestFrom2(e.Name, s.fieldNames()))
			return
		}
		c.diags.Errorf(c.f, e.NamePos, CodeUnknownMember, "%s has no member %q: it is an object of %s, so %s.%s is always null%s",
			what, e.Name, strings.Join(s.fieldNames(), ", "), what, e.Name, c.suggestFrom2(e.Name, s.fieldNames()))
	case s.kind == kObject:
		if near := closest(e.Name, s.fieldNames()); near != "" {
			c.diags.Errorf(c.f, e.NamePos, CodeUnknownMember, "%s has no member %q: %s %s; did you mean %q?",
				what, e.Name, s.from, strings.Join(s.fieldNames(), ", "), near)
		}
	case (s.kind == kText || s.kind == kInteger || s.kind == kNumber || s.kind == kBool || s.kind == kList) && e.Required:
		// a destructuring let: what is "{a, b}", the names, not the value
		c.diags.Errorf(c.f, e.NamePos, CodeUnknownMember, "let %s: the value is %s, not an object, so it has no key %q (a run stops there): destructure an object, or bind the value to one name (let NAME = ...)",
			what, s.kind, e.Name)
	case s.kind == kText || s.kind == kInteger || s.kind == kNumber || s.kind == kBool || s.kind == kList:
		c.diags.Errorf(c.f, e.NamePos, CodeUnknownMember, "%s has no member %q: %s is %s, not an object (a run stops there)",
			what, e.Name, what, s.kind)
	}
}

// hasMember reports whether a value of shape s may have the member name
// (null has every member: they read null).
func hasMember(s *valueShape, name string) bool {
	switch {
	case s.kind == kUnknown && s.output == "", s.kind == kNull, s.output == name:
		return true
	case name == "length" && (s.kind == kText || s.kind == kList || s.kind == kObject):
		return true
	case s.kind == kObject:
		_, ok := s.field(name)
		return ok
	}
	return false
}

// suggestFrom2 is "; did you mean "x"?" (Go quoting, as the member
// messages quote) when a candidate is close.
func (c *checker) suggestFrom2(name string, cands []string) string {
	if s := closest(name, cands); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

// pathOf is the source form of a name path (`review`, `r.notes`), or "".
func pathOf(e syntax.Expr) string {
	switch x := e.(type) {
	case *syntax.Ident:
		return x.Name
	case *syntax.MemberExpr:
		if p := pathOf(x.X); p != "" {
			return p + "." + x.Name
		}
	case *syntax.CallExpr:
		if node, ok := worldReadNode(x); ok {
			return fmt.Sprintf("%s(%q)", syntax.WorldRead, node)
		}
	}
	return ""
}

// argTypes checks the arguments of a call of a declared callee against
// its inputs' declared types.
func (c *checker) argTypes(e *syntax.CallExpr, ce *Callee) {
	for _, a := range e.Args {
		for _, in := range ce.Inputs {
			if in.Name != a.Key {
				continue
			}
			want := typeKind(in.Type)
			if s := c.shapeOf(a.Value); s != nil && !fits(s.kind, want) {
				c.diags.Errorf(c.f, a.Value.Pos(), CodeTypeMismatch, "argument %s of call %s is %s, but %s declares its input %s (%s)",
					a.Key, ce.Name, describeShape(s), ce.Name, a.Key, in.Type)
			} else if lit, ok := a.Value.(*syntax.StringLit); ok && len(lit.Parts) == 0 {
				if words := literalUnion(in.Type); words != nil && !slices.Contains(words, lit.Value) {
					c.diags.Errorf(c.f, lit.ValuePos, CodeTypeMismatch, "argument %s of call %s is %s, but %s declares its input %s (%s)",
						a.Key, ce.Name, lit.Raw, ce.Name, a.Key, in.Type)
				}
			}
		}
	}
}

// slotArgTypes checks the arguments of a call of a slot against the types
// its requires gives their fields: the run refuses such an argument before
// the call (bind), so lint says so at the argument. null, and a value
// whose type is not known here, pass, as they pass the run's check.
func (c *checker) slotArgTypes(e *syntax.CallExpr, slot *Slot) {
	fields := ensuresFields(slot.Requires)
	for _, a := range e.Args {
		for _, f := range fields {
			if f.Name != a.Key || f.Type == "" {
				continue
			}
			want := typeKind(f.Type)
			// a number may be whole (2.0), which the run takes for an integer
			if s := c.shapeOf(a.Value); s != nil && s.kind != kNull && !fits(s.kind, want) && (s.kind != kNumber || want != kInteger) {
				c.diags.Errorf(c.f, a.Value.Pos(), CodeTypeMismatch, "argument %s of call %s is %s, but slot %s requires %s (%s), so the run refuses the call: give %s a value of type %s",
					a.Key, slot.Name, describeShape(s), slot.Name, a.Key, f.Type, a.Key, f.Type)
			}
		}
	}
}

// fallbackFits checks an on_fail fallback of a call of ce against ce's
// outputs: the AgentLang rule, the fallback has the callee's shape. With
// one output OUT the fallback is OUT's value, or an object {OUT: value}
// (semantics.md 27a); with several it is an object of exactly those
// outputs.
func (c *checker) fallbackFits(use syntax.Expr, ce *Callee) {
	s := c.shapeOf(use)
	if s == nil || s.kind == kNull || len(ce.Outputs) == 0 {
		return
	}
	if len(ce.Outputs) == 1 && !ce.Whole {
		o := ce.Outputs[0]
		want := typeKind(o.Type)
		if s.kind == kObject && s.closed {
			if f, ok := s.field(o.Name); ok {
				for _, k := range s.fields {
					if k.Name != o.Name {
						c.diags.Errorf(c.f, use.Pos(), CodeFallbackShape, "on_fail fallback has the key %q, but %s returns one output, %q: the fallback is its value, or {%s: VALUE}",
							k.Name, ce.Name, o.Name, o.Name)
						return
					}
				}
				if !fits(typeKind(f.Type), want) {
					c.diags.Errorf(c.f, use.Pos(), CodeFallbackShape, "on_fail fallback gives %s %s, but %s declares it %s",
						o.Name, typeKind(f.Type), ce.Name, o.Type)
				}
				return
			}
			if near := closest(o.Name, s.fieldNames()); near != "" {
				c.diags.Errorf(c.f, use.Pos(), CodeFallbackShape, "on_fail fallback has the key %q where %s returns %q: did you mean {%s: ...}?",
					near, ce.Name, o.Name, o.Name)
				return
			}
		}
		if !fits(s.kind, want) {
			c.diags.Errorf(c.f, use.Pos(), CodeFallbackShape, "on_fail fallback is %s, but %s returns one output, %q, declared %s: give %s, or {%s: VALUE}",
				describeShape(s), ce.Name, o.Name, o.Type, want, o.Name)
		}
		return
	}
	var req []string
	for _, o := range ce.Outputs {
		if !o.Part {
			req = append(req, o.Name)
		}
	}
	if s.kind != kObject {
		if s.kind != kUnknown {
			c.diags.Errorf(c.f, use.Pos(), CodeFallbackShape, "on_fail fallback is %s, but %s returns an object of %s",
				s.kind, ce.Name, strings.Join(req, ", "))
		}
		return
	}
	if !s.closed {
		return
	}
	c.objectFits(use.Pos(), s, ce.Outputs, req, "on_fail fallback", ce.Name+" returns", CodeFallbackShape)
}

// objectFits reports the keys of the object of shape s that outputs lack
// (beyond facets), the required ones it lacks, and fields of another type
// than declared, as code at pos.
func (c *checker) objectFits(pos diag.Pos, s *valueShape, outputs []Name, req []string, what, owner, code string) {
	var names []string
	for _, o := range outputs {
		names = append(names, o.Name)
	}
	var missing, extra []string
	for _, r := range req {
		if _, ok := s.field(r); !ok {
			missing = append(missing, quote(r))
		}
	}
	for _, f := range s.fields {
		found := false
		for _, o := range outputs {
			if o.Name != f.Name {
				continue
			}
			found = true
			if !fits(typeKind(f.Type), typeKind(o.Type)) {
				c.diags.Errorf(c.f, pos, CodeTypeMismatch, "%s gives %s %s, but %s it %s",
					what, f.Name, typeKind(f.Type), owner, o.Type)
			}
		}
		if !found {
			extra = append(extra, f.Name)
		}
	}
	switch {
	case len(missing) > 0:
		c.diags.Errorf(c.f, pos, code, "%s lacks %s: %s %s", what, strings.Join(missing, ", "), owner, strings.Join(names, ", "))
	case len(extra) > 0:
		hint := ""
		if len(extra) == 1 {
			hint = c.suggestFrom(extra[0], names)
		}
		quoted := make([]string, len(extra))
		for i, e := range extra {
			quoted[i] = quote(e)
		}
		c.diags.Errorf(c.f, pos, code, "%s has %s, which %s does not declare (it declares %s)%s", what, strings.Join(quoted, ", "), ownerName(owner), strings.Join(names, ", "), hint)
	}
}

// ownerName is the declaring name of owner, which is written "NAME
// returns" or "NAME declares" for the other messages.
func ownerName(owner string) string {
	return strings.TrimSuffix(strings.TrimSuffix(owner, " returns"), " declares")
}

// slotFallback checks an on_fail fallback of a call of a slot whose
// ensures names fields: an object literal must give them all, in their
// declared types, and no key that misspells one.
func (c *checker) slotFallback(use syntax.Expr, s *Slot) bool {
	ss := c.slotShape(s)
	if ss == nil {
		return false
	}
	fields := ss.fields
	sh := c.shapeOf(use)
	if sh == nil || sh.kind == kNull {
		return true
	}
	if sh.kind != kObject {
		c.diags.Errorf(c.f, use.Pos(), CodeFallbackShape, "on_fail fallback is %s, but slot %s ensures an object of %s",
			sh.kind, quote(s.Name), strings.Join((&valueShape{fields: fields}).fieldNames(), ", "))
		return true
	}
	if !sh.closed {
		return true
	}
	var req []string
	for _, f := range fields {
		req = append(req, f.Name)
	}
	// extra keys are context a slot's answer may hold; only misspellings
	// of its fields are wrong
	var missing []string
	for _, f := range fields {
		if _, ok := sh.field(f.Name); !ok {
			missing = append(missing, quote(f.Name))
		}
	}
	for _, f := range sh.fields {
		if d, ok := (&valueShape{fields: fields}).field(f.Name); ok {
			if !fits(typeKind(f.Type), typeKind(d.Type)) {
				c.diags.Errorf(c.f, use.Pos(), CodeTypeMismatch, "on_fail fallback gives %s %s, but slot %s ensures it %s",
					f.Name, typeKind(f.Type), quote(s.Name), d.Type)
			}
		}
	}
	if len(missing) > 0 {
		c.diags.Errorf(c.f, use.Pos(), CodeFallbackShape, "on_fail fallback lacks %s: slot %s ensures %s",
			strings.Join(missing, ", "), quote(s.Name), strings.Join(req, ", "))
	}
	return true
}

// returnFits checks a top-level return of a node's Execution (the return
// rule, Decls.ReturnRule) beyond the literal forms returnShape reads: a
// name whose object shape lacks an output, a returned object that holds
// every output and a key the rule drops, and outputs of another type
// than declared.
func (c *checker) returnFits(s *syntax.ReturnStmt) {
	if s.Value == nil {
		return
	}
	var outs []Name
	for _, o := range c.d.Outputs {
		if !o.Inferred {
			outs = append(outs, o)
		}
	}
	req := c.required()
	if len(req) == 0 {
		return
	}
	sh := c.shapeOf(s.Value)
	if sh == nil {
		return
	}
	node := "it"
	if c.d.Node != "" {
		node = c.d.Node
	}
	_, literal := s.Value.(*syntax.ObjectLit)
	holdsAll := sh.kind == kObject && sh.closed
	for _, r := range req {
		if _, ok := sh.field(r); !ok && !c.optionalOutput(r) {
			holdsAll = false
		}
	}
	if lit, ok := s.Value.(*syntax.ObjectLit); ok && holdsAll {
		c.nullOutputs(lit, outs, node)
		for _, f := range lit.Fields {
			for _, o := range outs {
				if o.Name == f.Key {
					c.wordFits(f.Value, o, node)
				}
			}
		}
	} else if len(req) == 1 && sh.kind == kText {
		c.wordFits(s.Value, outs[0], node)
	}
	switch {
	case holdsAll:
		c.objectFits(s.Return, sh, outs, nil, "the returned object", node+" declares", CodeReturnShape)
	case len(req) == 1 && sh.kind == kNull && refusesNull(outs[0]):
		c.diags.Errorf(c.f, s.Return, CodeTypeMismatch, "return gives null, the output %s, but %s declares it %s: give %s, or declare `%s` (%s, optional) if it may be empty",
			outs[0].Name, node, outs[0].Type, typeKind(outs[0].Type), outs[0].Name, outs[0].Type)
	case len(req) == 1 && sh.kind != kObject:
		// the value is the one output itself
		if want := typeKind(outs[0].Type); !fits(sh.kind, want) {
			c.diags.Errorf(c.f, s.Return, CodeTypeMismatch, "return gives %s, the output %s, but %s declares it %s", sh.kind, outs[0].Name, node, outs[0].Type)
		}
	case len(req) == 1 && sh.closed:
		if want := typeKind(outs[0].Type); want != kUnknown && want != kObject {
			c.diags.Errorf(c.f, s.Return, CodeTypeMismatch, "return gives %s without the key %q, which becomes the output %s itself, but %s declares it %s: return {%s: VALUE}",
				describeShape(sh), outs[0].Name, outs[0].Name, node, outs[0].Type, outs[0].Name)
		}
	case len(req) >= 2 && !literal && sh.kind == kObject && sh.closed:
		c.objectFits(s.Return, sh, outs, req, "the returned "+pathOrValue(s.Value), node+" declares", CodeReturnShape)
	case len(req) >= 2 && !literal && sh.kind != kObject && sh.kind != kUnknown && sh.kind != kNull && pathOf(s.Value) != "":
		c.diags.Errorf(c.f, s.Return, CodeReturnShape, "return gives %s, which is %s, but %s declares %d outputs (%s): return an object with those keys",
			pathOf(s.Value), sh.kind, node, len(req), strings.Join(req, ", "))
	}
}

// wordFits reports a text literal given for an output declared as a set
// of words (`"low" | "high"`) that is none of them: the run refuses it.
func (c *checker) wordFits(e syntax.Expr, o Name, node string) {
	lit, ok := e.(*syntax.StringLit)
	words := literalUnion(o.Type)
	if !ok || len(lit.Parts) > 0 || words == nil || slices.Contains(words, lit.Value) {
		return
	}
	hint := ""
	if len(lit.Value) >= 3 { // any one letter is one slip from another
		hint = c.suggestFrom2(lit.Value, words)
	}
	c.diags.Errorf(c.f, lit.ValuePos, CodeTypeMismatch, "return gives %s for the output %s, but %s declares it %s%s",
		lit.Raw, o.Name, node, o.Type, hint)
}

// nullOutputs reports a literal null a returned object literal gives for
// an output whose declared type does not admit it (the run refuses the
// value: callgraph typedOutputs).
func (c *checker) nullOutputs(lit *syntax.ObjectLit, outs []Name, node string) {
	for _, f := range lit.Fields {
		if _, isNull := f.Value.(*syntax.NullLit); !isNull {
			continue
		}
		for _, o := range outs {
			if o.Name == f.Key && refusesNull(o) {
				c.diags.Errorf(c.f, f.Value.Pos(), CodeTypeMismatch, "the returned object gives %s null, but %s declares it %s: give %s, or declare `%s` (%s, optional) if it may be empty",
					f.Key, node, o.Type, typeKind(o.Type), o.Name, o.Type)
			}
		}
	}
}

// refusesNull reports whether output o's declared type admits no null:
// a type the checker knows, not optional, not naming null or any.
func refusesNull(o Name) bool {
	k := typeKind(o.Type)
	return !o.Optional && !strings.HasSuffix(strings.TrimSpace(o.Type), "?") && k != kUnknown && k != kNull
}

func pathOrValue(e syntax.Expr) string {
	if p := pathOf(e); p != "" {
		return p
	}
	return "value"
}

// comparison reports a comparison of two values whose kinds the checker
// knows and that can never compare: == of text with a number is always
// false, != always true, and < of text with a number stops the run.
func (c *checker) comparison(e *syntax.BinaryExpr) {
	switch e.Op {
	case syntax.EQ, syntax.NE, syntax.LT, syntax.LE, syntax.GT, syntax.GE, syntax.MEETS:
	default:
		return
	}
	switch e.Op {
	case syntax.LT, syntax.LE, syntax.GT, syntax.GE, syntax.MEETS:
		for _, side := range [...]syntax.Expr{e.X, e.Y} {
			if lit, ok := side.(*syntax.StringLit); ok && len(lit.Parts) == 0 && readsAsNumber(lit.Value) {
				c.diags.Errorf(c.f, lit.ValuePos, CodeTypeMismatch, "%s is text, and text orders only with text, by its characters (\"10\" < \"9\"): write the number %s without quotes",
					lit.Raw, strings.TrimSpace(lit.Value))
				return
			}
		}
	}
	l, r := c.shapeOf(e.X), c.shapeOf(e.Y)
	if e.Op == syntax.EQ || e.Op == syntax.NE {
		if c.neverOneOf(e, l, e.X, e.Y) || c.neverOneOf(e, r, e.Y, e.X) {
			return
		}
	}
	if l == nil || r == nil || comparable(l.kind, r.kind) {
		return
	}
	what := "is always false"
	switch e.Op {
	case syntax.NE:
		what = "is always true"
	case syntax.LT, syntax.LE, syntax.GT, syntax.GE, syntax.MEETS:
		what = "stops the run (only two numbers, two strings or two durations are ordered)"
	}
	c.diags.Errorf(c.f, e.OpPos, CodeTypeMismatch, "this comparison of %s with %s %s%s", describeKind(l, e.X), describeKind(r, e.Y), what, memberMeant(l, e.X, r, e.Y))
}

// memberMeant proposes the member of an object compared with a scalar
// that the comparison most likely meant (`review == "accept"` for
// review.verdict): the field whose declared words hold the literal, else
// the one field of the scalar's kind; "" when none is clear.
func memberMeant(l *valueShape, x syntax.Expr, r *valueShape, y syntax.Expr) string {
	if r != nil && r.kind == kObject {
		l, x, r, y = r, y, l, x
	}
	p := pathOf(x)
	if l == nil || l.kind != kObject || r == nil || r.kind == kObject || p == "" {
		return ""
	}
	lit, _ := y.(*syntax.StringLit)
	var kindMatch []string
	for _, f := range l.fields {
		if lit != nil && len(lit.Parts) == 0 && slices.Contains(literalUnion(f.Type), lit.Value) {
			return fmt.Sprintf(": did you mean %s.%s?", p, f.Name)
		}
		if typeKind(f.Type) == r.kind {
			kindMatch = append(kindMatch, f.Name)
		}
	}
	if len(kindMatch) == 1 {
		return fmt.Sprintf(": did you mean %s.%s?", p, kindMatch[0])
	}
	return ""
}

// neverOneOf reports (and says) that e compares x, text of a declared
// set of words (`verdict: "accept" | "reject"`), with a text literal y
// that is none of them: == is always false, != always true, and the
// branch meant for that word never runs (`review.verdict == "approved"`).
func (c *checker) neverOneOf(e *syntax.BinaryExpr, s *valueShape, x, y syntax.Expr) bool {
	lit, ok := y.(*syntax.StringLit)
	if s == nil || s.oneOf == nil || !ok || len(lit.Parts) > 0 || slices.Contains(s.oneOf, lit.Value) {
		return false
	}
	what := "is always false"
	if e.Op == syntax.NE {
		what = "is always true"
	}
	quoted := make([]string, len(s.oneOf))
	for i, w := range s.oneOf {
		quoted[i] = strconv.Quote(w)
	}
	hint := ""
	if len(lit.Value) >= 3 { // any one letter is one slip from another
		hint = c.suggestFrom2(lit.Value, s.oneOf)
	}
	from := ""
	if s.from != "" {
		from = " (" + s.from + ")"
	}
	c.diags.Errorf(c.f, e.OpPos, CodeTypeMismatch, "this comparison %s: %s is one of %s%s, never %s%s",
		what, pathOrValue(x), strings.Join(quoted, ", "), from, lit.Raw, hint)
	return true
}

// comparable reports whether values of kinds a and b may be equal (or
// ordered): unknown and null compare with anything, numbers with numbers.
func comparable(a, b kind) bool {
	num := func(k kind) bool { return k == kInteger || k == kNumber }
	switch {
	case a == kUnknown || b == kUnknown || a == kNull || b == kNull:
		return true
	case num(a) && num(b):
		return true
	}
	return a == b
}

// describeKind names the kind of a compared value, with its path when it
// has one.
func describeKind(s *valueShape, e syntax.Expr) string {
	if p := pathOf(e); p != "" {
		return p + " (" + s.kind.String() + ")"
	}
	return s.kind.String()
}

// readsAsNumber reports whether a text spells a number ("0.5", " 3 ").
func readsAsNumber(s string) bool {
	t := strings.ToLower(strings.TrimSpace(s))
	_, err := strconv.ParseFloat(t, 64)
	return err == nil && t != "" && !strings.ContainsAny(t, "xpn_")
}
