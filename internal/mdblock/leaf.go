// Leaf blocks, as goldmark's block parsers make them: paragraphs, ATX and
// setext headings, thematic breaks, indented and fenced code.

package mdblock

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// paragraphs

// A paragraph in a list item is a TextBlock from the start: goldmark
// turns it into one when its list closes tight, which most lists do, and
// closeList turns it back into a Paragraph otherwise. So the parsers tell
// a paragraph by its block's kind (kPara), not by its node's type.
func (p *parser) openPara(parent ast.Node) (ast.Node, state) {
	line := p.peekLine()
	if isBlank(line) {
		return nil, noChildren
	}
	var node ast.Node
	switch {
	case parent.Kind() != ast.KindListItem:
		node = p.newPara()
	case p.nodes != nil:
		node = p.nodes.texts.get()
	default:
		node = new(ast.TextBlock)
	}
	p.pushSeg(p.seg())
	p.advanceToEOL()
	return node, noChildren
}

func (p *parser) contPara(node ast.Node) state {
	if isBlank(p.peekLine()) {
		return closed
	}
	p.addLine(node, p.seg())
	p.advanceToEOL()
	return cont | noChildren
}

func (p *parser) closePara(b block) {
	lines := p.lines(b)
	if n := len(lines); n != 0 {
		for i := range lines {
			lines[i] = lines[i].TrimLeftSpace(p.src)
		}
		lines[n-1] = lines[n-1].TrimRightSpace(p.src)
		p.setLines(b.node, b.lo, b.lo+b.n)
		return
	}
	b.node.Parent().RemoveChild(b.node.Parent(), b.node)
}

func (p *parser) newPara() *ast.Paragraph {
	if p.nodes != nil {
		return p.nodes.paras.get()
	}
	return new(ast.Paragraph)
}

// ATX headings

func (p *parser) heading(level int) *ast.Heading {
	var h *ast.Heading
	if p.nodes != nil {
		h = p.nodes.heads.get()
	} else {
		h = new(ast.Heading)
	}
	h.Level = level
	return h
}

func (p *parser) openATX() (ast.Node, state) {
	line := p.peekLine()
	pos := p.blockOffset
	if pos < 0 {
		return nil, noChildren
	}
	i := pos
	for ; i < len(line) && line[i] == '#'; i++ {
	}
	level := i - pos
	if i == pos || level > 6 {
		return nil, noChildren
	}
	if i == len(line) {
		return p.heading(level), noChildren
	}
	l := trimLeftSpaceLength(line[i:])
	if l == 0 {
		return nil, noChildren
	}
	start := min(i+l, len(line)-1)
	node := p.heading(level)
	hl := text.NewSegment(p.start+start, p.start+len(line))
	hl = hl.TrimRightSpace(p.src)
	if hl.Len() == 0 {
		p.advanceToEOL()
		return node, noChildren
	}
	line = hl.Value(p.src)
	stop := len(line)
	if stop != 0 {
		i = stop - 1
		for ; line[i] == '#' && i > 0; i-- {
		}
		if i == 0 && line[0] == '#' {
			p.advanceToEOL()
			return node, noChildren
		}
		if i != stop-1 && isSpace(line[i]) {
			stop = i
			stop -= trimRightSpaceLength(line[0:stop])
		}
	}
	hl.Stop = hl.Start + stop
	p.pushSeg(hl)
	p.setLines(node, p.nsegs-1, p.nsegs)
	p.advanceToEOL()
	return node, noChildren
}

// setext headings

func (p *parser) openSetext(parent ast.Node) (ast.Node, state) {
	last := p.lastOpened()
	if last.node == nil || last.k != kPara || last.node.Parent() != parent {
		return nil, noChildren
	}
	c, ok := matchesSetextHeadingBar(p.peekLine())
	if !ok {
		return nil, noChildren
	}
	level := 1
	if c == '-' {
		level = 2
	}
	node := p.heading(level)
	// the bar's line, in the arena: closeSetext reads it and gives the
	// heading the paragraph's lines instead
	p.pushSeg(p.seg())
	p.setLines(node, p.nsegs-1, p.nsegs)
	p.setextPara = last.node
	return node, noChildren | requireParagraph
}

func matchesSetextHeadingBar(line []byte) (byte, bool) {
	start := 0
	end := len(line)
	space := 0
	for space < end && line[space] == ' ' {
		space++
	}
	if space > 3 {
		return 0, false
	}
	start += space
	level1 := 0
	for start+level1 < end && line[start+level1] == '=' {
		level1++
	}
	c := byte('=')
	var level2 int
	if level1 == 0 {
		for start+level2 < end && line[start+level2] == '-' {
			level2++
		}
		c = '-'
	}
	if isSpace(line[end-1]) {
		end -= trimRightSpaceLength(line[start:end])
	}
	if !((level1 > 0 && start+level1 == end) || (level2 > 0 && start+level2 == end)) {
		return 0, false
	}
	return c, true
}

func (p *parser) closeSetext(heading *ast.Heading) {
	segment := heading.Lines().At(0)
	heading.Lines().Clear()
	tmp := p.setextPara
	p.setextPara = nil
	if tmp.Lines().Len() == 0 {
		// not expected: a paragraph has lines (it loses them only to
		// goldmark's link reference definitions); Unshift below would
		// write into the arena
		p.bail = true
		next := heading.NextSibling()
		segment = segment.TrimLeftSpace(p.src)
		if next == nil || !ast.IsParagraph(next) {
			para := ast.NewParagraph()
			para.Lines().Append(segment)
			heading.Parent().InsertAfter(heading.Parent(), heading, para)
		} else {
			next.Lines().Unshift(segment)
		}
		heading.Parent().RemoveChild(heading.Parent(), heading)
		return
	}
	heading.SetPos(tmp.Lines().At(0).Start)
	heading.SetLines(tmp.Lines())
	heading.SetBlankPreviousLines(tmp.HasBlankPreviousLines())
	if tp := tmp.Parent(); tp != nil {
		tp.RemoveChild(tp, tmp)
	}
}

// thematic breaks

func (p *parser) openThematic() (ast.Node, state) {
	if isThematicBreak(p.peekLine()) {
		p.advanceToEOL()
		if p.nodes != nil {
			return p.nodes.breaks.get(), noChildren
		}
		return ast.NewThematicBreak(), noChildren
	}
	return nil, noChildren
}

func isThematicBreak(line []byte) bool {
	w := indentWidth(line)
	if w > 3 {
		return false
	}
	mark := byte(0)
	count := 0
	for i := w; i < len(line); i++ {
		c := line[i]
		if isSpace(c) {
			continue
		}
		if mark == 0 {
			mark = c
			count = 1
			if mark == '*' || mark == '-' || mark == '_' {
				continue
			}
			return false
		}
		if c != mark {
			return false
		}
		count++
	}
	return count > 2
}

// indented code

func (p *parser) openCode() (ast.Node, state) {
	line := p.peekLine()
	pos := indentPosition(line, 4)
	if pos < 0 || isBlank(line) {
		return nil, noChildren
	}
	var node *ast.CodeBlock
	if p.nodes != nil {
		node = p.nodes.codes.get()
	} else {
		node = ast.NewCodeBlock()
	}
	p.pushSeg(text.Segment{Start: p.start + pos, Stop: p.stop, ForceNewline: true})
	p.advanceToEOL()
	return node, noChildren
}

func (p *parser) contCode(node ast.Node) state {
	line := p.peekLine()
	pos := indentPosition(line, 4)
	var seg text.Segment
	switch {
	case pos < 0 && isBlank(line):
		seg = text.NewSegment(p.stop-1, p.stop)
	case pos < 0:
		return closed
	default:
		seg = text.Segment{Start: p.start + pos, Stop: p.stop, ForceNewline: true}
	}
	p.addLine(node, seg)
	p.advanceToEOL()
	return cont | noChildren
}

func (p *parser) closeCode(b block) {
	lines := p.lines(b)
	length := len(lines) - 1
	for length >= 0 && isBlank(lines[length].Value(p.src)) {
		length--
	}
	p.setLines(b.node, b.lo, b.lo+length+1)
}

// fenced code

func (p *parser) openFence() (ast.Node, state) {
	line := p.peekLine()
	pos := p.blockOffset
	if pos < 0 || (line[pos] != '`' && line[pos] != '~') {
		return nil, noChildren
	}
	fenceChar := line[pos]
	i := pos
	for ; i < len(line) && line[i] == fenceChar; i++ {
	}
	length := i - pos
	if length < 3 {
		return nil, noChildren
	}
	var info *ast.Text
	if i < len(line)-1 {
		rest := line[i:]
		left := trimLeftSpaceLength(rest)
		right := trimRightSpaceLength(rest)
		if left < len(rest)-right {
			infoStart, infoStop := p.start+i+left, p.stop-right
			value := rest[left : len(rest)-right]
			if fenceChar == '`' && bytes.IndexByte(value, '`') > -1 {
				return nil, noChildren
			} else if infoStart != infoStop && p.nodes != nil {
				info = p.nodes.infos.get()
				info.Segment = text.NewSegment(infoStart, infoStop)
			} else if infoStart != infoStop {
				info = ast.NewTextSegment(text.NewSegment(infoStart, infoStop))
			}
		}
	}
	var node *ast.FencedCodeBlock
	if p.nodes != nil {
		node = p.nodes.fences.get()
	} else {
		node = new(ast.FencedCodeBlock)
	}
	node.Info = info
	p.fence = fenceData{fenceChar, pos, length, node}
	return node, noChildren
}

func (p *parser) contFence(node ast.Node) state {
	line := p.peekLine()
	f := &p.fence
	if f.node == nil {
		p.bail = true // goldmark would fail here; not expected
		return closed
	}
	w := indentWidth(line)
	if w < 4 {
		i := w
		for ; i < len(line) && line[i] == f.char; i++ {
		}
		if i-w >= f.length && isBlank(line[i:]) {
			p.advanceToEOL()
			return closed
		}
	}
	pos := indentPosition(line, f.indent)
	if pos < 0 {
		pos = max(0, firstNonSpacePosition(line))
	}
	p.addLine(node, text.Segment{Start: p.start + pos, Stop: p.stop, ForceNewline: true})
	p.advanceToEOL()
	return cont | noChildren
}

// fenceData is the fence of an open fenced code block: its character,
// indent and length, which its closing fence must match.
type fenceData struct {
	char   byte
	indent int
	length int
	node   ast.Node
}
