package spec

import (
	"os"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/text"
)

// benchFiles is the corpus when present, else the repository's own specs.
func benchFiles(b *testing.B) []string {
	files := corpusFilesOrNil()
	if len(files) == 0 {
		files = seedFiles(b)
	}
	if len(files) == 0 {
		b.Skip("no spec files")
	}
	return files
}

func benchSources(b *testing.B) (srcs [][]byte, size int64) {
	for _, f := range benchFiles(b) {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
		size += int64(len(src))
	}
	return srcs, size
}

// BenchmarkLoad parses every corpus file once per op with Parse (front
// matter, sections, structure diagnostics, Delegation parse). Besides the
// time per file it reports x-goldmark: the CPU time of Parse divided by
// that of goldmark's default parser on the same bytes, measured in
// alternating rounds after the timed loop so that both see the same load
// on a shared machine.
func BenchmarkLoad(b *testing.B) {
	srcs, size := benchSources(b)
	b.SetBytes(size)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, src := range srcs {
			Parse("bench.prose.md", src)
		}
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*len(srcs)), "ns/file")
	ratio, cpuPerFile := ratioToGoldmark(srcs, 30)
	b.ReportMetric(ratio, "x-goldmark")
	b.ReportMetric(float64(cpuPerFile.Nanoseconds()), "cpu-ns/file")
}

// ratioToGoldmark alternates rounds of Parse and of bare goldmark parsing
// and returns the ratio of their CPU times and Parse's CPU time per file.
func ratioToGoldmark(srcs [][]byte, rounds int) (ratio float64, perFile time.Duration) {
	md := goldmark.New()
	var load, gm time.Duration
	for range rounds {
		t0 := cpuTime()
		for _, src := range srcs {
			Parse("bench.prose.md", src)
		}
		t1 := cpuTime()
		for _, src := range srcs {
			md.Parser().Parse(text.NewReader(src))
		}
		t2 := cpuTime()
		load, gm = load+t1-t0, gm+t2-t1
	}
	perFile = load / time.Duration(rounds*len(srcs))
	if gm == 0 {
		return 0, perFile
	}
	return float64(load) / float64(gm), perFile
}

// BenchmarkGoldmark is the baseline: goldmark's default parser (blocks and
// inlines) over the same bytes as BenchmarkLoad.
func BenchmarkGoldmark(b *testing.B) {
	srcs, size := benchSources(b)
	b.SetBytes(size)
	b.ReportAllocs()
	md := goldmark.New()
	for b.Loop() {
		for _, src := range srcs {
			md.Parser().Parse(text.NewReader(src))
		}
	}
}

// BenchmarkLoadFiles is Load with the file reads.
func BenchmarkLoadFiles(b *testing.B) {
	files := benchFiles(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			if _, _, err := Load(f); err != nil {
				b.Fatal(err)
			}
		}
	}
}
