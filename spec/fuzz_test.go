package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// seedFiles lists the spec files that seed the fuzzer and the benchmarks:
// the repository's fixtures and library, and the corpus when present.
func seedFiles(t testing.TB) []string {
	root := testenv.MustRoot(t)
	var files []string
	for _, pat := range []string{"testdata/spec/*.prose.md", "testdata/spec/*/*.prose.md", "std/patterns/*.prose.md", "std/roles/*.prose.md", "testdata/run/*.prose.md"} {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		files = append(files, m...)
	}
	return append(files, corpusFilesOrNil()...)
}

// FuzzParse checks that Parse never panics, that every diagnostic lies
// inside the file and that every code line's offset points at its text.
func FuzzParse(f *testing.F) {
	for _, file := range seedFiles(f) {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(""))
	f.Add([]byte(contractSrc))
	f.Add([]byte("---\nname: f\nkind: function\n---\n## a\n### Patterns\n```yaml\n- name: x\n  pattern: p\n  with: [1]\n```\n"))
	f.Add([]byte("---\n"))
	f.Add([]byte("---\nname: f\nkind: function\n---\n### Parameters\n- `a` (int): x\n- `b`: y. Defaults to `true`.\n- `c`: 2s\n- `d`: string -- (optional, default 3) z\n- `e` (integr): w\n### Returns\n- `r` (list): a\n- `r`: again\n"))
	f.Add([]byte("---\nname: p\nkind: pattern\nversion: 0.15.0\n---\n### Requires\n- `t`: topic, default: fast\n### Slots\n- `w` (primary): returns `{d: string}`\n- `v`: requires x\n### Excution\n"))
	f.Add([]byte("---\nname: x\n---\n### Delegation\n- a\n\n  ```prose\n  let x = 1\n"))
	f.Add([]byte("---\nname: p\nkind: pattern\n---\n### Requires\n- `s` (string[], default: a, b, optional): x\n- Pattern instance receives:\n    t: string[] -- (optional, default a,'b') y\n- u: integer -- z\n* `v`: w\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		s, diags := Parse("fuzz.prose.md", src)
		if s == nil || s.File == nil {
			t.Fatal("nil spec")
		}
		checkPositions(t, s, diags)
		for _, d := range diags {
			if d.Code == CodeInternal {
				t.Errorf("parser failure: %v", d)
			}
		}
		_ = s.Decls()
		if _, err := s.JSON(); err != nil {
			t.Errorf("JSON: %v", err)
		}
	})
}

// A default read from an item's text is a part of that text, however the
// text is written.
func FuzzDefaultInText(f *testing.F) {
	for _, s := range []string{"Defaults to `true` for a run", "default: fast", "(default 3)", "by default the model", "default is 2s.", "DEFAULT \"a b\"", "İ default `x`", "\xff default: y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, desc string) {
		v, ok := defaultInText(desc)
		if ok && !strings.Contains(desc, v) {
			t.Fatalf("%q: default %q is not in the text", desc, v)
		}
	})
}
