package graph

import (
	"strings"

	"github.com/proselang/prose/claim"
	"github.com/proselang/prose/diag"
)

// CodePostcondition is a ### Maintains postcondition about a field
// (`F` CLAIM) whose field the Maintains does not declare.
const CodePostcondition = "graph/postcondition"

// postconditionFields reports each postcondition written as a claim
// about a field (`totl` is at least 0) whose field is none the node's
// ### Maintains declares, when it declares fields (decided: an error).
// The drain checks such a claim against the member of that name, and a
// truth has no member the Maintains does not declare: the claim is
// never checked, and a truth that breaks the one meant (`total` is at
// least 0) is published with exit 0. A path into a field
// (`by_kind.click`) is no field: prose checks no claim about it, which
// the drain says before it runs where nothing else checks it.
func (g *Graph) postconditionFields() diag.List {
	var out diag.List
	for _, n := range g.Nodes {
		t := n.Spec.Truth
		if t == nil || len(n.Fields) == 0 {
			continue
		}
		for _, c := range t.Postconditions {
			field, _, ok := claim.FieldClaim(c.Text)
			if !ok || n.hasPart(field) || len(n.facetsOf(field)) > 0 || n.hasFamily(field) {
				continue
			}
			if head, _, dotted := strings.Cut(field, "."); dotted && n.hasPart(head) {
				continue
			}
			msg := "postcondition of %s names `%s`, which its ### Maintains does not declare, so it is never checked"
			if best := nearest(field, partsOf(n)); best != "" {
				out.Errorf(n.Spec.File, c.Pos, CodePostcondition, msg+"; did you mean `%s`?", n.Label(), field, best)
			} else {
				out.Errorf(n.Spec.File, c.Pos, CodePostcondition, msg+" (%s): name one of them, or declare `%s` among its fields", n.Label(), field, partList(n), field)
			}
		}
	}
	return out
}

// CodeImmaterial is an immaterial name that is no field of its node but
// near one.
const CodeImmaterial = "graph/immaterial"

// immaterialSlips warns of each name a ### Maintains calls immaterial
// that is no field or facet its node declares but is near one that is
// not immaterial (`recieved` beside `received`). Decided: a warning (an
// immaterial name may be a key inside a field, which the Maintains
// need not declare), since as written the field meant stays material:
// each change of it, a stamp re-written at every poll, moves the
// fingerprint and wakes the node's subscribers.
func (g *Graph) immaterialSlips() diag.List {
	var out diag.List
	for _, n := range g.Nodes {
		t := n.Spec.Truth
		if t == nil || len(n.Fields) == 0 {
			continue
		}
		names := append([]string{}, t.Immaterial...)
		for _, f := range t.Facets {
			names = append(names, f.Immaterial...)
		}
		for _, name := range names {
			if n.hasPart(name) {
				continue
			}
			best := nearest(name, partsOf(n))
			if best == "" || contains(names, best) {
				continue
			}
			out.Warnf(n.Spec.File, maintainsAt(n, "`"+name+"`"), CodeImmaterial,
				"%s calls `%s` immaterial, which it does not declare; did you mean `%s`? As written `%s` stays material: each change of it moves the fingerprint and wakes the subscribers",
				n.Label(), name, best, best)
		}
	}
	return out
}

// maintainsAt is where text first is in n's ### Maintains, else the
// section's heading.
func maintainsAt(n *Node, text string) diag.Pos {
	for _, sec := range n.Spec.Sections {
		if !strings.EqualFold(strings.TrimSpace(sec.Heading), "maintains") {
			continue
		}
		if i := strings.Index(sec.Body, text); i >= 0 {
			return sec.BodyPos + diag.Pos(i+1)
		}
		return sec.Pos
	}
	return n.Spec.Pos
}
