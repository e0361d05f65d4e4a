// Package mdblock is goldmark's CommonMark block pass, ported to run
// without goldmark's parser framework: the same block tree (goldmark's
// ast nodes, with the same lines, positions, heading levels, list shapes
// and blank-line flags) that goldmark's default block parsers build, and
// no inline pass.
//
// The port follows goldmark v1.8.7's parser.parseBlocks and openBlocks
// step for step, with its block parsers (setext and ATX headings,
// thematic breaks, lists and list items, indented and fenced code, block
// quotes, paragraphs) as concrete code instead of interfaces, the parse
// context's values as fields and the text reader as three offsets. What
// it does not port, it declines: Parse reports false for a source with a
// tab (tabs make goldmark track partial indentation as padding) and for
// any line on which goldmark would try its HTML block parser, and the
// caller parses with goldmark instead. Declining is decided while
// parsing, so a source without those constructs costs one pass.
package mdblock

import (
	"bytes"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Parse parses src from offset from (a line start: goldmark's reader
// advanced past the lines before it) into goldmark's block tree, or
// reports false when src holds a construct this package leaves to
// goldmark. The blocks' Lines share one array: read them, do not append
// to them. The tree is the caller's to keep; a Parser builds the same
// tree and reuses its nodes from one parse to the next.
func Parse(src []byte, from int) (ast.Node, bool) {
	p := parsers.Get().(*parser)
	defer p.release()
	return p.parse(src, from)
}

// A Parser parses as Parse does, but builds each tree in the nodes and
// line segments of the tree it built before: the tree a Parse returns
// is valid until the next Parse on the same Parser, and nothing may
// keep a node, a node's Lines or a node's value beyond it. A reader
// that reads a tree once and drops it (the spec loader) saves building
// goldmark's nodes anew for every file, which is most of the
// allocation of a parse and of the collector's work it causes. The zero
// Parser is ready to use; a Parser is not safe for concurrent use.
type Parser struct {
	p     parser
	nodes arena
}

// Parse parses src from offset from as the package's Parse does; the
// tree it returns replaces, in the same memory, the one the previous
// call returned.
func (ps *Parser) Parse(src []byte, from int) (ast.Node, bool) {
	ps.nodes.reset()
	p := &ps.p
	open, stats, all := p.open[:0], p.stats[:0], p.all
	clear(open[:cap(open)])
	// as release does, a large file's arrays are not kept
	if all.Len() > keptSegs {
		all = text.Segments{}
	}
	if cap(open) > 64 {
		open = nil
	}
	if cap(stats) > 1024 {
		stats = nil
	}
	*p = parser{open: open, stats: stats, all: all, nodes: &ps.nodes}
	doc, ok := p.parse(src, from)
	p.src, p.setextPara, p.fence = nil, nil, fenceData{}
	return doc, ok
}

func (p *parser) parse(src []byte, from int) (ast.Node, bool) {
	from = min(max(from, 0), len(src))
	if bytes.IndexByte(src[from:], '\t') >= 0 {
		return nil, false
	}
	p.src, p.n = src, len(src)
	p.line, p.start, p.stop = -1, 0, 0
	// every line goes to one block at most, so the arena holds a line's
	// segment for each line
	for need := bytes.Count(src[from:], []byte{'\n'}) + 2; p.all.Len() < need; {
		p.all.AppendAll(zeroSegs[:min(need-p.all.Len(), len(zeroSegs))])
	}
	p.advanceLine()
	for p.start < from && p.start < p.n {
		p.advanceLine()
	}
	var doc *ast.Document
	if p.nodes != nil {
		doc = p.nodes.docs.get()
	} else {
		doc = ast.NewDocument()
	}
	p.parseBlocks(doc)
	if p.bail {
		return nil, false
	}
	return doc, true
}

var parsers = sync.Pool{New: func() any { return new(parser) }}

var zeroSegs [512]text.Segment

// release clears p of what it held of one parse (the tree keeps the
// arena) and pools it. A buffer grown past a few KiB by a large file is
// dropped, not kept for the next: a file's allocations do not depend on
// what was parsed before.
func (p *parser) release() {
	clear(p.open[:cap(p.open)])
	open, stats := p.open[:0], p.stats[:0]
	if cap(open) > 64 {
		open = nil
	}
	if cap(stats) > 1024 {
		stats = nil
	}
	*p = parser{open: open, stats: stats}
	parsers.Put(p)
}

// An arena holds a Parser's nodes, by type, for the next parse to hand
// out again (what a parse builds only to decline is allocated).
type arena struct {
	docs   slab[ast.Document]
	paras  slab[ast.Paragraph]
	texts  slab[ast.TextBlock]
	heads  slab[ast.Heading]
	lists  slab[ast.List]
	items  slab[ast.ListItem]
	quotes slab[ast.Blockquote]
	codes  slab[ast.CodeBlock]
	fences slab[ast.FencedCodeBlock]
	infos  slab[ast.Text]
	breaks slab[ast.ThematicBreak]
}

func (a *arena) reset() {
	a.docs.reset()
	a.paras.reset()
	a.texts.reset()
	a.heads.reset()
	a.lists.reset()
	a.items.reset()
	a.quotes.reset()
	a.codes.reset()
	a.fences.reset()
	a.infos.reset()
	a.breaks.reset()
}

// A slab hands out zeroed values of T from one array, n of them taken.
// When they run out it starts a new array, twice as long up to slabMax
// values (the old one stays with the nodes taken from it, the new one is
// the slab's from then on). So a Parser keeps at most slabMax nodes of a
// type from one parse to the next, and a large file allocates in
// proportion to its size whatever was parsed before it.
type slab[T any] struct {
	s []T
	n int
}

const slabMax = 128

// keptSegs is the most line segments a Parser keeps for the next parse
// (a file of as many lines).
const keptSegs = 4096

func (s *slab[T]) get() *T {
	if s.n == len(s.s) {
		s.s, s.n = make([]T, min(max(8, 2*len(s.s)), slabMax)), 0
	}
	s.n++
	return &s.s[s.n-1]
}

// reset zeroes the values taken (every pointer they hold, so that the
// collector does not keep what the last tree pointed to) and takes them
// back.
func (s *slab[T]) reset() {
	clear(s.s[:s.n])
	s.n = 0
}

type kind uint8

const (
	kSetext kind = iota
	kThematic
	kList
	kItem
	kCode
	kATX
	kFence
	kQuote
	kHTML
	kPara
)

// The parsers goldmark tries for a line, by the line's first non-space
// byte: those triggered by it in priority order, then the untriggered
// ones (indented code, paragraph).
var (
	freeParsers = []kind{kCode, kPara}
	triggered   [256][]kind
)

func init() {
	add := func(ks []kind, cs string) {
		for i := range len(cs) {
			c := cs[i]
			triggered[c] = append(append([]kind(nil), ks...), freeParsers...)
		}
	}
	add([]kind{kSetext, kThematic, kList, kItem}, "-")
	add([]kind{kSetext}, "=")
	add([]kind{kThematic, kList, kItem}, "*")
	add([]kind{kThematic}, "_")
	add([]kind{kList, kItem}, "+0123456789")
	add([]kind{kATX}, "#")
	add([]kind{kFence}, "`~")
	add([]kind{kQuote}, ">")
	add([]kind{kHTML}, "<")
}

// goldmark's parser.State bits.
type state uint8

const (
	none state = 1 << iota
	hasChildren
	noChildren
	requireParagraph
	cont
	closed
)

type block struct {
	node ast.Node
	k    kind
	// a paragraph's or code block's lines so far: segs[lo:lo+n]
	lo, n int
}

type lineStat struct {
	lineNum int
	level   int
	isBlank bool
}

type parser struct {
	src []byte
	n   int

	// the reader: line number, position, end of the line (past its
	// newline). Without tabs goldmark's padding is always 0, and a
	// position's column (goldmark's LineOffset) matters only for tabs.
	line, start, stop int

	open        []block
	blockOffset int
	stats       []lineStat // reused

	// goldmark's parse context values
	skipList       bool // skipListParserKey
	emptyItemBlank bool // emptyListItemWithBlankLines
	tbPos          int  // the thematic break check's position cache
	fence          fenceData
	setextPara     ast.Node // temporaryParagraphKey

	bail bool

	nodes *arena // a Parser's, or nil: each node allocated

	// the lines of every block, in one array (one allocation a file
	// rather than one or more a block): each block's lines are a slice of
	// it, all[lo:lo+n], and nsegs of it are taken. A block's lines can
	// share the array because they are contiguous: a block gets no line
	// once the next block opens. Nothing appends to them once parsed
	// (that would write into the next block's).
	all   text.Segments
	nsegs int
}

// pushSeg takes the arena's next segment for seg.
func (p *parser) pushSeg(seg text.Segment) {
	if p.nsegs >= p.all.Len() {
		p.bail = true // not expected: a line went to two blocks
		return
	}
	p.all.Set(p.nsegs, seg)
	p.nsegs++
}

// addLine adds a line to the open paragraph or code block node (the last
// opened block).
func (p *parser) addLine(node ast.Node, seg text.Segment) {
	b := &p.open[len(p.open)-1]
	if b.node != node {
		p.bail = true // not expected: goldmark's own parsers append to node
		return
	}
	p.pushSeg(seg)
	b.n++
}

// lines are the lines b holds, in the arena.
func (p *parser) lines(b block) []text.Segment { return p.all.Sliced(b.lo, b.lo+b.n) }

// setLines gives node the arena's segments lo to hi.
func (p *parser) setLines(node ast.Node, lo, hi int) {
	segs := p.all
	segs.SetSliced(lo, hi)
	*node.Lines() = segs // not SetLines(&segs): segs would escape
}

// reader

func (p *parser) peekLine() []byte {
	if p.start >= 0 && p.start < p.n {
		return p.src[p.start:p.stop]
	}
	return nil
}

func (p *parser) seg() text.Segment { return text.Segment{Start: p.start, Stop: p.stop} }

func (p *parser) advance(k int) {
	if p.start < p.n && k < p.stop-p.start {
		p.start += k
		return
	}
	for ; k > 0 && p.start < p.n; k-- {
		if p.src[p.start] == '\n' {
			p.advanceLine()
			continue
		}
		p.start++
	}
}

// advanceToEOL moves to the line's newline, or to the end of the source
// on a last line without one (goldmark searches for the newline; its
// offset is known here).
func (p *parser) advanceToEOL() {
	if p.start >= p.n {
		return
	}
	if p.src[p.stop-1] == '\n' {
		p.start = p.stop - 1
	} else {
		p.start = p.n
	}
}

func (p *parser) advanceLine() {
	p.start = p.stop
	if p.start < 0 || p.start >= p.n {
		return
	}
	p.stop = p.n
	i := 0
	if p.src[p.start] != '\n' {
		i = bytes.IndexByte(p.src[p.start:], '\n')
	}
	if i != -1 {
		p.stop = p.start + i + 1
	}
	p.line++
}

func (p *parser) skipBlankLines() bool {
	for {
		line := p.peekLine()
		if line == nil {
			return false
		}
		if !isBlank(line) {
			return true
		}
		p.advanceLine()
	}
}

func (p *parser) lastOpened() block {
	if l := len(p.open); l != 0 {
		return p.open[l-1]
	}
	return block{}
}

// the parse loop (goldmark's parser.parseBlocks)

const (
	paragraphContinuation = iota + 1
	newBlocksOpened
	noBlocksOpened
)

func (p *parser) parseBlocks(doc ast.Node) {
	for !p.bail {
		if !p.skipBlankLines() {
			return
		}
		if p.openBlocks(doc, true) != newBlocksOpened {
			return
		}
		p.advanceLine()
		p.stats = p.stats[:0]
		for !p.bail {
			opened := p.open
			l := len(opened)
			if l == 0 {
				break
			}
			lastIndex := l - 1
			for i := range l {
				be := opened[i]
				line := p.peekLine()
				if line == nil {
					p.closeBlocks(lastIndex, 0)
					p.advanceLine()
					return
				}
				lineNum := p.line
				p.stats = append(p.stats, lineStat{lineNum, i, isBlank(line)})
				if be.k != kPara {
					st := p.cont(be)
					if st&cont != 0 {
						if st&hasChildren != 0 && i == lastIndex {
							p.openBlocks(be.node, isBlankLine(lineNum-1, i+1, p.stats))
							break
						}
						continue
					}
				}
				blank := isBlankLine(lineNum-1, i, p.stats)
				parent := doc
				if i != 0 {
					parent = opened[i-1].node
				}
				lastNode := opened[lastIndex].node
				if p.openBlocks(parent, blank) != paragraphContinuation {
					if p.open[lastIndex].node != lastNode {
						lastIndex--
					}
					p.closeBlocks(lastIndex, i)
				}
				break
			}
			p.advanceLine()
		}
	}
}

func isBlankLine(lineNum, level int, stats []lineStat) bool {
	l := len(stats)
	if l == 0 {
		return true
	}
	for i := l - 1 - level; i >= 0; i-- {
		s := stats[i]
		if s.lineNum == lineNum && s.level <= level {
			return s.isBlank
		} else if s.lineNum < lineNum {
			break
		}
	}
	return false
}

func (p *parser) closeBlocks(from, to int) {
	for i := from; i >= to; i-- {
		if p.open[i].node.Parent() != nil {
			p.close(p.open[i])
		}
	}
	if from == len(p.open)-1 {
		p.open = p.open[:to]
	} else {
		p.open = append(p.open[:to], p.open[from+1:]...)
	}
}

func (p *parser) openBlocks(parent ast.Node, blankLine bool) int {
	result := noBlocksOpened
	lastBlock := p.lastOpened()
	continuable := lastBlock.node != nil && lastBlock.k == kPara
retry:
	line := p.peekLine()
	w := indentWidth(line)
	if w >= len(line) {
		p.blockOffset = -1
	} else {
		p.blockOffset = w
	}
	if line != nil && line[0] != '\n' {
		ks := freeParsers
		if w < len(line) {
			if t := triggered[line[w]]; t != nil {
				ks = t
			}
		}
		for _, k := range ks {
			if continuable && result == noBlocksOpened && !canInterruptParagraph(k) {
				continue
			}
			if w > 3 && k != kCode {
				continue
			}
			if k == kHTML {
				p.bail = true
				return noBlocksOpened
			}
			lastBlock = p.lastOpened()
			last := lastBlock.node
			blockStart, lo := p.start, p.nsegs
			node, st := p.openK(k, parent)
			if p.bail {
				return noBlocksOpened
			}
			if node == nil {
				continue
			}
			node.SetPos(blockStart + max(p.blockOffset, 0))
			if st&requireParagraph != 0 && last == parent.LastChild() {
				p.close(lastBlock)
				p.open = p.open[:len(p.open)-1]
			}
			node.SetBlankPreviousLines(blankLine)
			if last != nil && last.Parent() == nil {
				lastPos := len(p.open) - 1
				p.closeBlocks(lastPos, lastPos)
			}
			parent.AppendChild(parent, node)
			result = newBlocksOpened
			p.open = append(p.open, block{node, k, lo, p.nsegs - lo})
			if st&hasChildren != 0 {
				parent = node
				goto retry
			}
			break
		}
	}
	if result == noBlocksOpened && continuable {
		if p.cont(lastBlock)&cont != 0 {
			result = paragraphContinuation
		}
	}
	return result
}

func canInterruptParagraph(k kind) bool { return k != kCode && k != kPara }

// dispatch to the block parsers

func (p *parser) openK(k kind, parent ast.Node) (ast.Node, state) {
	switch k {
	case kSetext:
		return p.openSetext(parent)
	case kThematic:
		return p.openThematic()
	case kList:
		return p.openList(parent)
	case kItem:
		return p.openItem(parent)
	case kCode:
		return p.openCode()
	case kATX:
		return p.openATX()
	case kFence:
		return p.openFence()
	case kQuote:
		if p.quote() {
			if p.nodes != nil {
				return p.nodes.quotes.get(), hasChildren
			}
			return ast.NewBlockquote(), hasChildren
		}
		return nil, noChildren
	case kPara:
		return p.openPara(parent)
	}
	p.bail = true
	return nil, noChildren
}

func (p *parser) cont(b block) state {
	switch b.k {
	case kSetext, kThematic, kATX:
		return closed
	case kList:
		return p.contList(b.node.(*ast.List))
	case kItem:
		return p.contItem(b.node)
	case kCode:
		return p.contCode(b.node)
	case kFence:
		return p.contFence(b.node)
	case kQuote:
		if p.quote() {
			return cont | hasChildren
		}
		return closed
	case kPara:
		return p.contPara(b.node)
	}
	p.bail = true
	return closed
}

func (p *parser) close(b block) {
	switch b.k {
	case kSetext:
		p.closeSetext(b.node.(*ast.Heading))
	case kList:
		p.closeList(b.node.(*ast.List))
	case kCode:
		p.closeCode(b)
	case kFence:
		p.setLines(b.node, b.lo, b.lo+b.n)
		if p.fence.node == b.node {
			p.fence = fenceData{}
		}
	case kPara:
		p.closePara(b)
	}
}

// bytes (goldmark's util, without tabs)

// isSpace is goldmark's util.IsSpace: tab, newline, carriage return, space.
func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

func isBlank(bs []byte) bool {
	for _, c := range bs {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// indentWidth is the count of leading spaces (util.IndentWidth's width
// and position, which agree without tabs).
func indentWidth(bs []byte) int {
	i := 0
	for i < len(bs) && bs[i] == ' ' {
		i++
	}
	return i
}

// indentPosition is util.IndentPosition without tabs: the position after
// width leading spaces, or -1 if there are fewer.
func indentPosition(bs []byte, width int) int {
	if width == 0 {
		return 0
	}
	i := 0
	for i < len(bs) && i < width && bs[i] == ' ' {
		i++
	}
	if i >= width {
		return i
	}
	return -1
}

func firstNonSpacePosition(bs []byte) int {
	for i, c := range bs {
		if c == ' ' {
			continue
		}
		if c == '\n' {
			return -1
		}
		return i
	}
	return -1
}

func trimLeftSpaceLength(bs []byte) int {
	i := 0
	for i < len(bs) && isSpace(bs[i]) {
		i++
	}
	return i
}

func trimRightSpaceLength(bs []byte) int {
	l := len(bs)
	i := l - 1
	for ; i >= 0; i-- {
		if !isSpace(bs[i]) {
			break
		}
	}
	if i < 0 {
		return l
	}
	return l - 1 - i
}
