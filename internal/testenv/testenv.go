// Package testenv locates what the tests of every package share: the
// module root (for testdata/) and the real-world spec corpus that may lie
// beside the repository at ../shared/corpus/openprose-0.11/patterns.
// Tests that need the corpus skip cleanly when it is absent, as it is on a
// user's machine.
//
// Entry points: Root, MustRoot, CorpusDir, Corpus, CorpusFile.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// Root walks up from the working directory to the folder holding go.mod.
func Root() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// MustRoot is Root, failing the test when there is no module root.
func MustRoot(t testing.TB) string {
	t.Helper()
	dir, ok := Root()
	if !ok {
		t.Fatal("no go.mod above the working directory")
	}
	return dir
}

// CorpusDir is the corpus's patterns folder, or "" when it is absent.
func CorpusDir() string {
	root, ok := Root()
	if !ok {
		return ""
	}
	dir := filepath.Join(root, "..", "shared", "corpus", "openprose-0.11", "patterns")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	return dir
}

// Corpus is CorpusDir, skipping the test when the corpus is absent.
func Corpus(t testing.TB) string {
	t.Helper()
	dir := CorpusDir()
	if dir == "" {
		t.Skip("the spec corpus (../shared/corpus) is not present")
	}
	return dir
}

// CorpusFile is the path of the corpus pattern NAME (without .prose.md),
// skipping the test when the corpus is absent.
func CorpusFile(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(Corpus(t), name+".prose.md")
}
