package reconcile

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/proselang/prose/claim"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
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
		v, present := member(n, m, field)
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

// SubscribedFacets checks that a new truth of n holds each `####` facet
// a subscriber reads (decided): a missing facet is absent to its
// subscribers, and its fingerprint, that of nothing, never moves again,
// so they would never wake while the fields the facet stands for moved
// (a program answering its fields flat, `{"high_water_mark": 5}`, where
// the facet `counts` holds them). A facet no node reads may be left out
// (upstream's facets may name a projection of the truth, `structured` of
// its `structured_summary`).
//
// So with a field a subscriber reads (`total` of `sum`) of a node with
// facets: it may be given inside the facet that holds it (Fields), but a
// subscriber reads the member, so a truth that gives it only inside a
// facet fails too (decided), naming the facet: as published the reader
// would find it absent for ever while the facet moved.
func SubscribedFacets(g *graph.Graph, n *graph.Node, truth any) error {
	m, _ := truth.(map[string]any)
	if len(n.Facets) == 0 || m == nil {
		return nil
	}
	read := g.FacetReaders(n.ID)
	for _, f := range n.Spec.Outputs {
		if len(read[f.Name]) == 0 {
			continue
		}
		if _, ok := m[f.Name]; ok {
			continue
		}
		if f.Facet {
			return fmt.Errorf("%s: %s's truth lacks its facet %q, which %s read(s): give it as a member of the truth ({%q: {...}}, the fields it stands for inside it); left out, it is absent to them and never moves, so they would not wake again",
				n.Spec.File.Position(f.Pos), displayName(n), f.Name, strings.Join(read[f.Name], ", "), f.Name)
		}
		if f.Inferred {
			continue
		}
		where := ""
		for _, fc := range n.Facets {
			if fm, ok := m[fc].(map[string]any); ok {
				if _, ok := fm[f.Name]; ok {
					where = fmt.Sprintf(" (it gives it inside its facet %q only)", fc)
					break
				}
			}
		}
		return fmt.Errorf("%s: %s's truth lacks its field %q as a member%s, and %s read(s) it so: give %q as a member of the truth; left out, it is absent to them and never moves, so they would not wake again",
			n.Spec.File.Position(f.Pos), displayName(n), f.Name, where, strings.Join(read[f.Name], ", "), f.Name)
	}
	return nil
}

// member is the value of n's field in truth m: its member, else, for a
// node with `####` facets, the member of that name of the one facet that
// holds it (a field may be given inside a facet: see Fields), so that a
// postcondition about it is checked there too.
func member(n *graph.Node, m map[string]any, field string) (any, bool) {
	if v, ok := m[field]; ok {
		return v, true
	}
	var v any
	found := 0
	for _, f := range n.Facets {
		if fm, ok := m[f].(map[string]any); ok {
			if x, ok := fm[field]; ok {
				v = x
				found++
			}
		}
	}
	return v, found == 1
}

// Fields checks a new truth of n against the fields its ### Maintains
// declares (decided): a node without `####` facets must give every
// declared field as a member, and a member declared with a type must be
// of that type (null only where it is declared optional or its type names
// null, as for a function's outputs, callgraph typedOutputs). A node with
// facets may give a field inside one of them (the return rule of
// callgraph.Truth, applied by the renderers), so its presence is the
// renderers' to check, and its type is checked where it is given: as a
// member, else inside the one facet that holds it (`{"counts": {"total":
// "x"}}` for `total` (integer) fails as `{"total": "x"}` does, since a
// subscriber of the facet reads it there). Members the Maintains does not
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
		if !present && facets {
			v, present = member(n, m, o.Name)
			if err := wrongFacet(n, m, o); present && err != nil {
				return err
			}
		}
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
		return fmt.Errorf("%s: %s's truth lacks the field(s) %s, which its ### Maintains declares%s: give every declared field (null where there is no value, for a field that admits it)",
			n.Spec.File.Position(first.Pos), displayName(n), strings.Join(missing, ", "), nearKeys(n, m))
	}
	if err := misspeltFamily(n, m); err != nil {
		return err
	}
	return misspeltFacet(n, m)
}

// wrongFacet fails a truth that gives field o inside a facet other than
// the one its ### Maintains puts it in: the `####` facet whose
// description names it in backticks ("#### totals: `total` and
// `count`"), when no other facet's does. Decided: an error, as a missing
// field is; the subscribers of the facet named would read it absent
// (their render given a facet without it), those of the other would
// wake on it. nil when the field is where it is declared, or no facet
// (or more than one) names it.
func wrongFacet(n *graph.Node, m map[string]any, o *spec.Output) error {
	if n.Spec.Truth == nil {
		return nil
	}
	var home *spec.Facet
	for _, f := range n.Spec.Truth.Facets {
		if strings.Contains(f.Description, "`"+o.Name+"`") {
			if home != nil {
				return nil
			}
			home = f
		}
	}
	if home == nil {
		return nil
	}
	if fm, ok := m[home.Name].(map[string]any); ok {
		if _, ok := fm[o.Name]; ok {
			return nil
		}
	}
	for _, f := range n.Facets {
		fm, ok := m[f].(map[string]any)
		if _, in := fm[o.Name]; ok && in && f != home.Name {
			return fmt.Errorf("%s: %s's truth gives its field %s inside its facet %q, but its ### Maintains puts it in the facet %q (line %d): give it there (%s), so the subscribers of %q read it",
				n.Spec.File.Position(o.Pos), displayName(n), o.Name, f, home.Name, n.Spec.File.Position(home.Pos).Line, fmt.Sprintf(`{"%s": {"%s": ...}}`, home.Name, o.Name), home.Name)
		}
	}
	return nil
}

// misspeltFamily fails a truth that gives a member `STEM:KEY` its
// Maintains does not declare, whose stem is near the stem of one of its
// facet families (`regoin:eu` for `#### region:<id>`). Decided: an
// error, as a misspelt facet is. A family may well have no key yet, so
// nothing else notices: the member would be kept beside the family under
// a name nothing declares, and a subscriber of the family would read its
// key absent (a failing region published as no region at all).
func misspeltFamily(n *graph.Node, m map[string]any) error {
	if len(n.Families) == 0 {
		return nil
	}
	stems := make([]string, 0, len(n.Families))
	for _, f := range n.Families {
		stem, _ := graph.Family(f)
		stems = append(stems, strings.TrimSuffix(stem, ":"))
	}
	declared := map[string]bool{}
	for _, o := range n.Spec.Outputs {
		declared[o.Name] = true
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		i := strings.IndexByte(k, ':')
		if declared[k] || i <= 0 || contains(stems, k[:i]) {
			continue
		}
		near := didyoumean.Closest(k[:i], stems, max(1, i/3))
		if near == "" {
			continue
		}
		for _, f := range n.Families {
			stem, _ := graph.Family(f)
			if strings.TrimSuffix(stem, ":") != near {
				continue
			}
			return fmt.Errorf("%s: %s's truth gives %q, which no facet of its ### Maintains declares: did you mean %q, of its facet family %q? As written the key would be kept beside the family under a name nothing declares, and its subscribers would not read it",
				familyPos(n, f), displayName(n), k, stem+k[i+1:], f)
		}
	}
	return nil
}

// familyPos is where the heading of n's facet family f is (its
// ### Maintains when it is not found).
func familyPos(n *graph.Node, f string) diag.Position {
	for _, sec := range n.Spec.Sections {
		if !strings.EqualFold(strings.TrimSpace(sec.Heading), "maintains") {
			continue
		}
		off := 0
		for _, line := range strings.SplitAfter(sec.Body, "\n") {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, "####") && strings.Trim(strings.TrimSpace(strings.TrimLeft(t, "#")), "`") == f {
				return n.Spec.File.Position(sec.BodyPos + diag.Pos(off+len(line)-len(strings.TrimLeft(line, " \t"))))
			}
			off += len(line)
		}
	}
	return truthPos(n)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// misspeltFacet fails a truth that leaves out a `####` facet its
// Maintains declares and gives, in its place, a member it does not
// declare near that facet's name (`hirng` for `hiring`). Decided: an
// error, as a near key of a missing field is. A facet may be left out,
// but one so misspelt was meant: published, the facet would be absent
// (null to a reader, its fingerprint unmoved) and the part the render
// gave would sit beside it under a name nothing declares.
func misspeltFacet(n *graph.Node, m map[string]any) error {
	declared := map[string]bool{}
	var lacking []*spec.Output
	var names []string
	for _, o := range n.Spec.Outputs {
		declared[o.Name] = true
		if _, has := m[o.Name]; o.Facet && !has {
			lacking = append(lacking, o)
			names = append(names, o.Name)
		}
	}
	if len(lacking) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !declared[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		near := didyoumean.Closest(k, names, max(1, len(k)/3))
		if near == "" {
			continue
		}
		for _, o := range lacking {
			if o.Name == near {
				return fmt.Errorf("%s: %s's truth lacks its facet %q, which its ### Maintains declares, and gives %q: did you mean %q? As written the facet would be absent and %q kept beside it under a name nothing declares: give the part as %q",
					n.Spec.File.Position(o.Pos), displayName(n), near, k, near, k, near)
			}
		}
	}
	return nil
}

// nearKeys is " (it gives "totl": did you mean "total"?)" for each member
// of truth m that the Maintains does not declare and that is near a
// declared field it lacks, "" when none is.
func nearKeys(n *graph.Node, m map[string]any) string {
	var lacking []string
	declared := map[string]bool{}
	for _, o := range n.Spec.Outputs {
		declared[o.Name] = true
		if _, has := m[o.Name]; !has && !o.Facet && !o.Inferred {
			lacking = append(lacking, o.Name)
		}
	}
	var keys []string
	for k := range m {
		if !declared[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if near := didyoumean.Closest(k, lacking, max(1, len(k)/3)); near != "" {
			out = append(out, fmt.Sprintf("it gives %q: did you mean %q?", k, near))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
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
// read as an object keyed by producer) is not checked. Null passes only
// an input declared optional (or with a default, or of a type that
// names null), as for a function's required inputs: a producer that
// gives null for a field it declares optional would else reach a
// subscriber that declared a number, and `null > 100` was false with
// exit 0. (An input whose producer has not published is absent, not
// null: see Request.Absent.)
func Inputs(g *graph.Graph, n *graph.Node, values map[string]any) error {
	if n.Spec == nil {
		return nil
	}
	for _, in := range n.Spec.Inputs {
		v, ok := values[in.Name]
		if !ok || in.Type == "" || v == nil && (in.Optional || in.HasDefault) {
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
		if val == nil {
			return fmt.Errorf("%s: input %s of %s is null, from %s, but it declares it (%s): declare it (%s, optional) to take null, or make the producer maintain %s",
				n.Spec.File.Position(in.Pos), in.Name, displayName(n), prod, in.Type, in.Type, types.Article(in.Type))
		}
		return fmt.Errorf("%s: input %s of %s is %s, from %s, but it declares it (%s): make the producer maintain %s, or declare the input as the producer gives it",
			n.Spec.File.Position(in.Pos), in.Name, displayName(n), types.Show(val), prod, in.Type, types.Article(in.Type))
	}
	return nil
}
