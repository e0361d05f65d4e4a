package spec

import (
	"strings"

	"github.com/proselang/prose/diag"
)

// outputs reads `- \`name\`: text` bullets of Ensures/Returns/Maintains
// (an unquoted name must be a lower-case identifier, so prose bullets such
// as "Round 1: ..." are not outputs). A Contract Markdown Maintains is
// read by maintains (facets.go).
func (l *loader) outputs(sec *section) {
	if l.isMaintains(sec) {
		l.maintains(sec)
		return
	}
	head, facets := l.facets(sec)
	for _, li := range headItems(head) {
		t, pos, ok := l.itemText(li)
		if !ok {
			continue
		}
		if l.returnsClaim(t, pos) {
			continue
		}
		it, ok := readContractItem(t)
		if !ok {
			// `- \`summary\` (markdown): the text`: a parenthesis that
			// is no type is part of the description, not a reason to
			// drop the output.
			it, ok = parenItem(t)
			if paren, at, unread := unreadType(t); ok && unread {
				l.warnf(pos+at, CodeUnreadType, "output %q: %s is not read as a type, as it holds more than a type and its flags (optional, default: X): %s is untyped, so nothing checks its values; %s",
					it.name, paren, it.name, unreadTypeFix(paren))
			}
		}
		if !ok || !strings.HasPrefix(t, "`") && strings.ToLower(it.name) != it.name {
			continue
		}
		if it.badType != "" {
			l.errorf(pos+it.typeAt, CodeOutputSyntax, "output %q: %s", it.name, unknownTypeMessage(it.badType, it.suggest))
		}
		if first := l.output(it.name); first != nil {
			l.errorf(pos+it.at, CodeDuplicateOutput, "output %q is declared twice (first on line %d); rename one or remove it", it.name, l.f.Position(first.Pos).Line)
			continue
		}
		l.s.Outputs = append(l.s.Outputs, &Output{Name: it.name, Pos: diag.Pos(pos + it.at), Description: it.desc, Type: it.typ, Optional: it.optional})
	}
	for _, f := range facets {
		if l.output(f.name) == nil {
			l.s.Outputs = append(l.s.Outputs, &Output{Name: f.name, Pos: diag.Pos(f.pos), Description: f.desc})
		}
	}
}

// returnsClaim reads an item of a Contract Markdown ### Returns that is a
// claim about the value rather than an output: `postcondition: ...`, a
// bare claim (`total` is at least 0) or `each ITEM has: ...`, into
// Spec.Truth as a Maintains holds them, and reports whether it was one.
// Decided: a function's postconditions are read from its Returns as from
// a Maintains (and checked where the value is made, callgraph), since
// upstream writes them there; read as outputs, `postcondition` became an
// output every answer lacked, and `each` items were dropped.
func (l *loader) returnsClaim(t string, pos int) bool {
	if !l.s.Contract {
		return false
	}
	bare := strings.TrimLeft(t, "*_ ")
	low := strings.ToLower(bare)
	word, _, _ := strings.Cut(low, ":")
	word = strings.TrimRight(word, "*_ ")
	switch {
	case word == "postcondition" || word == "postconditions",
		strings.HasPrefix(low, "each ") && eachHas().MatchString(low):
	case bareClaim(t):
		if l.s.Truth == nil {
			l.s.Truth = &Truth{Pos: diag.Pos(pos)}
		}
		l.s.Truth.Postconditions = append(l.s.Truth.Postconditions, Claim{Text: t, Pos: diag.Pos(pos)})
		return true
	default:
		return false
	}
	if l.s.Truth == nil {
		l.s.Truth = &Truth{Pos: diag.Pos(pos)}
	}
	r := truthReader{l: l, t: l.s.Truth}
	return r.canonical(t, pos, nil)
}

func (l *loader) output(name string) *Output {
	for _, o := range l.s.Outputs {
		if o.Name == name {
			return o
		}
	}
	return nil
}

// parenItem reads "`name` (text): description" whose parenthesis is no
// type: the name, and the rest as its description.
func parenItem(t string) (contractItem, bool) {
	rest, ok := strings.CutPrefix(t, "`")
	if !ok {
		return contractItem{}, false
	}
	end := strings.IndexByte(rest, '`')
	if end < 0 || !isIdent(strings.ReplaceAll(rest[:end], "-", "_")) {
		return contractItem{}, false
	}
	after := strings.TrimSpace(rest[end+1:])
	if !strings.HasPrefix(after, "(") {
		return contractItem{}, false
	}
	return contractItem{name: rest[:end], at: 1, desc: after}, true
}
