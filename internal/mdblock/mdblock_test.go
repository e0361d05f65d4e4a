package mdblock

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/yuin/goldmark/ast"
	gmparser "github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/proselang/prose/internal/testenv"
)

// cases are shapes whose blocks change as later lines arrive, or where
// goldmark's block pass has a rule of its own: setext headings over
// paragraphs and lists, tight and loose lists, empty items, lazy
// continuations, quotes, fences in items, indented code.
var cases = []string{
	"Title\n=====\n\ntext\n",
	"a\nb\n---\nc\n",
	"- a\n- b\n\n  more\n- c\n",
	"- a\n- b\n- c\n",
	"1. one\n   two\n2. three\n\n> quote\nlazy\n\n> - x\n>   y\n",
	"# h1 #\n## h2\n\n    code\n\n```prose\nlet x = 1\n```\n",
	"- item\n  Sub\n  ---\n  after\n",
	"para\n\n***\n\ntext  \nbreak\\\nend",
	"> a\n> ===\n\n- b\n  ===\n",
	"",
	"\n\n   \n",
	"-\n\n  foo\n",
	"-\n-\n\n   -\n",
	"- a\n - b\n  - c\n   - d\n    - e\n",
	"1) a\n2. b\n3) c\n",
	"* a\n* * *\n* b\n",
	"- a\n- - -\nb\n- c\n",
	"text\n- - -\n",
	"para\n2. two\n1. one\n",
	"para\n-\n- x\n",
	"- a\n\n      code\n\n- b\n",
	"```\nno close\n",
	"  ```go\n  a\n b\nc\n  ```\n",
	"~~~ info `x`\n~~~\n``` a`b\n```\n",
	"#\n##  \n### a ###\n#### b#\n####### c\n#5\n##\t\n",
	"    a\n\n\n    b\n  \nc",
	"> a\n>\n> b\n>c\n   > d\n    > e\n",
	"- a\n  > q\n  lazy\n- b\n",
	"para\n    not code\n",
	"* a\n\n\n* b\n",
	"- a\n  - b\n\n  c\n",
	"1. a\n\n   b\n10. c\n",
	"# T\n\nText.\n\n## Requires\n\n- `x`: a thing\n  continued\n- `y`: another\n\n## Delegation\n\n```prose\nlet a = 1\n```\n",
	"a\r\nb\r\n\r\n- c\r\n- d\r\n",
	"---\n---\n",
	"===\n",
	"a\n   ===\n    ---\n",
	"- \n  a\n",
	"-   \n",
	"1.\n",
	"- a\n-\n- b",
	"> ```\n> a\n\nb\n",
	"- ```\n  a\n- b\n",
}

var plain = gmparser.NewParser(gmparser.WithBlockParsers(gmparser.DefaultBlockParsers()...))

// TestMatchesGoldmark checks that Parse's block tree is goldmark's block
// parse, node for node, on the cases above and on every spec file of the
// repository (std/, testdata/) and of the corpus beside it.
func TestMatchesGoldmark(t *testing.T) {
	for i, c := range cases {
		check(t, fmt.Sprint("case ", i), []byte(c))
	}
	root := testenv.MustRoot(t)
	files := specFiles(t, filepath.Join(root, "std"))
	files = append(files, specFiles(t, filepath.Join(root, "testdata"))...)
	if len(files) == 0 {
		t.Fatal("no spec files in std/ and testdata/")
	}
	corpus := filepath.Join(root, "..", "shared", "corpus")
	if st, err := os.Stat(corpus); err == nil && st.IsDir() {
		files = append(files, specFiles(t, corpus)...)
	} else {
		t.Run("corpus", func(t *testing.T) { testenv.Corpus015(t, "") })
	}
	declined := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !check(t, f, src) {
			declined++
		}
	}
	t.Logf("%d spec files, %d left to goldmark", len(files), declined)
}

// check compares Parse with goldmark on src, from its start and from the
// end of its first line (as after a front matter), and reports whether
// Parse took the source. When it declines, the source must hold what it
// leaves to goldmark.
func check(t *testing.T, name string, src []byte) bool {
	t.Helper()
	took := true
	from := bytes.IndexByte(src, '\n') + 1
	for _, from := range []int{0, from} {
		doc, ok := Parse(src, from)
		if !ok {
			took = false
			if !mayDecline(src[from:]) {
				t.Errorf("%s: declined from %d, with no tab and no <", name, from)
			}
			continue
		}
		blank := append([]byte(nil), src...)
		for i := range from {
			if blank[i] != '\n' {
				blank[i] = ' '
			}
		}
		want := dump(plain.Parse(text.NewReader(blank)), src)
		if got := dump(doc, src); got != want {
			t.Errorf("%s from %d: block tree differs from goldmark's\ngot:\n%s\nwant:\n%s", name, from, got, want)
		}
		// the same tree built in the nodes of every tree before it
		reused.Lock()
		doc, ok = reused.p.Parse(src, from)
		got := ""
		if ok {
			got = dump(doc, src)
		}
		reused.Unlock()
		if got != want {
			t.Errorf("%s from %d: a reused Parser's tree differs from goldmark's (took it: %v)\ngot:\n%s\nwant:\n%s", name, from, ok, got, want)
		}
	}
	return took
}

// reused is the one Parser that check parses every source with, after
// Parse: its nodes and lines were those of the sources checked before.
var reused struct {
	sync.Mutex
	p Parser
}

// mayDecline reports whether src holds a tab or a <, without which
// Parse must not decline.
func mayDecline(src []byte) bool {
	return bytes.IndexByte(src, '\t') >= 0 || bytes.IndexByte(src, '<') >= 0
}

func specFiles(t testing.TB, dir string) []string {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzMatchesGoldmark is TestMatchesGoldmark on any input: as given, with
// its tabs turned to spaces and its < to x (so that Parse takes more
// inputs), each from its start and from the end of its first line. The
// seeds are the cases above and the library's specs (their first 4 KiB).
func FuzzMatchesGoldmark(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c))
	}
	for _, file := range specFiles(f, filepath.Join(testenv.MustRoot(f), "std")) {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src[:min(len(src), 4096)])
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 4096 {
			return
		}
		check(t, "input", src)
		src = bytes.ReplaceAll(src, []byte("\t"), []byte("  "))
		check(t, "input without tabs", bytes.ReplaceAll(src, []byte("<"), []byte("x")))
	})
}

// dump prints every block node of doc (inline nodes left out) with what
// the loader can read of it.
func dump(doc ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Type() == ast.TypeInline {
			return ast.WalkContinue, nil
		}
		depth := 0
		for p := n.Parent(); p != nil; p = p.Parent() {
			depth++
		}
		fmt.Fprintf(&b, "%*s%s pos=%d blank=%v", 2*depth, "", n.Kind(), n.Pos(), n.HasBlankPreviousLines())
		switch n := n.(type) {
		case *ast.Heading:
			fmt.Fprintf(&b, " level=%d", n.Level)
		case *ast.List:
			fmt.Fprintf(&b, " marker=%c tight=%v start=%d", n.Marker, n.IsTight, n.Start)
		case *ast.ListItem:
			fmt.Fprintf(&b, " offset=%d", n.Offset)
		case *ast.FencedCodeBlock:
			if n.Info != nil {
				s := n.Info.Segment
				fmt.Fprintf(&b, " info=[%d,%d+%d]", s.Start, s.Stop, s.Padding)
			}
		}
		for i := 0; i < n.Lines().Len(); i++ {
			s := n.Lines().At(i)
			fmt.Fprintf(&b, " [%d,%d+%d %v]", s.Start, s.Stop, s.Padding, s.ForceNewline)
		}
		b.WriteByte('\n')
		return ast.WalkContinue, nil
	})
	return b.String()
}

// TestConcurrentParses checks that parses running at once (lint's
// workers do) share nothing but the pool of parsers: each tree is the one
// a parse alone gives.
func TestConcurrentParses(t *testing.T) {
	var srcs [][]byte
	for _, f := range specFiles(t, filepath.Join(testenv.MustRoot(t), "std")) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	want := make([]string, len(srcs))
	for i, src := range srcs {
		doc, ok := Parse(src, 0)
		if !ok {
			continue
		}
		want[i] = dump(doc, src)
	}
	errs := make(chan string, 4*len(srcs))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for k := range srcs {
				i := (k + w*len(srcs)/4) % len(srcs)
				if doc, ok := Parse(srcs[i], 0); ok && dump(doc, srcs[i]) != want[i] {
					errs <- fmt.Sprintf("file %d: a concurrent parse differs", i)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
