package graph

import (
	"os"
	"path/filepath"
	"slices"
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
		if got := notNode([]byte(tc.src)); got != tc.skip {
			t.Errorf("notNode(%q) = %v, want %v", tc.src, got, tc.skip)
		}
	}
}

// A node file linted alone reports the ### Maintains items that declare
// no field, as its project does: a gateway's too.
func TestLintFileMaintainsItems(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.prose.md")
	src := "---\nname: a\nkind: gateway\n---\n\n### Maintains\n\n- `events`: the events\n- `band` (string, one of low/high): the band\n- total (number): the total\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, d := range LintFile(path) {
		codes = append(codes, d.Code)
	}
	if want := []string{CodeFieldType, CodePlainField}; !slices.Equal(codes, want) {
		t.Errorf("findings %v, want %v", LintFile(path), want)
	}
}
