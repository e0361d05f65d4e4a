package graph

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLintFileReadsKindAsTheLoader: a file alone skips the second load
// only when its front matter plainly names another kind; a responsibility
// without an id is warned of however its kind is written.
func TestLintFileReadsKindAsTheLoader(t *testing.T) {
	body := "\n# R\n\nKeep it.\n\n### Maintains\n\n- it holds\n"
	for _, tc := range []struct {
		front string
		warn  bool
	}{
		{"name: r\nkind: responsibility\n", true},
		{"name: r\nkind: \"responsibility\"\n", true},
		{"name: r\nkind: 'responsibility'\n", true},
		{"name: r\nkind:   responsibility   \n", true},
		{"name: r\r\nkind: responsibility\r\n", true},
		{"name: r\nkind: responsibility\nid: 01JZ8Q3V5W6X7Y8Z9A0B1C2D3E\n", false},
		{"name: r\nkind: function\n", false},
		{"name: r\nkind: pattern\n", false},
	} {
		path := filepath.Join(t.TempDir(), "r.prose.md")
		src := "---\n" + tc.front + "---\n" + body
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		ds := LintFile(path)
		if got := len(ds) == 1 && ds[0].Code == CodeMissingID; got != tc.warn {
			t.Errorf("front %q: findings %v, want the missing-id warning: %v", tc.front, ds, tc.warn)
		}
	}
	for _, tc := range []struct {
		src  string
		skip bool
	}{
		{"---\nkind: pattern\n---\n", true},
		{"---\nkind: pattern # a comment\n---\n", false},
		{"---\nkind: pattern\nkind: responsibility\n---\n", false},
		{"---\nkind:\n  responsibility\n---\n", false},
		{"---\nkind: pattern\n", false},
		{"kind: pattern\n", false},
		{"---\nname: x\n---\nkind: pattern\n", false},
	} {
		if got := notResponsibility([]byte(tc.src)); got != tc.skip {
			t.Errorf("notResponsibility(%q) = %v, want %v", tc.src, got, tc.skip)
		}
	}
}
