package graph

import (
	"reflect"
	"testing"
)

// Which inline `##` nodes are nodes of the world: those that are a
// responsibility by their own sections, in a responsibility file; not
// an inline function, not a heading of prose alone, not a node of a
// function file. An inline node is asked no `id:`.
func TestInlineNodesThatAreWorldNodes(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"r.prose.md": "---\nname: r\nkind: responsibility\nid: 067NC4KG01RG50R40M30E20918\n---\n\n# R\n\n### Requires\n\n- `notes`: the notes\n\n### Maintains\n\n- `brief`: text\n\n" +
			"## gather\n\n### Maintains\n\n- `notes`: collected notes\n\n" +
			"## about\n\n### Description\n\nWhy this file exists.\n\n" +
			"## shorten\n\n### Parameters\n\n- `text`: text\n\n### Returns\n\n- `short`: text\n",
		"f.prose.md": "---\nname: f\nkind: function\n---\n\n# F\n\n### Parameters\n\n- `x`: n\n\n### Returns\n\n- `y`: n\n\n" +
			"## keeper\n\n### Maintains\n\n- `kept`: n\n",
	})
	g, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) != 0 {
		t.Errorf("diagnostics: %s", diags)
	}
	var ids []string
	for _, n := range g.Nodes {
		ids = append(ids, n.ID)
	}
	if want := []string{"gather", "067NC4KG01RG50R40M30E20918"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("nodes %q, want %q", ids, want)
	}
	if got, want := edgeList(g), []string{"gather.notes -> 067NC4KG01RG50R40M30E20918.notes"}; !reflect.DeepEqual(got, want) {
		t.Errorf("edges %q, want %q", got, want)
	}
	if n := g.Node("gather"); n == nil || !n.Inline() || n.File != "r.prose.md" {
		t.Errorf("gather: %+v", n)
	}
	if ds := g.missingIDs(); len(ds) != 0 {
		t.Errorf("an inline node is asked an id: %s", ds)
	}
}
