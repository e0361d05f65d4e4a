package graph

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/spec"
)

// FuzzRequiresItems: any Requires section reads without a panic, every
// item's position inside the file.
func FuzzRequiresItems(f *testing.F) {
	f.Add("- `counts`: the tallies *(Maintained by `feed.counts`.)*\n- prior `X`: mine\n\n#### need\nA facet.\n")
	f.Add("* a\n  b\n- `x` — y\n####\n")
	f.Fuzz(func(t *testing.T, body string) {
		src := "---\nname: r\nkind: responsibility\n---\n\n# R\n\n### Requires\n\n" + body + "\n\n### Maintains\n\n- `v`: n\n"
		s, _ := spec.Parse("r.prose.md", []byte(src))
		if s == nil {
			return
		}
		for _, it := range requiresItems(s) {
			if it.Pos < 0 || int(it.Pos) > len(src) {
				t.Fatalf("item %q at %d, outside the file", it.Name, it.Pos)
			}
		}
	})
}

// FuzzWiringFile: any wiring file is read or refused with a diagnostic.
func FuzzWiringFile(f *testing.F) {
	f.Add("a.b: c.d\nimmaterial:\n  a: [x]\n")
	f.Add("- 1\n")
	f.Add("immaterial: {a: 3}\n")
	f.Fuzz(func(t *testing.T, src string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, WiringFile), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := readWiring(dir); err != nil {
			t.Fatal(err)
		}
	})
}
