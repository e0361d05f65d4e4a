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

// CodeMaterial is a `material:` bullet naming fields, which prose does
// not apply (a warning).
const CodeMaterial = "graph/material"

// materialOnly warns of a ### Maintains `material:` bullet that names
// fields in backticks while other fields of the truth are not called
// immaterial. prose keeps every field in the fingerprint unless it is
// called immaterial (the canonicalization spec says what to leave out,
// never what alone to keep), so "material: `price` only" leaves `note`
// material: each change of it wakes the subscribers. Decided: a
// warning at the bullet, naming the fields still material and the
// bullet that leaves them out.
func (g *Graph) materialOnly() diag.List {
	var out diag.List
	for _, n := range g.Nodes {
		t := n.Spec.Truth
		if t == nil || len(t.Material) == 0 {
			continue
		}
		for _, text := range t.Material {
			named := backticked(text)
			var fields []string
			for _, w := range named {
				if contains(n.Fields, w) {
					fields = append(fields, w)
				}
			}
			if len(fields) == 0 {
				continue
			}
			var rest []string
			for _, f := range n.Fields {
				if !contains(fields, f) && !contains(t.Immaterial, f) {
					rest = append(rest, "`"+f+"`")
				}
			}
			if len(rest) == 0 {
				continue
			}
			out.Warnf(n.Spec.File, maintainsAt(n, text), CodeMaterial,
				"a material: bullet does not make the other fields of %s immaterial: every field is in the fingerprint unless called immaterial, so a change of %s still wakes its subscribers; to leave them out write - immaterial: %s",
				n.Label(), strings.Join(rest, ", "), strings.Join(rest, ", "))
		}
	}
	return out
}
