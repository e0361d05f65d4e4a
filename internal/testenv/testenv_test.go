package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeTB records whether a test was skipped or failed; both stop the
// calling goroutine in the real testing.T, so these panic to unwind.
type fakeTB struct {
	testing.TB
	skipped, failed bool
}

type unwind struct{}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Skip(...any)           { f.skipped = true; panic(unwind{}) }
func (f *fakeTB) Fatal(...any)          { f.failed = true; panic(unwind{}) }
func (f *fakeTB) Skipf(string, ...any)  { f.Skip() }
func (f *fakeTB) Fatalf(string, ...any) { f.Fatal() }

func callCorpus(tb *fakeTB) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(unwind); !ok {
				panic(r)
			}
		}
	}()
	Corpus(tb)
}

// TestCorpusAbsent runs in a module without a corpus beside it: Corpus
// skips there, and fails when CI is set.
func TestCorpusAbsent(t *testing.T) {
	dir := t.TempDir()
	mod := filepath.Join(dir, "mod")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(mod)
	for _, tc := range []struct {
		ci           string
		skip, failed bool
	}{
		{"", true, false},
		{"false", true, false},
		{"true", false, true},
		{"1", false, true},
	} {
		t.Setenv("CI", tc.ci)
		var tb fakeTB
		callCorpus(&tb)
		if tb.skipped != tc.skip || tb.failed != tc.failed {
			t.Errorf("CI=%q: skipped=%v failed=%v, want skipped=%v failed=%v", tc.ci, tb.skipped, tb.failed, tc.skip, tc.failed)
		}
	}
}
