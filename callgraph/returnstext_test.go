package callgraph_test

import (
	"strings"
	"testing"

	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/spec"
)

// A render's prompt carries what a function's Returns says beyond its
// outputs (a postcondition, an each item, a conditional clause), and
// nothing more when it says nothing more.
func TestRenderInfoCarriesTheReturnsClaims(t *testing.T) {
	head := "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `topic`: the topic\n\n### Returns\n\n- `report`: a research report\n"
	for _, c := range []struct {
		name, extra, want string
	}{
		{"a conditional clause", "- if research is unavailable: a partial report with why\n", "if research is unavailable: a partial report with why"},
		{"a postcondition", "- postcondition: `report` is not empty\n", "postcondition: `report` is not empty"},
		{"an each item", "- each source has: a title and a link\n", "each source has: a title and a link"},
		{"outputs alone", "- `notes`: what was left out\n", ""},
	} {
		sp, diags := spec.Parse("f.prose.md", []byte(head+c.extra))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got := callgraph.RenderInfo(sp, "f", "").ReturnsText
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: ReturnsText = %q, want it to hold %q", c.name, got, c.want)
		}
	}
}

// What a responsibility maintains reaches a model render once: the prose
// and what is nested under an item are kept, an item that only declares
// an output (listed under the outputs already) is not repeated.
func TestMaintainsTextLeavesOutTheOutputItems(t *testing.T) {
	src := "---\nname: digest\nkind: responsibility\n---\n\n# Digest\n\n### Maintains\n\nThe brief of the latest signal. Postcondition: it starts with \"digest: \".\n\n- `brief`: the brief\n- `items`: the items\n  - each item has: a title\n"
	sp, diags := spec.Parse("digest.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := callgraph.RenderInfo(sp, "digest", "").Maintains
	for _, want := range []string{"The brief of the latest signal.", "- `items`: the items", "each item has: a title"} {
		if !strings.Contains(got, want) {
			t.Errorf("Maintains = %q, want it to hold %q", got, want)
		}
	}
	if strings.Contains(got, "`brief`: the brief") {
		t.Errorf("Maintains = %q repeats the output item brief", got)
	}
	// Under a facet an item says which part its field is in: kept.
	sp, diags = spec.Parse("d.prose.md", []byte(src+"\n#### hiring\n\n- `roles`: the open roles\n"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := callgraph.RenderInfo(sp, "d", "").Maintains; !strings.Contains(got, "#### hiring\n\n- `roles`: the open roles") {
		t.Errorf("Maintains = %q, want the facet's item kept under it", got)
	}
}
