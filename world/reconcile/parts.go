// What an edge reads of its producer's truth: a part, a facet or a
// facet family, and their fingerprints.

package reconcile

import (
	"strings"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
)

// partFingerprints are the fingerprints of what edge e reads of its
// producer's truth, by input key: one for a part, one per key for a
// facet family (EdgeKey(e)+"["+KEY+"]"), so a subscriber to a family
// wakes when a key moves, appears or goes, and its diff names the keys.
func partFingerprints(g *graph.Graph, prod *graph.Node, truth any, e *graph.Edge) (map[string]string, error) {
	imm := Immaterial(g, prod, e.Facet)
	if stem, ok := graph.Family(e.Facet); ok {
		out := map[string]string{}
		for k, v := range family(truth, stem) {
			fp, err := canon.Fingerprint(v, imm)
			if err != nil {
				return nil, err
			}
			out[EdgeKey(e)+"["+k+"]"] = fp
		}
		return out, nil
	}
	fp, err := canon.Fingerprint(part(truth, e.Facet), imm)
	if err != nil {
		return nil, err
	}
	return map[string]string{EdgeKey(e): fp}, nil
}

// family is the facet family stem of truth as an object by key: each
// member "STEM" + KEY of the truth under KEY (decided: a family's keys
// are members of the one truth, as every facet is).
func family(truth any, stem string) map[string]any {
	out := map[string]any{}
	if m, ok := truth.(map[string]any); ok {
		for k, v := range m {
			if key, ok := strings.CutPrefix(k, stem); ok && key != "" {
				out[key] = v
			}
		}
	}
	return out
}

// present reports whether what an edge reads of truth exists: a truth was
// published and, for a facet, has that member (a facet family exists once
// the truth does, with no keys or some).
func present(truth any, facet string) bool {
	if truth == nil {
		return false
	}
	if facet == graph.Atomic {
		return true
	}
	if _, ok := graph.Family(facet); ok {
		return true
	}
	m, isObj := truth.(map[string]any)
	if !isObj {
		return false
	}
	_, ok := m[facet]
	return ok
}

// part is the member facet of truth (the whole for Atomic; for a facet
// family, its object by key).
func part(truth any, facet string) any {
	if facet == graph.Atomic {
		return truth
	}
	if stem, ok := graph.Family(facet); ok {
		return family(truth, stem)
	}
	if m, ok := truth.(map[string]any); ok {
		return m[facet]
	}
	return nil
}

// inputValue is an input's value: the part, or for a fan-in an object
// keyed by producer (by facet when one producer gives every part). A
// producer that gives several parts of a fan-in of several producers is
// an object of its parts keyed by part (decided: its parts were written
// under one key, the last one read in place of the others).
func inputValue(d *drainer, es []*graph.Edge) any {
	if len(es) == 1 {
		return part(d.st[es[0].Producer].truth, es[0].Facet)
	}
	parts := map[string]int{}
	for _, e := range es {
		parts[e.Producer]++
	}
	one := len(parts) == 1
	m := map[string]any{}
	for _, e := range es {
		v := part(d.st[e.Producer].truth, e.Facet)
		switch {
		case one:
			m[e.Facet] = v
		case parts[e.Producer] > 1:
			sub, _ := m[e.Producer].(map[string]any)
			if sub == nil {
				sub = map[string]any{}
				m[e.Producer] = sub
			}
			sub[e.Facet] = v
		default:
			m[e.Producer] = v
		}
	}
	return m
}

// Immaterial lists the fields excluded from the fingerprint of a part
// of n: the truth's immaterial fields (the Maintains text's and the
// wiring file's), and a facet's own.
func Immaterial(g *graph.Graph, n *graph.Node, facet string) []string {
	var out []string
	if t := n.Spec.Truth; t != nil {
		out = append(out, t.Immaterial...)
		if f := t.Facet(facet); f != nil {
			out = append(out, f.Immaterial...)
		}
	}
	if g.Wiring != nil {
		out = append(out, g.Wiring.Immaterial[n.ID]...)
		if n.Name != "" && n.Name != n.ID { // keyed by name, as graph.Wiring allows
			out = append(out, g.Wiring.Immaterial[n.Name]...)
		}
	}
	return out
}
