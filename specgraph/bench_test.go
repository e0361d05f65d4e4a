package specgraph_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/text"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/lint"
)

// BenchmarkLintVsGoldmark lints a tree (the repository's std/ library:
// patterns, roles and the tests of them; and upstream's 0.15 tree beside
// the repository, when it is there) with one worker, as prose lint DIR
// does, and reports lint's CPU time against that of goldmark's default
// parser (blocks and inlines) over the same files, measured in
// alternating rounds so all see the same machine load, and each side's
// CPU time per round. The baseline is goldmark.New()'s parser as an
// application would use it: every block parser, every inline parser and
// the link reference definitions, over each file's whole source; lint is
// prose lint's library call, every rule, with the loading (finding and
// reading the files, the embedded library specs a tree calls or tests).
//
// Two ratios: x-goldmark-files is lint over a goldmark command's work,
// the same files found (fs.WalkDir), read (os.ReadFile) and parsed;
// x-goldmark is lint over the parse alone, of bytes read before the
// timer, which charges lint for the reading goldmark is spared.
func BenchmarkLintVsGoldmark(b *testing.B) {
	for _, tree := range []struct{ name, dir string }{
		{"std", filepath.Join(testenv.MustRoot(b), "std")},
		{"corpus015", corpus015(b)},
	} {
		if tree.dir == "" {
			continue
		}
		b.Run(tree.name, func(b *testing.B) {
			srcs := treeSources(b, tree.dir)
			md := goldmark.New()
			var linted, parsed, filed time.Duration
			for b.Loop() {
				t0 := cpuTime()
				res, err := lint.Paths([]string{tree.dir}, lint.Options{Workers: 1})
				if err != nil || res.Files != len(srcs) {
					b.Fatalf("%v; %d files linted, %d read", err, res.Files, len(srcs))
				}
				t1 := cpuTime()
				for _, src := range srcs {
					md.Parser().Parse(text.NewReader(src))
				}
				t2 := cpuTime()
				if n := len(treeSources(b, tree.dir, md)); n != len(srcs) {
					b.Fatalf("goldmark read %d files, lint %d", n, len(srcs))
				}
				t3 := cpuTime()
				linted, parsed, filed = linted+t1-t0, parsed+t2-t1, filed+t3-t2
			}
			b.ReportMetric(float64(len(srcs)), "files")
			if parsed > 0 && filed > 0 {
				b.ReportMetric(float64(linted)/float64(parsed), "x-goldmark")
				b.ReportMetric(float64(linted)/float64(filed), "x-goldmark-files")
			}
			n := float64(b.N)
			b.ReportMetric(float64(linted.Microseconds())/n, "lint-cpu-µs/op")
			b.ReportMetric(float64(parsed.Microseconds())/n, "goldmark-cpu-µs/op")
			b.ReportMetric(float64(filed.Microseconds())/n, "goldmark-files-cpu-µs/op")
		})
	}
}

func corpus015(b *testing.B) string {
	root, ok := testenv.Root()
	if !ok {
		return ""
	}
	dir := filepath.Join(root, "..", "shared", "corpus", "openprose-0.15")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	return dir
}

// treeSources reads every spec file under dir that prose lint walks; with
// md, it parses each as it reads it, as a goldmark command would.
func treeSources(b *testing.B, dir string, md ...goldmark.Markdown) [][]byte {
	var out [][]byte
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".prose.md") {
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range md {
				m.Parser().Parse(text.NewReader(src))
			}
			out = append(out, src)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return out
}
