package spec

import (
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/proselang/prose/internal/mdblock"
)

// markdown parses the file's Markdown (see parseMarkdown) with a pooled
// mdblock.Parser, which builds the tree in the nodes of the last file it
// parsed: the loader reads the tree within its run and drops it, and
// run returns the Parser with doneMarkdown once nothing refers to the
// tree any more.
func (l *loader) markdown() ast.Node {
	if l.goldmarkOnly {
		return goldmarkBlocks(l.src, l.fmEnd)
	}
	l.md = mdParsers.Get().(*mdblock.Parser)
	return parseMarkdown(l.md, l.src, l.fmEnd)
}

// doneMarkdown gives the loader's Parser back, its tree no longer read.
func (l *loader) doneMarkdown() {
	if l.md != nil {
		mdParsers.Put(l.md)
		l.md = nil
	}
}

var mdParsers = sync.Pool{New: func() any { return new(mdblock.Parser) }}

// parseMarkdown parses src from offset from (where the Markdown starts,
// after the front matter; a line start) into goldmark's block tree, with
// internal/mdblock: goldmark's block pass ported without goldmark's
// parser framework, which builds the same tree in about half the CPU
// time (BenchmarkMarkdown). mdblock declines a file with a construct it does not port (a
// tab, an HTML block), and goldmarkBlocks parses that one. The tree is
// valid until md's next Parse.
func parseMarkdown(md *mdblock.Parser, src []byte, from int) ast.Node {
	if doc, ok := md.Parse(src, from); ok {
		return doc
	}
	return goldmarkBlocks(src, from)
}

// goldmarkBlocks parses as parseMarkdown does, with goldmark's parser:
// headings, paragraphs, lists, quotes, fences, with each block's Lines as
// goldmark sets them (offsets into src), and no inline nodes. goldmark
// starts at a blank line's run anyway, so starting it past the front
// matter parses what it parses when the front matter is blanked, without
// a copy of the file to blank.
//
// goldmark parses in two passes: blocks, then a walk of every block that
// cuts each paragraph and heading line into inline nodes (Text nodes when
// there are no inline parsers, as here). The loader reads inline text raw
// from the source, so that walk is wasted: it was a third of goldmark's
// time in the loader. The parsers below hold back the lines of each
// paragraph and heading as it closes (the block pass is over with them
// then), so the walk finds nothing to cut, and goldmarkBlocks puts them
// back once goldmark returns.
func goldmarkBlocks(src []byte, from int) ast.Node {
	held := &heldLines{held: make([]heldBlock, 0, 64)}
	pc := parser.NewContext()
	pc.Set(heldKey, held)
	r := text.NewReader(src)
	for _, seg := r.Position(); seg.Start < from && seg.Start < len(src); _, seg = r.Position() {
		r.AdvanceLine()
	}
	doc := markdownParser().Parse(r, parser.WithContext(pc))
	held.restore()
	return doc
}

// markdownParser is goldmark's CommonMark block parser without the inline
// parsers, its block parsers holding back lines (see goldmarkBlocks).
// Parsers are safe for concurrent use; the one instance is built on first
// use and never changed.
var markdownParser = sync.OnceValue(func() parser.Parser {
	bps := parser.DefaultBlockParsers()
	for i, v := range bps {
		bp := v.Value.(parser.BlockParser)
		if string(bp.Trigger()) == "-=" { // the setext heading parser
			bps[i].Value = setext{holding{bp}}
		} else {
			bps[i].Value = holding{bp}
		}
	}
	return parser.NewParser(parser.WithBlockParsers(bps...))
})

var heldKey = parser.NewContextKey()

// heldLines are the lines taken from closed blocks during one parse.
// A block's Segments are kept, emptied in place, and refilled by restore.
type heldLines struct {
	held []heldBlock
	// setext is the paragraph a setext heading underline is turning into
	// a heading: the heading copies its lines when it closes, so they are
	// not held when the paragraph closes first.
	setext ast.Node
}

func (h *heldLines) hold(n ast.Node) {
	s := n.Lines()
	if n.Parent() == nil || s.Len() == 0 { // removed, or nothing to hold
		return
	}
	h.held = append(h.held, heldBlock{s, s.Sliced(0, s.Len())})
	s.SetSliced(0, 0)
}

func (h *heldLines) restore() {
	for _, b := range h.held {
		b.segs.AppendAll(b.vals) // into the same array: what was there
	}
}

type heldBlock struct {
	segs *text.Segments
	vals []text.Segment
}

// holding is a block parser that holds back the lines of the blocks the
// inline pass would cut, once the block pass is done with them:
//   - a heading's as it closes;
//   - a paragraph's as it closes, except the paragraph of a setext
//     heading (the heading copies them) and one in a list item (a tight
//     list copies its items' paragraphs into text blocks as it closes);
//   - a list's items' paragraphs and text blocks as the list closes.
type holding struct{ parser.BlockParser }

// setext is the setext heading parser (the one parser whose blocks need a
// paragraph before them), noting the paragraph it turns into a heading.
type setext struct{ holding }

func (p setext) Open(parent ast.Node, r text.Reader, pc parser.Context) (ast.Node, parser.State) {
	n, st := p.BlockParser.Open(parent, r, pc)
	if n != nil && st&parser.RequireParagraph != 0 {
		if h, _ := pc.Get(heldKey).(*heldLines); h != nil {
			h.setext = pc.LastOpenedBlock().Node
		}
	}
	return n, st
}

func (p holding) Close(n ast.Node, r text.Reader, pc parser.Context) {
	p.BlockParser.Close(n, r, pc)
	h, _ := pc.Get(heldKey).(*heldLines)
	if h == nil {
		return
	}
	switch n := n.(type) {
	case *ast.Heading:
		h.setext = nil
		h.hold(n)
	case *ast.Paragraph:
		if _, inItem := n.Parent().(*ast.ListItem); !inItem && h.setext != n {
			h.hold(n)
		}
	case *ast.List:
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			for c := it.FirstChild(); c != nil; c = c.NextSibling() {
				switch c.(type) {
				case *ast.Paragraph, *ast.TextBlock:
					h.hold(c)
				}
			}
		}
	}
}
