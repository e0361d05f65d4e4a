// Package testenv locates what the tests of every package share: the
// module root (for testdata/) and the real-world spec corpus that may lie
// beside the repository at ../shared/corpus/openprose-0.11/patterns.
// Tests that need the corpus skip cleanly when it is absent, as it is on a
// user's machine; when the environment variable CI is set (as .ci/run and
// CI services set it) they fail instead, so a CI that lost the corpus does
// not pass by skipping.
//
// Entry points: Root, MustRoot, CorpusDir, Corpus, CorpusFile, Corpus015,
// WatchOpens (the opens of the files of a directory, as strace counts).
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

// Corpus is CorpusDir, skipping the test when the corpus is absent, or
// failing it when CI is set (see InCI).
func Corpus(t testing.TB) string {
	t.Helper()
	dir := CorpusDir()
	if dir == "" {
		absent(t)
	}
	return dir
}

// InCI reports whether the environment variable CI is set to anything but
// "" or "false": under CI a missing corpus is a failure, not a skip.
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false" && v != "0"
}

// Corpus015 is the folder sub of the OpenProse 0.15 corpus
// (../shared/corpus/openprose-0.15/SUB: "smoke", "roles", "patterns", or
// "" for the whole set), skipping the test when it is absent, or failing
// it when CI is set.
func Corpus015(t testing.TB, sub string) string {
	t.Helper()
	root := MustRoot(t)
	dir := filepath.Join(root, "..", "shared", "corpus", "openprose-0.15", sub)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		missing(t, "the 0.15 corpus (../shared/corpus/openprose-0.15/"+sub+")")
	}
	return dir
}

// absent skips t (or fails it under CI) because the corpus is missing.
func absent(t testing.TB) {
	t.Helper()
	missing(t, "the spec corpus (../shared/corpus/openprose-0.11/patterns)")
}

// missing skips t, or fails it under CI, because what is missing.
func missing(t testing.TB, what string) {
	t.Helper()
	msg := what + " is not present"
	if InCI() {
		t.Fatal(msg + "; CI is set, so tests that need it fail rather than skip")
	}
	t.Skip(msg)
}

// CorpusFile is the path of the corpus pattern NAME (without .prose.md),
// skipping the test when the corpus is absent.
func CorpusFile(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(Corpus(t), name+".prose.md")
}
