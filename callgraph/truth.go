package callgraph

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/spec"
)

// The return rule of a ### Maintains with `####` facets (decided).
//
// A truth is one object; each `####` part is a facet of it, the member of
// that name, and the Maintains' contract items are its fields. Upstream
// writes responsibilities that return either their whole truth or only
// its facets, so both are taken and the truth is assembled from them:
//
//   - a value that is not an object is the value of the one field, when
//     the Maintains declares exactly one;
//   - a facet that is not a member of the answer is taken from the field
//     whose value is an object holding a member of the facet's name, when
//     exactly one field does (`{accounts: {risk, history}}` gives the
//     facets risk and history); a facet found nowhere is not part of the
//     truth (a subscriber to it reads it as absent);
//   - a field that is not a member of the answer may be a member of
//     exactly one facet's value (the facet holds it: `counts:
//     {high_water_mark, ...}`); when the Maintains declares one field and
//     the answer gives facets but not that field, the field names the
//     whole truth and is assembled as the object of the facets given, so
//     that both forms give the same truth;
//   - any other field missing is an error naming the fields and the
//     facets, and so is an answer holding no field and no facet (a
//     misspelt member is never taken for a value).
//
// Members the Maintains does not declare are kept as given.

// HasFacets reports whether n's ### Maintains declares `####` facets.
func HasFacets(n *spec.Spec) bool {
	for _, o := range n.Outputs {
		if o.Facet {
			return true
		}
	}
	return false
}

// Truth applies the return rule of a ### Maintains with facets to v, the
// value a render or an Execution gave.
func Truth(n *spec.Spec, v delegation.Value) (*delegation.Object, error) {
	var fields, facets []string
	for _, o := range n.Outputs {
		if o.Facet {
			facets = append(facets, o.Name)
		} else {
			fields = append(fields, o.Name)
		}
	}
	o, isObj := v.(*delegation.Object)
	if !isObj {
		if len(fields) != 1 {
			return nil, truthError(n, v, fields, facets, nil)
		}
		o = delegation.NewObject()
		o.Set(fields[0], v)
	}
	if countKeys(o, fields)+countKeys(o, facets) == 0 {
		return nil, truthError(n, v, fields, facets, fields)
	}
	out := delegation.NewObject()
	for _, k := range o.Keys() {
		x, _ := o.Get(k)
		out.Set(k, x)
	}
	for _, p := range facets {
		if _, ok := o.Get(p); !ok {
			if x, ok := memberOfOne(o, fields, p); ok {
				out.Set(p, x)
			}
		}
	}
	var missing []string
	for _, f := range fields {
		if _, ok := o.Get(f); ok {
			continue
		}
		if _, ok := memberOfOne(o, facets, f); ok {
			continue
		}
		missing = append(missing, f)
	}
	if len(fields) == 1 && len(missing) == 1 {
		if given := present(o, facets); len(given) > 0 {
			parts := delegation.NewObject()
			for _, p := range given {
				x, _ := o.Get(p)
				parts.Set(p, x)
			}
			out.Set(fields[0], parts)
			missing = nil
		}
	}
	if len(missing) > 0 {
		return nil, truthError(n, v, fields, facets, missing)
	}
	return out, nil
}

func countKeys(o *delegation.Object, names []string) int {
	n := 0
	for _, k := range names {
		if _, ok := o.Get(k); ok {
			n++
		}
	}
	return n
}

// memberOfOne is member k of the one value among o's members names
// that is an object holding it; ok is false when none or several do.
func memberOfOne(o *delegation.Object, names []string, k string) (v delegation.Value, ok bool) {
	found := 0
	for _, name := range names {
		x, _ := o.Get(name)
		if xo, isObj := x.(*delegation.Object); isObj {
			if m, has := xo.Get(k); has {
				v, found = m, found+1
			}
		}
	}
	return v, found == 1
}

func present(o *delegation.Object, names []string) []string {
	var out []string
	for _, k := range names {
		if _, ok := o.Get(k); ok {
			out = append(out, k)
		}
	}
	return out
}

func quoted(names []string) string {
	q := make([]string, len(names))
	for i, s := range names {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func truthError(n *spec.Spec, v delegation.Value, fields, facets, missing []string) error {
	got := delegation.TypeName(v)
	if _, ok := v.(*delegation.Object); ok {
		got = "an object without the field(s) " + quoted(missing) + " (as members, or inside one facet)"
		if len(fields) == 0 {
			got = "an object with none of its facets"
		}
	}
	want := "its whole truth (the fields " + quoted(fields) + ") or only its facets (" + quoted(facets) + ")"
	if len(fields) == 0 {
		want = "its facets (" + quoted(facets) + ")"
	}
	return fmt.Errorf("%s: %s returns %s: return %s", n.File.Position(nodePos(n)), n.Name, got, want)
}
