package graph

import (
	"reflect"
	"strings"
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

// An inline node named as another file's node is qualified, and warned
// of: a --slot or a reference by the name reaches the file's node.
func TestInlineNodeNamedAsAFileNode(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"report.prose.md": node("report", "gateway", "", "- `line`: n"),
		"r.prose.md": "---\nname: r\nkind: responsibility\nid: 067NC4KG01RG50R40M30E20918\n---\n\n# R\n\n### Requires\n\n- `notes`: the notes\n- `line`: from `report`\n\n### Maintains\n\n- `brief`: text\n\n" +
			"## report\n\n### Maintains\n\n- `notes`: collected notes\n",
	})
	g, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "r.prose.md:18:1: warning: inline node report has the name of report.prose.md's node report: it is 067NC4KG01RG50R40M30E20918/report, and a --slot or a reference by the name report reaches report.prose.md's; rename one, or name this one 067NC4KG01RG50R40M30E20918/report [graph/duplicate-name]"
	if got := strings.TrimSpace(strings.ReplaceAll(diags.String(), dir+"/", "")); got != want {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", got, want)
	}
	if g.Node("067NC4KG01RG50R40M30E20918/report") == nil {
		t.Error("the inline node is not qualified")
	}
}

// An inline node with a ProseScript ### Execution is warned of at the
// section: a drain renders it by its binding or the model, not by that
// code. The file's own Execution is not.
func TestInlineExecutionIsWarnedOf(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"r.prose.md": "---\nname: r\nkind: responsibility\nid: 067NC4KG01RG50R40M30E20918\n---\n\n# R\n\n### Requires\n\n- `band`: the `band` of `classify`\n\n### Maintains\n\n- `line`: text\n\n### Execution\n\n```prose\nreturn { line: band }\n```\n\n" +
			"## classify\n\n### Maintains\n\n- `band`: text\n\n### Execution\n\n```prose\nreturn { band: \"hot\" }\n```\n",
	})
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "r.prose.md:29:1: warning: the ### Execution of classify is not run by a drain: an inline node is rendered by its binding (--slot classify=...) or, given its Execution as instructions, by the model; to have it run as written, move classify into a file of its own (classify.prose.md) [graph/inline-execution]"
	if got := diags.String(); !strings.Contains(got, want) || strings.Count(got, CodeInlineExecution) != 1 {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", got, want)
	}
}
