package lint_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/spec"
)

// BenchmarkLint lints the corpus (19 files) and a generated directory of
// 1000 spec files on disk, with the default number of workers.
func BenchmarkLint(b *testing.B) {
	b.Run("corpus", func(b *testing.B) {
		dir := testenv.Corpus(b)
		benchPaths(b, dir, 19)
	})
	b.Run("1000files", func(b *testing.B) {
		dir := b.TempDir()
		for name, f := range generated(1000) {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		benchPaths(b, dir, 1000)
	})
}

func benchPaths(b *testing.B, dir string, files int) {
	b.ReportAllocs()
	for b.Loop() {
		res, err := lint.Paths([]string{dir}, lint.Options{})
		if err != nil || res.Files != files {
			b.Fatalf("%v, %d files", err, res.Files)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(files), "ns/file")
}

// BenchmarkLintShare measures, per corpus file, the whole of lint.File
// (read, load, parse, check) and the Delegation parse plus checks alone,
// and reports the share of the latter: parsing and checking are meant to
// stay a small part of lint's time.
func BenchmarkLintShare(b *testing.B) {
	fsys := os.DirFS(testenv.Corpus(b))
	names, err := fs.Glob(fsys, "*.prose.md")
	if err != nil || len(names) == 0 {
		b.Fatalf("no corpus files: %v", err)
	}
	type loaded struct {
		s *spec.Spec
	}
	specs := make([]loaded, len(names))
	for i, n := range names {
		s, _, err := spec.LoadFS(fsys, n)
		if err != nil || s.Delegation == nil {
			b.Fatalf("%s: %v", n, err)
		}
		specs[i] = loaded{s}
	}
	progs := make([]*syntax.Program, len(specs))
	var whole, parse, chk time.Duration
	for b.Loop() {
		t0 := time.Now()
		for _, n := range names {
			if _, err := lint.File(fsys, n); err != nil {
				b.Fatal(err)
			}
		}
		t1 := time.Now()
		for i, l := range specs {
			progs[i], _ = syntax.Parse(l.s.File, l.s.Delegation.Lines)
		}
		t2 := time.Now()
		for i, l := range specs {
			check.Check(progs[i], l.s.Decls())
		}
		whole += t1.Sub(t0)
		parse += t2.Sub(t1)
		chk += time.Since(t2)
	}
	n := float64(b.N) * float64(len(names))
	b.ReportMetric(float64(whole.Nanoseconds())/n, "lint-ns/file")
	b.ReportMetric(float64(parse.Nanoseconds())/n, "parse-ns/file")
	b.ReportMetric(float64(chk.Nanoseconds())/n, "check-ns/file")
	b.ReportMetric(100*float64(parse+chk)/float64(whole), "parse+check-%")
}

// BenchmarkCheck runs only the static checks over the corpus programs.
func BenchmarkCheck(b *testing.B) {
	fsys := os.DirFS(testenv.Corpus(b))
	names, _ := fs.Glob(fsys, "*.prose.md")
	var specs []*spec.Spec
	for _, n := range names {
		s, _, err := spec.LoadFS(fsys, n)
		if err != nil || s.Delegation == nil || s.Delegation.Program == nil {
			b.Fatalf("%s: %v", n, err)
		}
		specs = append(specs, s)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range specs {
			check.Check(s.Delegation.Program, s.Decls())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(specs)), "ns/file")
}
