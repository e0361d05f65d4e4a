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
