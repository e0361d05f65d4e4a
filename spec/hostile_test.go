package spec

import (
	"runtime"
	"strings"
	"testing"
)

// hostileSpec is a spec just under the 4 MiB limit whose Delegation is
// one line of n nested brackets.
func hostileSpec(open, close string) []byte {
	head := "---\nname: deep\nkind: pattern\n---\n\n# Deep\n\n### Slots\n\n- `w`\n\n### Delegation\n\n```prose\nlet x = "
	tail := "\nreturn call w\n```\n"
	n := (MaxSize - len(head) - len(tail)) / 2
	return []byte(head + strings.Repeat(open, n) + strings.Repeat(close, n) + tail)
}

// A 4 MiB spec of nested brackets is refused at the nesting limit before
// the program is tokenized: one error, and loading it allocates a small
// multiple of its size (it cost 1.3 GB, 300 times its size, before).
func TestHostileNestingRefusedEarly(t *testing.T) {
	for _, br := range [][2]string{{"[", "]"}, {"(", ")"}, {"{", "}"}} {
		src := hostileSpec(br[0], br[1])
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, diags := Parse("deep.prose.md", src)
		runtime.ReadMemStats(&after)
		errs := diags.Errors()
		if len(errs) != 1 || errs[0].Code != "syntax/nesting" {
			t.Fatalf("%s: diagnostics %v", br[0], diags)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 40*uint64(len(src)) {
			t.Errorf("%s: loading %d bytes allocated %d (%.0fx its size)", br[0], len(src), alloc, float64(alloc)/float64(len(src)))
		}
	}
}

// BenchmarkHostileSpec reports what loading the 4 MiB nested-bracket spec
// costs: bytes allocated per load and as a multiple of the file's size.
func BenchmarkHostileSpec(b *testing.B) {
	src := hostileSpec("[", "]")
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		Parse("deep.prose.md", src)
	}
	runtime.ReadMemStats(&after)
	per := float64(after.TotalAlloc-before.TotalAlloc) / float64(b.N)
	b.ReportMetric(per/(1<<20), "MB-alloc/load")
	b.ReportMetric(per/float64(len(src)), "x-size")
}

// Loading a spec made of many tiny Markdown blocks (list items, headings,
// paragraphs, quotes: the shapes whose lines the loader holds back from
// goldmark's inline pass) allocates in proportion to its size: four times
// the blocks cost at most five times the memory.
func TestManyBlocksAllocateLinearly(t *testing.T) {
	head := "---\nname: many\nkind: pattern\n---\n\n# Many\n\n### Notes\n\n"
	alloc := func(src []byte) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		Parse("many.prose.md", src)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, unit := range []string{"- a\n", "#### h\n", "a\n\n", "> q\n", "1. x\n   - y\n", "t\n---\n"} {
		small := []byte(head + strings.Repeat(unit, (64<<10)/len(unit)))
		big := []byte(head + strings.Repeat(unit, (256<<10)/len(unit)))
		a, b := alloc(small), alloc(big)
		if b > 5*a {
			t.Errorf("%q: %d bytes allocated %d, %d bytes %d (%.1fx)", unit, len(small), a, len(big), b, float64(b)/float64(a))
		}
	}
}
