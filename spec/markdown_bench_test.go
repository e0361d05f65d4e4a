package spec

import (
	"testing"
	"time"
)

// BenchmarkMarkdown parses the Markdown of the benchmark files (the
// corpus when present, else the repository's specs) with parseMarkdown
// (mdblock, falling back to goldmark) and with goldmarkBlocks (goldmark's
// block pass, as the loader ran it before mdblock), in alternating rounds
// so that both see the same machine load, and reports x-goldmark-blocks:
// the ratio of their CPU times. The sub-benchmarks time and count the
// allocations of each alone.
func BenchmarkMarkdown(b *testing.B) {
	srcs, size := benchSources(b)
	for _, p := range markdownParsers {
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, src := range srcs {
					p.parse(src, 0)
				}
			}
		})
	}
	b.Run("ratio", func(b *testing.B) {
		var cpu [2]time.Duration
		for b.Loop() {
			for i, p := range markdownParsers {
				t0 := cpuTime()
				for _, src := range srcs {
					p.parse(src, 0)
				}
				cpu[i] += cpuTime() - t0
			}
		}
		if cpu[1] > 0 {
			b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "x-goldmark-blocks")
		}
	})
}
