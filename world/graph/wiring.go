package graph

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/proselang/prose/diag"
)

// WiringFile is the name of the wiring file a project commits at its
// root.
const WiringFile = "prose.wiring.yaml"

// Wiring is a committed wiring file: YAML whose keys `subscriber.input`
// map to `producer.part` (or `producer` for the whole truth), and whose
// optional key `immaterial` maps a node id to field names excluded from
// its fingerprints:
//
//	digest.thread-summaries: threader.rollup
//	immaterial:
//	  counter-events: [last_seen_at]
type Wiring struct {
	Path       string
	Edges      map[string]string
	Immaterial map[string][]string
}

// readWiring reads root's wiring file; nil when there is none.
func readWiring(root string) (*Wiring, diag.List, error) {
	path := filepath.Join(root, WiringFile)
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	f := diag.NewFile(path, src)
	var diags diag.List
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		diags.Errorf(f, 0, "graph/wiring", "%s is not YAML: %v", WiringFile, err)
		return nil, diags, nil
	}
	w := &Wiring{Path: path, Edges: map[string]string{}, Immaterial: map[string][]string{}}
	if len(doc.Content) == 0 {
		return w, nil, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		diags.Errorf(f, pos(f, m), "graph/wiring", "%s: want a mapping of subscriber.input: producer.facet", WiringFile)
		return w, diags, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Value == "immaterial" && v.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(v.Content); j += 2 {
				var names []string
				if err := v.Content[j+1].Decode(&names); err != nil {
					diags.Errorf(f, pos(f, v.Content[j+1]), "graph/wiring", "immaterial fields of %s: want a list of names", v.Content[j].Value)
					continue
				}
				w.Immaterial[v.Content[j].Value] = names
			}
			continue
		}
		if !strings.Contains(k.Value, ".") || v.Kind != yaml.ScalarNode {
			diags.Errorf(f, pos(f, k), "graph/wiring", "%q: want subscriber.input: producer.facet", k.Value)
			continue
		}
		w.Edges[k.Value] = v.Value
	}
	return w, diags, nil
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
