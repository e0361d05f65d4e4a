package graph

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/diag"
)

// CodeUnknownMember is an Execution reading a member of an input that
// the producer's truth it reads does not hold.
const CodeUnknownMember = "graph/unknown-member"

// Members of an input read by an Execution (decided). An input wired to
// one producer's whole truth is a JSON object holding what that
// producer's ### Maintains declares, and nothing else a drain checks: an
// Execution that reads another member of it (`ledger.totl` where the
// producer maintains `total`) reads null at every render, and with an
// untyped Maintains field the node would publish that null with exit 0.
// So such a member is an error (CodeUnknownMember), at the member,
// naming what it holds. A fan-in is an object keyed by producer (by part
// when one producer gives every part; a producer read for several parts
// is an object of them), so a key it lacks (`both.other-fed`) is one too,
// and so is a member of a producer's whole truth inside it. Only a
// producer whose Maintains declares fields and no facets or families is
// followed into whole (a faceted truth may be answered in more than one
// form: there only a member near a field or facet is reported), and only
// members the node's own checks (package lint, without the
// graph) do not report already.
//
// A read_world_model("self") (or of the node's own id or name), and one
// of another node, is such a truth too, the node's own prior truth null
// on a cold start: a member its ### Maintains does not declare is the
// same error, whether or not a truth exists yet (its null would else be
// read on a cold start, and after it too, since no drain publishes a
// member that is not declared). A faceted truth holds its fields at the
// top or inside a facet, so there only a member near a field or facet
// is reported (truthMembers).
func (g *Graph) executionMembers() diag.List {
	var out diag.List
	for _, n := range g.Nodes {
		s := n.Spec
		if s.Execution == nil || s.Execution.Program == nil {
			continue
		}
		shaped := s.Decls()
		any := false
		for i := range shaped.Inputs {
			in := &shaped.Inputs[i]
			if priorItem(n, in.Name) {
				// a Requires item naming the node's own world model
				// (`prior `StatusBoard``) is its prior truth
				if in.Members, in.Open = truthMembers(n); in.Members != nil {
					in.From, any = priorFrom(n), true
				}
			} else if in.Members, in.From, in.Open = g.inputMembers(n, in.Name); in.Members != nil {
				any = true
			} else if t := g.fieldType(n, in.Name); in.Type == "" && t != "" {
				in.Type, any = t, true // the type of the one field it reads
			}
		}
		if shaped.Reads = g.readMembers(n); len(shaped.Reads) > 0 {
			any = true
		}
		if !any {
			continue
		}
		before := map[string]bool{}
		for _, d := range check.Check(s.Execution.Program, s.Decls()) {
			before[d.Message] = true
		}
		for _, d := range check.Check(s.Execution.Program, shaped) {
			if d.Code == check.CodeTypeMismatch && !before[d.Message] {
				// A comparison that can never hold, with the kinds the
				// producer declares (`crossed == true` of a whole truth).
				d.Code = CodeTypeMismatch
				if base, meant, ok := strings.Cut(d.Message, ": did you mean "); ok {
					// the checker named the field meant (s.crossed)
					d.Message = base + ", as its producer's ### Maintains declares it: did you mean " + meant
				} else {
					d.Message += ", as its producer's ### Maintains declares it: compare a value of the same kind, or read the field meant"
				}
				out = append(out, d)
				continue
			}
			if d.Code != check.CodeUnknownMember || before[d.Message] {
				continue
			}
			msg := d.Message
			switch {
			case strings.HasSuffix(msg, "?"):
			case strings.Contains(msg, "in a fan-in") || strings.Contains(msg, "a fan-in of") || strings.Contains(msg, "a fan-in keyed"):
				msg += ": read one of them, or name what it reads in its ### Requires item"
			default:
				msg += ": read one of them, or declare the member in that ### Maintains"
			}
			d.Code, d.Message = CodeUnknownMember, msg
			out = append(out, d)
		}
	}
	return out
}

// inputMembers are the members of n's input in, as reconcile gives it,
// and what gives them (nil when they are not all known); open when the
// input may hold more (a faceted producer's whole truth: truthMembers).
func (g *Graph) inputMembers(n *Node, in string) (_ []check.Name, from string, open bool) {
	var es []*Edge
	for _, e := range g.In(n.ID) {
		if e.Input == in {
			if e.Rule == "read" || strings.Contains(e.Facet, "<") {
				return nil, "", false // a family's keys are the data's
			}
			es = append(es, e)
		}
	}
	if len(es) == 0 {
		return nil, "", false
	}
	if len(es) == 1 {
		if es[0].Facet != Atomic {
			return nil, "", false
		}
		prod := g.byID[es[0].Producer]
		ms, open := truthMembers(prod)
		return ms, wholeFrom(prod), open
	}
	by := map[string][]*Edge{}
	var ids []string
	for _, e := range es {
		if by[e.Producer] == nil {
			ids = append(ids, e.Producer)
		}
		by[e.Producer] = append(by[e.Producer], e)
	}
	if len(ids) == 1 {
		return partMembers(g.byID[ids[0]], es), fmt.Sprintf("it is a fan-in of parts of %s, keyed by part:", g.byID[ids[0]].Label()), false
	}
	var out []check.Name
	for _, id := range ids {
		prod, pe := g.byID[id], by[id]
		m := check.Name{Name: id}
		switch {
		case len(pe) > 1:
			m.Members, m.From = partMembers(prod, pe), partsFrom(prod)
		case pe[0].Facet == Atomic:
			m.Members, m.Open = truthMembers(prod)
			m.From = wholeFrom(prod)
		}
		out = append(out, m)
	}
	return out, "it is a fan-in keyed by producer:", false
}

// wholeMembers are the fields of p's whole truth when p declares fields
// and no facets or families, else nil.
func wholeMembers(p *Node) []check.Name {
	if p == nil || len(p.Fields) == 0 || len(p.Facets) > 0 || len(p.Families) > 0 {
		return nil
	}
	var out []check.Name
	for _, o := range p.Spec.Outputs {
		if o.Inferred {
			return nil
		}
		if !o.Facet {
			out = append(out, check.Name{Name: o.Name, Pos: o.Pos, Type: o.Type})
		}
	}
	return out
}

// readMembers are the values of n's read_world_model calls whose
// members are known: its own prior truth and the truths of the nodes it
// reads.
func (g *Graph) readMembers(n *Node) []check.Read {
	var out []check.Read
	seen := map[string]bool{}
	for _, r := range WorldReads(n) {
		if seen[r.Node] {
			continue
		}
		seen[r.Node] = true
		p, from := n, priorFrom(n)
		if !n.ReadsSelf(r.Node) {
			if p = g.ref(r.Node); p == nil {
				continue // an unsatisfied read, reported by wireReads
			}
			from = wholeFrom(p)
		}
		if ms, open := truthMembers(p); ms != nil {
			out = append(out, check.Read{Node: r.Node, Members: ms, Open: open, From: from})
		}
	}
	return out
}

// priorFrom says where the members of n's prior truth come from, for a
// message.
func priorFrom(n *Node) string {
	return fmt.Sprintf("it is the prior truth of %s (null on a cold start), whose ### Maintains declares", n.Label())
}

// priorItem reports whether n's input named in is a Requires item that
// names n's own truth.
func priorItem(n *Node, in string) bool {
	for _, i := range n.Spec.Inputs {
		if i.Name == in {
			it := n.ItemOf(i)
			return it != nil && it.Prior
		}
	}
	return false
}

// truthMembers are the members of p's whole truth, as a read_world_model
// gives it: its fields, when it declares fields and no facets (exactly
// those: open is false); with facets, its fields and facets, open (a
// field may be given inside a facet instead). Nil when a family's keys
// are the data's or a field is inferred.
func truthMembers(p *Node) (_ []check.Name, open bool) {
	if len(p.Facets) == 0 {
		return wholeMembers(p), false
	}
	if len(p.Families) > 0 {
		return nil, false
	}
	var out []check.Name
	for _, o := range p.Spec.Outputs {
		if o.Inferred {
			return nil, false
		}
		out = append(out, check.Name{Name: o.Name, Pos: o.Pos, Type: o.Type})
	}
	return out, true
}

// partMembers are the parts of p that edges es read, keyed by part, with
// each field's declared type.
func partMembers(p *Node, es []*Edge) []check.Name {
	var out []check.Name
	for _, e := range es {
		m := check.Name{Name: e.Facet}
		for _, o := range p.Spec.Outputs {
			if o.Name == e.Facet && !o.Facet {
				m.Type = o.Type
			}
		}
		if e.Facet == Atomic {
			m.Members = wholeMembers(p)
		}
		out = append(out, m)
	}
	return out
}

// fieldType is the type the producer declares of the one field n's input
// in reads, or "".
func (g *Graph) fieldType(n *Node, in string) string {
	var e *Edge
	for _, x := range g.In(n.ID) {
		if x.Input == in {
			if e != nil {
				return ""
			}
			e = x
		}
	}
	if e == nil || e.Facet == Atomic || e.Rule == "read" {
		return ""
	}
	for _, o := range g.byID[e.Producer].Spec.Outputs {
		if o.Name == e.Facet && !o.Facet {
			return o.Type
		}
	}
	return ""
}

// wholeFrom and partsFrom say where the members of an input reading n
// come from, for a message.
func wholeFrom(n *Node) string {
	return fmt.Sprintf("it is the whole truth of %s, whose ### Maintains declares", n.Label())
}

func partsFrom(n *Node) string {
	return fmt.Sprintf("it is %s's parts in a fan-in, keyed by part:", n.Label())
}

// WholeTruth is the producer whose whole truth n's input reads, and the
// fields that truth holds, exactly (no facets or families): ok is false
// for any other input (a part, a fan-in, a faceted producer, a caller
// input), whose members are not all known.
func (g *Graph) WholeTruth(n *Node, input string) (producer *Node, fields []string, ok bool) {
	var e *Edge
	for _, x := range g.In(n.ID) {
		if x.Input == input {
			if e != nil {
				return nil, nil, false
			}
			e = x
		}
	}
	if e == nil || e.Facet != Atomic || e.Rule == "read" {
		return nil, nil, false
	}
	p := g.byID[e.Producer]
	ms, open := truthMembers(p)
	if ms == nil || open {
		return nil, nil, false
	}
	for _, m := range ms {
		fields = append(fields, m.Name)
	}
	return p, fields, true
}
