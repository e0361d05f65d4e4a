package skilldecl

import (
	"strings"
	"testing"

	"github.com/proselang/prose/spec"
)

// A responsibility's skills apply to its inline nodes after their own; a
// skill both declare is used once.
func TestResponsibilitySkillsApplyToItsNodes(t *testing.T) {
	src := "---\nname: r\nkind: responsibility\n---\n\n# R\n\n### Goal\n\nKeep it.\n\n### Maintains\n\n- `x`: a value\n\n### Skills\n\n- ds:pdf\n- team:style\n\n## helper\n\n### Returns\n\n- `y`: a value\n\n### Skills\n\n- team:style\n- `ds:xlsx`: sheets\n"
	sp, _, err := spec.Read(strings.NewReader(src), "r.prose.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Nodes) != 1 {
		t.Fatalf("%d inline nodes", len(sp.Nodes))
	}
	var got []string
	for _, d := range ForRender(sp.Nodes[0]) {
		got = append(got, d.Text+"@"+strings.TrimPrefix(d.Position().String(), "r.prose.md:"))
	}
	if want := "team:style@29:3 ds:xlsx@30:4 ds:pdf@18:3"; strings.Join(got, " ") != want {
		t.Errorf("helper uses %v, want %s", got, want)
	}
	if n := len(ForRender(sp)); n != 2 {
		t.Errorf("the responsibility itself uses %d skills, want its own 2", n)
	}
}

func FuzzDeclared(f *testing.F) {
	f.Add("- `ds:pdf`: PDFs\n- pdf\n- a b: c\n")
	f.Add("* `ns:`\n-  `a/b\n-\n")
	f.Fuzz(func(t *testing.T, body string) {
		src := "---\nname: n\nkind: function\n---\n\n# N\n\n### Skills\n\n" + body
		sp, _, err := spec.Read(strings.NewReader(src), "n.prose.md")
		if err != nil || sp == nil {
			return
		}
		for _, d := range Declared(sp) {
			if d.Pos < 0 || int(d.Pos) > len(src) || !strings.HasPrefix(src[d.Pos:], d.Text) {
				t.Fatalf("declaration %q at %d does not start there", d.Text, d.Pos)
			}
			if code, _ := d.Problem(); code == "" {
				for _, part := range d.parts() {
					if part == "" || part == "." || strings.Contains(part, "..") || strings.ContainsAny(part, "/\\ \t:") {
						t.Fatalf("declaration %q accepted with the directory name %q", d.Text, part)
					}
				}
			}
		}
	})
}
