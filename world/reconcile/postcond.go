package reconcile

import (
	"context"
	"fmt"
	"strings"

	"github.com/proselang/prose/claim"
	"github.com/proselang/prose/delegation"
	types "github.com/proselang/prose/shape"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/graph"
)

// Postconditions checks the postconditions of n's Maintains that the
// data decides: a claim written about a top-level member,
// "`field` CLAIM" (“- postcondition: `total` is at least 0“), decided
// by package claim's forms without a model. A claim no form decides is
// left to the render (and to a judge, where one is configured); one that
// is decided false fails the render.
func Postconditions(ctx context.Context, n *graph.Node, truth any) error {
	t := n.Spec.Truth
	if t == nil {
		return nil
	}
	m, _ := truth.(map[string]any)
	for _, c := range t.Postconditions {
		field, rest, ok := claim.FieldClaim(c.Text)
		if !ok {
			continue
		}
		v, present := m[field]
		if !present {
			continue
		}
		val, err := delegation.FromGo(v)
		if err != nil {
			continue
		}
		r, decided := claim.Decide(ctx, claim.Question{Path: field, Claim: rest, Value: val})
		if decided && !r.Holds {
			pos := n.Spec.File.Position(c.Pos)
			detail := ""
			if r.Detail != "" {
				detail = " (" + r.Detail + ")"
			}
			return fmt.Errorf("%s: postcondition does not hold: `%s` %s%s", pos, field, rest, detail)
		}
	}
	return nil
}

// Fields checks a new truth of n against the fields its ### Maintains
// declares (decided): a node without `####` facets must give every
// declared field as a member, and a member declared with a type must be
// of that type (null only where it is declared optional or its type names
// null, as for a function's outputs, callgraph typedOutputs). A node with
// facets may give a field inside one of them (the return rule of
// callgraph.Truth, applied by the renderers), so only the type of a field
// it gives as a member is checked. Members the Maintains does not
// declare are kept as given. A subscriber so never reads null for a field
// the producer left out, nor text where a number is declared.
func Fields(n *graph.Node, truth any) error {
	m, _ := truth.(map[string]any)
	if n.Spec == nil || m == nil {
		return nil
	}
	facets := false
	for _, o := range n.Spec.Outputs {
		facets = facets || o.Facet
	}
	var missing []string
	var first *spec.Output
	for _, o := range n.Spec.Outputs {
		if o.Facet || o.Inferred {
			continue
		}
		v, present := m[o.Name]
		if !present {
			if !facets {
				missing = append(missing, fmt.Sprintf("%q", o.Name))
				if first == nil {
					first = o
				}
			}
			continue
		}
		if o.Type == "" {
			continue
		}
		val, err := delegation.FromGo(v)
		if err != nil || types.Fits(o.ValueType(), val) {
			continue
		}
		fix := "give " + types.Article(o.Type)
		if val == nil {
			fix += fmt.Sprintf(", or declare `%s` (%s, optional) if it may be empty", o.Name, o.Type)
		}
		return fmt.Errorf("%s: %s's truth gives %s for its field %s, which its ### Maintains declares (%s): %s",
			n.Spec.File.Position(o.Pos), displayName(n), types.Show(val), o.Name, o.Type, fix)
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: %s's truth lacks the field(s) %s, which its ### Maintains declares: give every declared field (null where there is no value, for a field that admits it)",
			n.Spec.File.Position(first.Pos), displayName(n), strings.Join(missing, ", "))
	}
	return nil
}

func displayName(n *graph.Node) string {
	if n.Name != "" {
		return n.Name
	}
	return n.ID
}

// Inputs checks the values a render of n is given from its producers
// against the types its ### Requires declares for them (decided): one of
// another type fails the render at the item's line before it starts,
// naming the producer, so that a subscriber never works from text where
// it declared a number. An input fed by several producers (a fan-in,
// read as an object keyed by producer) is not checked; null passes.
func Inputs(g *graph.Graph, n *graph.Node, values map[string]any) error {
	if n.Spec == nil {
		return nil
	}
	for _, in := range n.Spec.Inputs {
		v, ok := values[in.Name]
		if !ok || v == nil || in.Type == "" {
			continue
		}
		var from []*graph.Edge
		for _, e := range g.In(n.ID) {
			if e.Input == in.Name {
				from = append(from, e)
			}
		}
		if len(from) != 1 {
			continue
		}
		val, err := delegation.FromGo(v)
		if err != nil || types.Fits(in.Type, val) {
			continue
		}
		prod := from[0].Producer
		if p := g.Node(prod); p != nil {
			prod = displayName(p)
		}
		return fmt.Errorf("%s: input %s of %s is %s, from %s, but it declares it (%s): make the producer maintain %s, or declare the input as the producer gives it",
			n.Spec.File.Position(in.Pos), in.Name, displayName(n), types.Show(val), prod, in.Type, types.Article(in.Type))
	}
	return nil
}
