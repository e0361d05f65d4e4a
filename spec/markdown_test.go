package spec

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/mdblock"
)

// markdownCases are Markdown shapes whose blocks change as later lines
// arrive: setext headings (a paragraph turned heading), tight and loose
// lists (paragraphs turned text blocks), lazy continuations, quotes.
var markdownCases = []string{
	"Title\n=====\n\ntext\n",
	"a\nb\n---\nc\n",
	"- a\n- b\n\n  more\n- c\n",
	"- a\n- b\n- c\n",
	"1. one\n   two\n2. three\n\n> quote\nlazy\n\n> - x\n>   y\n",
	"# h1 #\n## h2\n\n    code\n\n```prose\nlet x = 1\n```\n",
	"- item\n  Sub\n  ---\n  after\n",
	"para\n<div>\nhtml\n</div>\n\n***\n\ntext  \nbreak\\\nend",
	"> a\n> ===\n\n- b\n  ===\n",
	"",
	"\n\n   \n",
}

// TestMarkdownMatchesGoldmark checks that the loader's block tree is
// goldmark's block parse node for node (kinds, positions, lines, heading
// levels, list shapes), with the inline pass left out: holding lines back
// from that pass must not change what the blocks hold.
func TestMarkdownMatchesGoldmark(t *testing.T) {
	plain := parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))
	srcs := map[string][]byte{}
	for i, c := range markdownCases {
		srcs[fmt.Sprint("case ", i)] = []byte(c)
	}
	for _, f := range seedFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = b
	}
	for name, src := range srcs {
		want := blockDump(plain.Parse(text.NewReader(src)), src)
		for _, p := range markdownParsers {
			got := blockDump(p.parse(src, 0), src)
			if got != want {
				t.Errorf("%s: %s: block tree differs from goldmark's\ngot:\n%s\nwant:\n%s", name, p.name, got, want)
			}
		}
	}
}

// markdownParsers are the loader's two ways to parse Markdown: mdblock,
// falling back to goldmark, and goldmark alone. parseMarkdown reuses one
// Parser, as a loader does from file to file: each tree is read before
// the next parse, and the tests that use these do not run in parallel.
var markdownParsers = []struct {
	name  string
	parse func(src []byte, from int) ast.Node
}{
	{"parseMarkdown", func(src []byte, from int) ast.Node { return parseMarkdown(&testParser, src, from) }},
	{"goldmarkBlocks", goldmarkBlocks},
}

var testParser mdblock.Parser

// FuzzMarkdownMatchesGoldmark is TestMarkdownMatchesGoldmark on any input.
func FuzzMarkdownMatchesGoldmark(f *testing.F) {
	for _, c := range markdownCases {
		f.Add([]byte(c))
	}
	plain := parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 4096 || deepLine(string(src)) >= 0 {
			return
		}
		fm := "---\nname: x\n---\n"
		withFM := append([]byte(fm), src...)
		blank := append([]byte(strings.Repeat(" ", 3)+"\n"+strings.Repeat(" ", 7)+"\n"+strings.Repeat(" ", 3)+"\n"), src...)
		for _, p := range markdownParsers {
			want := blockDump(plain.Parse(text.NewReader(src)), src)
			if got := blockDump(p.parse(src, 0), src); got != want {
				t.Errorf("%s: block tree differs from goldmark's\ngot:\n%s\nwant:\n%s", p.name, got, want)
			}
			// after a front matter: the tree of the file with it blanked
			want = blockDump(plain.Parse(text.NewReader(blank)), withFM)
			if got := blockDump(p.parse(withFM, len(fm)), withFM); got != want {
				t.Errorf("%s: block tree after a front matter differs\ngot:\n%s\nwant:\n%s", p.name, got, want)
			}
		}
	})
}

// blockDump prints every block node of doc (inline nodes left out) with
// its position and lines.
func blockDump(doc ast.Node, src []byte) string {
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
				fmt.Fprintf(&b, " info=%q", n.Info.Segment.Value(src))
			}
		}
		for i := 0; i < n.Lines().Len(); i++ {
			s := n.Lines().At(i)
			fmt.Fprintf(&b, " [%d,%d+%d]", s.Start, s.Stop, s.Padding)
		}
		b.WriteByte('\n')
		return ast.WalkContinue, nil
	})
	return b.String()
}

// TestFoldHeading checks the allocation-free heading fold against the
// long way, and that it declines what it cannot fold.
func TestFoldHeading(t *testing.T) {
	for _, h := range []string{"Requires", "  Expects   Not ", "expects\tnot", "MAINTAINS", "", "   ", "Ré sumé", "a very long heading that does not fit"} {
		var buf [24]byte
		want := strings.ToLower(strings.Join(strings.Fields(h), " "))
		got, ok := foldHeading(buf[:], h)
		switch {
		case ok && string(got) != want:
			t.Errorf("foldHeading(%q) = %q, want %q", h, got, want)
		case !ok && isASCII(h) && len(want) <= len(buf):
			t.Errorf("foldHeading(%q) declined an ASCII heading that fits", h)
		}
		if headingIs(h, want) != true {
			t.Errorf("headingIs(%q, %q) = false", h, want)
		}
	}
}

// TestMarkdownAfterFrontMatter checks that parsing from the end of the
// front matter gives the tree of the file with its front matter blanked
// to spaces (what goldmark was given before).
func TestMarkdownAfterFrontMatter(t *testing.T) {
	plain := parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))
	srcs := [][]byte{
		[]byte("---\nname: x\n---\n# T\n"),
		[]byte("---\nname: x\n---\n    indented\n"),
		[]byte("---\nname: x\n---\n- a\n- b\n"),
		[]byte("---\nname: x\n---\n"),
		[]byte("\ufeff---\nname: x\n---\ntext\n===\n"),
	}
	for _, f := range seedFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, b)
	}
	for _, src := range srcs {
		l := &loader{f: diag.NewFile("x.prose.md", src), src: src, text: string(src)}
		l.s = &Spec{File: l.f}
		l.frontMatter()
		if l.fmEnd == 0 {
			continue
		}
		blank := append([]byte(nil), src...)
		for i := 0; i < l.fmEnd; i++ {
			if blank[i] != '\n' {
				blank[i] = ' '
			}
		}
		want := blockDump(plain.Parse(text.NewReader(blank)), src)
		for _, p := range markdownParsers {
			if got := blockDump(p.parse(src, l.fmEnd), src); got != want {
				t.Errorf("%.40q: %s: tree differs from the blanked file's\ngot:\n%s\nwant:\n%s", src, p.name, got, want)
			}
		}
	}
}
