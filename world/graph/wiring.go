package graph

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/filekind"
)

// WiringFile is the name of the wiring file a project commits at its
// root.
const WiringFile = "prose.wiring.yaml"

// Wiring is a committed wiring file: YAML whose keys `subscriber.input`
// map to `producer.part` (or `producer` for the whole truth), and whose
// optional key `immaterial` maps a node to field names excluded from
// its fingerprints (nodes by id or by name; one that names no node is an
// error of the file, see checkWiring):
//
//	digest.thread-summaries: threader.rollup
//	immaterial:
//	  counter-events: [last_seen_at]
type Wiring struct {
	Path       string
	Edges      map[string]string
	Immaterial map[string][]string
	// file and at place each edge key in the file, for the errors of
	// check.
	file *diag.File
	at   map[string]diag.Pos
}

// readWiring reads root's wiring file; nil when there is none.
func readWiring(root string) (*Wiring, diag.List, error) {
	path := filepath.Join(root, WiringFile)
	src, err := filekind.ReadFile(path) // a named pipe is refused, not waited on
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	var diags diag.List
	if err != nil {
		// Said at the file, as a wiring that is not YAML is: prose lint
		// reports it too, not only the load of a drain.
		var nr *filekind.NotRegularError
		what := err.Error()
		if errors.As(err, &nr) {
			what = "it is " + filekind.Describe(nr.Mode) + ", not a regular file"
		}
		diags.Errorf(diag.NewFile(path, nil), 0, "graph/wiring", "%s cannot be read (%s): make it a file of YAML, or remove it", WiringFile, what)
		return nil, diags, nil
	}
	f := diag.NewFile(path, src)
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		diags.Errorf(f, 0, "graph/wiring", "%s is not YAML: %v", WiringFile, err)
		return nil, diags, nil
	}
	w := &Wiring{Path: path, Edges: map[string]string{}, Immaterial: map[string][]string{}, file: f, at: map[string]diag.Pos{}}
	if len(doc.Content) == 0 {
		return w, nil, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		diags.Errorf(f, pos(f, m), "graph/wiring", "%s: want a mapping of subscriber.input: producer.facet", WiringFile)
		return w, diags, nil
	}
	immaterialAt := diag.NoPos
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Value == "immaterial" && v.Kind == yaml.MappingNode {
			if immaterialAt != diag.NoPos {
				diags.Errorf(f, pos(f, k), "graph/wiring", "immaterial: appears twice (line %d, and here): YAML keeps the last, so the fields of the first would stay material; write them under one immaterial:", f.Position(immaterialAt).Line)
			}
			immaterialAt = pos(f, k)
			for j := 0; j+1 < len(v.Content); j += 2 {
				if at, dup := w.at["immaterial:"+v.Content[j].Value]; dup && at != diag.NoPos && w.Immaterial[v.Content[j].Value] != nil {
					diags.Errorf(f, pos(f, v.Content[j]), "graph/wiring", "immaterial: %s appears twice (line %d, and here): list its fields once", v.Content[j].Value, f.Position(at).Line)
					continue
				}
				var names []string
				if err := v.Content[j+1].Decode(&names); err != nil {
					diags.Errorf(f, pos(f, v.Content[j+1]), "graph/wiring", "immaterial fields of %s: want a list of names", v.Content[j].Value)
					continue
				}
				w.Immaterial[v.Content[j].Value] = names
				w.at["immaterial:"+v.Content[j].Value] = pos(f, v.Content[j])
			}
			continue
		}
		if !strings.Contains(k.Value, ".") || v.Kind != yaml.ScalarNode {
			diags.Errorf(f, pos(f, k), "graph/wiring", "%q: want subscriber.input: producer.facet", k.Value)
			continue
		}
		if first, dup := w.Edges[k.Value]; dup {
			// YAML keeps the last of two equal keys: the input would
			// read what the later line says, the earlier one unread.
			diags.Errorf(f, pos(f, k), "graph/wiring", "%s is wired twice (line %d: %s; here: %s): an input reads what one line names; keep one", k.Value, f.Position(w.at[k.Value]).Line, first, v.Value)
			continue
		}
		w.Edges[k.Value] = v.Value
		w.at[k.Value] = pos(f, k)
	}
	return w, diags, nil
}

// edge is the producer part the wiring gives input in of n (its key by
// n's id, or by its name), and whether it gives one.
func (w *Wiring) edge(n *Node, in string) (string, bool) {
	if to, ok := w.Edges[n.ID+"."+in]; ok {
		return to, true
	}
	if n.Name != "" && n.Name != n.ID {
		to, ok := w.Edges[n.Name+"."+in]
		return to, ok
	}
	return "", false
}

// check reports each edge of the wiring file that names no input of a
// node (subscriber.input, by id or name) or no producer part (decided:
// an error at its key, where it would otherwise wire nothing in silence).
func (g *Graph) checkWiring() diag.List {
	w := g.Wiring
	if w == nil {
		return nil
	}
	var diags diag.List
	for _, name := range slices.Sorted(maps.Keys(w.Immaterial)) {
		// (its fields may be members of a facet's value: not checked)
		n := g.ref(name)
		if n == nil {
			diags.Errorf(w.file, w.at["immaterial:"+name], "graph/wiring", "immaterial: %q names no node%s", name, didYouMeanNode(g, name))
			continue
		}
		// A near-miss of a field, as in a Maintains (immaterialSlips).
		for _, f := range w.Immaterial[name] {
			if n.hasPart(f) || len(n.Fields) == 0 {
				continue
			}
			if best := nearest(f, partsOf(n)); best != "" && !contains(w.Immaterial[name], best) {
				diags.Warnf(w.file, w.at["immaterial:"+name], CodeImmaterial, "immaterial: %s: `%s` is no field %s declares; did you mean `%s`? As written `%s` stays material: each change of it moves the fingerprint and wakes the subscribers",
					name, f, n.Label(), best, best)
			}
		}
	}
	inputs := map[string]string{} // subscriber id.input: the first key wiring it
	for _, k := range w.Keys() {
		var sub *Node
		var item string
		for i := strings.IndexByte(k, '.'); i > 0; i = nextDot(k, i) {
			if n := g.ref(k[:i]); n != nil {
				for _, it := range n.Items {
					if it.Name == k[i+1:] {
						sub, item = n, it.Name
					}
				}
			}
		}
		if sub == nil {
			var cands []string
			for _, n := range g.Nodes {
				for _, it := range n.Items {
					if it.Name != "" {
						cands = append(cands, n.ID+"."+it.Name)
						if n.Name != "" && n.Name != n.ID {
							cands = append(cands, n.Name+"."+it.Name)
						}
					}
				}
			}
			hint := ""
			if best := nearest(k, cands); best != "" {
				hint = fmt.Sprintf("; did you mean %s?", best)
			}
			diags.Errorf(w.file, w.at[k], "graph/wiring", "%q names no input of a node (subscriber.input, by id or name)%s", k, hint)
			continue
		}
		if other, dup := inputs[sub.ID+"."+item]; dup {
			diags.Errorf(w.file, w.at[k], "graph/wiring", "%s and %s (line %d) wire one input, %s.%s (the one by id, the other by name): keep one", k, other, w.file.Position(w.at[other]).Line, sub.Label(), item)
			continue
		}
		inputs[sub.ID+"."+item] = k
		p, part, ok := g.dotted(w.Edges[k], sub)
		if !ok {
			var cands []string
			for _, n := range g.Nodes {
				if n == sub {
					continue
				}
				whos := []string{n.ID}
				if n.Name != "" && n.Name != n.ID {
					whos = append(whos, n.Name)
				}
				for _, who := range whos {
					cands = append(cands, who)
					for _, part := range append(append([]string{}, n.Facets...), n.Fields...) {
						cands = append(cands, who+"."+part)
					}
				}
			}
			hint := ""
			if best := nearest(w.Edges[k], cands); best != "" {
				hint = fmt.Sprintf("; did you mean %s?", best)
			}
			diags.Errorf(w.file, w.at[k], "graph/wiring", "%s: %q names no node (or no part of it) that %s.%s could read: write producer or producer.part, by id or name%s", k, w.Edges[k], sub.Label(), item, hint)
			continue
		}
		// An entry for an item another rule binds is not used (the file
		// is the last rule): decided, an error where it differs from
		// what is wired, since the input reads other than the file says.
		var wired []string
		same := false
		for _, e := range g.In(sub.ID) {
			if e.Input == item && e.Rule != "wiring" {
				wired = append(wired, e.Producer+"."+e.Facet)
				same = e.Producer == p.ID && e.Facet == part
			}
		}
		sort.Strings(wired)
		if len(wired) > 0 && !(len(wired) == 1 && same) {
			named := p.ID // the whole truth is the node named alone; `feed.atomic` names nothing
			if part != Atomic {
				named += "." + part
			}
			diags.Errorf(w.file, w.at[k], "graph/wiring", "%s: %s is not used: the item's sentence already binds it to %s (%s); the file wires only items no rule binds: remove the entry, or name %s in the item (`%s`)",
				k, w.Edges[k], strings.Join(wired, ", "), sub.Spec.File.Position(g.itemPos(sub, item)), w.Edges[k], named)
		}
	}
	return diags
}

func pos(f *diag.File, n *yaml.Node) diag.Pos {
	return f.LineStart(n.Line) + diag.Pos(n.Column-1)
}

// Keys lists the wiring's edge keys, sorted.
func (w *Wiring) Keys() []string {
	var out []string
	for k := range w.Edges {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// didYouMeanNode is "; did you mean X?" for the node id or name closest
// to name, or "".
func didYouMeanNode(g *Graph, name string) string {
	var cands []string
	for _, n := range g.Nodes {
		cands = append(cands, n.ID)
		if n.Name != "" && n.Name != n.ID {
			cands = append(cands, n.Name)
		}
	}
	if best := nearest(name, cands); best != "" {
		return fmt.Sprintf("; did you mean %s?", best)
	}
	return ""
}

// itemPos is where n's Requires item named name is.
func (g *Graph) itemPos(n *Node, name string) diag.Pos {
	for _, it := range n.Items {
		if it.Name == name {
			return it.Pos
		}
	}
	return n.Spec.Pos
}
