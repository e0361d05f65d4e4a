package spec

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// moduleRoot is the folder holding go.mod.
func moduleRoot(t testing.TB) string { return testenv.MustRoot(t) }

// corpusFiles lists the upstream corpus next to the repository, skipping
// the test when it is absent.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	files := corpusFilesOrNil(moduleRoot(t))
	if len(files) == 0 {
		t.Skipf("corpus not found at %s", corpusDir(moduleRoot(t)))
	}
	return files
}

func corpusDir(root string) string {
	return filepath.Join(root, "..", "shared", "corpus", "openprose-0.11", "patterns")
}

// corpusFilesOrNil lists the corpus files, sorted; nil when absent.
func corpusFilesOrNil(root string) []string {
	files, _ := filepath.Glob(filepath.Join(corpusDir(root), "*.prose.md"))
	sort.Strings(files)
	return files
}

// testdata returns the path of a file under the repository's testdata/spec.
func testdata(t testing.TB, name string) string {
	return filepath.Join(moduleRoot(t), "testdata", "spec", name)
}
