package spec

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// corpusFiles lists the upstream corpus next to the repository, skipping
// the test when it is absent.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	files := corpusFilesOrNil()
	if len(files) == 0 {
		t.Skipf("no spec files in the corpus (%s)", testenv.Corpus(t))
	}
	return files
}

// corpusFilesOrNil lists the corpus files, sorted; nil when absent.
func corpusFilesOrNil() []string {
	dir := testenv.CorpusDir()
	if dir == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.prose.md"))
	sort.Strings(files)
	return files
}

// testdata returns the path of a file under the repository's testdata/spec.
func testdata(t testing.TB, name string) string {
	return filepath.Join(testenv.MustRoot(t), "testdata", "spec", name)
}
