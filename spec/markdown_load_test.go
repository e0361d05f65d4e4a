package spec

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// TestMdblockLoadsAsGoldmark checks that the loader reads every spec file
// of std/, testdata/ and the corpus beside the repository (../shared/corpus)
// the same with mdblock as with goldmark's own block parser: the same
// Spec, field for field, the same diagnostics, the same JSON (what prose
// show prints), and, for tests, the same test file. prose lint and prose
// show print what they print from these alone (no Markdown node leaves
// this package), so their output is the same bytes either way.
func TestMdblockLoadsAsGoldmark(t *testing.T) {
	root := testenv.MustRoot(t)
	dirs := []string{filepath.Join(root, "std"), filepath.Join(root, "testdata")}
	corpus := filepath.Join(root, "..", "shared", "corpus")
	if st, err := os.Stat(corpus); err == nil && st.IsDir() {
		dirs = append(dirs, corpus)
	} else {
		t.Run("corpus", func(t *testing.T) { testenv.Corpus015(t, "") })
	}
	files := 0
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".prose.md") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files++
			sameLoad(t, p, src)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 50 {
		t.Fatalf("%d spec files found under std/ and testdata/; expected the library and the fixtures", files)
	}
}

func sameLoad(t *testing.T, name string, src []byte) {
	t.Helper()
	got, gotDiags := parse(name, src, false)
	want, wantDiags := parse(name, src, true)
	if gotDiags.String() != wantDiags.String() {
		t.Errorf("%s: diagnostics differ\nmdblock:\n%s\ngoldmark:\n%s", name, gotDiags, wantDiags)
	}
	gj, gerr := got.JSON()
	wj, werr := want.JSON()
	if !bytes.Equal(gj, wj) || (gerr == nil) != (werr == nil) {
		t.Errorf("%s: JSON differs\nmdblock:\n%s (%v)\ngoldmark:\n%s (%v)", name, gj, gerr, wj, werr)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotDiags, wantDiags) {
		t.Errorf("%s: the loaded spec differs (JSON and diagnostics printed alike)", name)
	}
	if got.Kind == "test" {
		gt, gd := ReadTest(got)
		wt, wd := ReadTest(want)
		if !reflect.DeepEqual(gt, wt) || gd.String() != wd.String() {
			t.Errorf("%s: the test file read differs", name)
		}
	}
}
