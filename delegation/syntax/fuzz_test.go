package syntax

import (
	"strings"
	"testing"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/testenv"
)

// fuzzSeeds are small programs exercising every form and the error paths.
var fuzzSeeds = []string{
	"let s = xs\n  | filter:\n      item > 1\n  | pmap:\n      call s\n        v: item\n  | reduce(a, b):\n      a + b\nlet t = call f\n  k: 1\n  | map:\n    = =\nys = t | mapp:\n  1\n",
	"let {a, b,} = call x\nconst {c} = a\nparallel:\n  let {d} = call y\n",
	"parallel (\"any\", count: 2, on-fail: \"continue\"):\n  let a = call x\n  let b = call y\nparallel (on - fail: \"ignore\", count: n, foo: 1):\n  call z\n",
	"let x = call a\n  k: [1, 2]\n  retries 2\n  timeout 30s\n  backoff {initial: 200ms, max: 10s, multiplier: 2}\n  on_fail use {d: \"x\" + y}\n",
	"let r = parallel first for c, i in cs:\n  try:\n    return call c\n  catch as e:\n    throw e\n  finally:\n    x = 1\n",
	"loop until critic says draft is not good (max: 3) as i:\n  if x.re-check is not null and y meets z:\n    break\n  elif a doesn't proceed:\n    continue\n  else:\n    append {a, b} to l\n",
	"parallel:\n  let a = repeat n as i:\n    i\n  let b = \"\"\"x\ny\"\"\"\nrecord a in b\nx[0] = -1.5\n",
	"if x:\n\ty = 1\n        z = 1\n",
	"return {\n  a: 1\n\nlet y = 2\n",
	"catch as e:\n  x\nelse:\n  y\nfor x in xs\n  z\n",
}

// checkTree fails when a node or a diagnostic lies outside the file.
func checkTree(t *testing.T, f *diag.File, prog *Program, errs diag.List) {
	t.Helper()
	for _, d := range errs {
		if !d.Position.IsValid() || d.Offset < 0 || d.Offset > f.Size() || !strings.HasPrefix(d.Code, "syntax/") {
			t.Fatalf("diagnostic outside the file or uncoded: %+v (size %d)", d, f.Size())
		}
	}
	if len(errs) > maxErrors+1 {
		t.Fatalf("%d diagnostics: the cap is %d", len(errs), maxErrors)
	}
	Walk(prog, func(n Node) bool {
		if _, ok := n.(*Program); ok {
			return true
		}
		if p, e := n.Pos(), n.End(); p < 0 || e < p || int(e) > f.Size() {
			t.Fatalf("%T spans %d..%d outside the file of size %d", n, p, e, f.Size())
		}
		return true
	})
	_ = Dump(prog)
	checkIndex(t, prog)
}

// checkIndex fails when the resolver's Calls or Loops differ from what a
// walk of the tree finds: each node once, none the tree lacks.
func checkIndex(t *testing.T, prog *Program) {
	t.Helper()
	if !prog.indexed {
		t.Fatal("a parsed program is not indexed")
	}
	walked := &Program{Body: prog.Body} // not indexed: Calls and Loops walk
	sameNodes(t, "calls", prog.Calls(), walked.Calls())
	sameNodes(t, "loops", prog.Loops(), walked.Loops())
}

func sameNodes[N Node](t *testing.T, what string, got, want []N) {
	t.Helper()
	count := map[Node]int{}
	for _, n := range want {
		count[n]++
	}
	for _, n := range got {
		count[n]--
	}
	for n, c := range count {
		if c != 0 {
			t.Fatalf("%s: the index has %T at %d %d times less than the tree (index %d, walk %d)", what, n, n.Pos(), c, len(got), len(want))
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	if testenv.CorpusDir() != "" {
		for _, b := range corpusBlocks(f) {
			var sb strings.Builder
			for _, l := range b.lines {
				sb.WriteString(l.Text + "\n")
			}
			f.Add(sb.String())
		}
	}
	f.Fuzz(func(t *testing.T, code string) {
		prog, errs := ParseString("f.prose", code)
		checkTree(t, prog.File, prog, errs)
		// The same code inside a list item: three columns of Markdown
		// indentation that are not part of the code.
		var md strings.Builder
		var lines []Line
		md.WriteString("1. x\n")
		for _, l := range strings.Split(code, "\n") {
			off := md.Len() + 3
			md.WriteString("   " + l + "\n")
			lines = append(lines, Line{Text: l, Off: diag.Pos(off)})
		}
		file := diag.NewFile("f.prose.md", []byte(md.String()))
		prog2, errs2 := Parse(file, lines)
		checkTree(t, file, prog2, errs2)
		if Dump(prog2) != Dump(prog) || len(errs2) != len(errs) {
			t.Fatalf("list-item parse differs:\n%s\n%s\nvs\n%s\n%s", Dump(prog), errs, Dump(prog2), errs2)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	blocks := corpusBlocks(b)
	lines := 0
	for _, bl := range blocks {
		lines += len(bl.lines)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, bl := range blocks {
			if _, errs := Parse(bl.file, bl.lines); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	}
	perBlock := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(len(blocks))
	b.ReportMetric(perBlock, "ns/block")
	b.ReportMetric(float64(len(blocks)), "blocks")
	b.ReportMetric(float64(lines), "lines")
}
