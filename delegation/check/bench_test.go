package check_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/spec"
)

// checked is one program of the benchmark with what its spec declares.
type checked struct {
	prog *syntax.Program
	d    *check.Decls
}

// corpusPrograms loads the corpus's patterns and the repository's std/
// specs and returns their Delegation programs with their declarations.
func corpusPrograms(b *testing.B) []checked {
	files, _ := filepath.Glob(filepath.Join(testenv.Corpus(b), "*.prose.md"))
	std, _ := filepath.Glob(filepath.Join(testenv.MustRoot(b), "std", "*", "*.md"))
	var out []checked
	for _, fn := range append(files, std...) {
		src, err := os.ReadFile(fn)
		if err != nil {
			b.Fatal(err)
		}
		s, _ := spec.Parse(filepath.Base(fn), src)
		if s != nil && s.Delegation != nil && s.Delegation.Program != nil {
			out = append(out, checked{s.Delegation.Program, s.Decls()})
		}
	}
	if len(out) == 0 {
		b.Skip("no Delegation programs")
	}
	return out
}

// BenchmarkCheck checks every program of corpusPrograms once per op.
func BenchmarkCheck(b *testing.B) {
	progs := corpusPrograms(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range progs {
			check.Check(p.prog, p.d)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(progs)), "ns/program")
	b.ReportMetric(float64(len(progs)), "programs")
}
