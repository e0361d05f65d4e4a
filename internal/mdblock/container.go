// Container blocks, as goldmark's block parsers make them: block quotes,
// lists and list items.

package mdblock

import "github.com/yuin/goldmark/ast"

// block quotes

func (p *parser) quote() bool {
	line := p.peekLine()
	pos := indentWidth(line)
	if pos > 3 || pos >= len(line) || line[pos] != '>' {
		return false
	}
	pos++
	if pos >= len(line) || line[pos] == '\n' {
		p.advance(pos)
		return true
	}
	p.advance(pos)
	if line[pos] == ' ' {
		p.advance(1)
	}
	return true
}

// lists

type listType uint8

const (
	notList listType = iota
	bulletList
	orderedList
)

// parseListItem is goldmark's: the offsets of `^(([ ]*)([\-\*\+]))(\s+.*)?\n?$`
// or `^(([ ]*)(\d{1,9}[\.\)]))(\s+.*)?\n?$` in line (no tabs here).
func parseListItem(line []byte) ([6]int, listType) {
	i := 0
	l := len(line)
	ret := [6]int{}
	for ; i < l && line[i] == ' '; i++ {
	}
	if i > 3 {
		return ret, notList
	}
	ret[1] = i
	ret[2] = i
	var typ listType
	if i < l && (line[i] == '-' || line[i] == '*' || line[i] == '+') {
		i++
		ret[3] = i
		typ = bulletList
	} else if i < l {
		for ; i < l && line[i] >= '0' && line[i] <= '9'; i++ {
		}
		ret[3] = i
		if ret[3] == ret[2] || ret[3]-ret[2] > 9 {
			return ret, notList
		}
		if i < l && (line[i] == '.' || line[i] == ')') {
			i++
			ret[3] = i
		} else {
			return ret, notList
		}
		typ = orderedList
	} else {
		return ret, notList
	}
	if i < l && line[i] != '\n' {
		if line[i] != ' ' { // goldmark: an indent width of 0
			return ret, notList
		}
	}
	if i >= l {
		ret[4] = -1
		ret[5] = -1
		return ret, typ
	}
	ret[4] = i
	ret[5] = len(line)
	if line[ret[5]-1] == '\n' && line[i] != '\n' {
		ret[5]--
	}
	return ret, typ
}

func calcListOffset(line []byte, match [6]int) int {
	if match[4] < 0 || isBlank(line[match[4]:]) {
		return 1
	}
	offset := indentWidth(line[match[4]:])
	if offset > 4 {
		offset = 1
	}
	return offset
}

func lastOffset(node ast.Node) int {
	if c := node.LastChild(); c != nil {
		return c.(*ast.ListItem).Offset
	}
	return 0
}

func (p *parser) openList(parent ast.Node) (ast.Node, state) {
	last := p.lastOpened().node
	if _, ok := last.(*ast.List); ok || p.skipList {
		p.skipList = false
		return nil, noChildren
	}
	line := p.peekLine()
	match, typ := parseListItem(line)
	if typ == notList {
		return nil, noChildren
	}
	start := -1
	if typ == orderedList {
		start = 0
		for _, d := range line[match[2] : match[3]-1] {
			start = start*10 + int(d-'0')
		}
	}
	if p.lastOpened().k == kPara && last.Parent() == parent {
		if typ == orderedList && start != 1 {
			return nil, noChildren
		}
		if match[4] < 0 || isBlank(line[match[4]:match[5]]) {
			return nil, noChildren
		}
	}
	var node *ast.List
	if p.nodes != nil {
		node = p.nodes.lists.get()
	} else {
		node = new(ast.List)
	}
	node.Marker = line[match[3]-1]
	node.IsTight = true
	if start > -1 {
		node.Start = start
	}
	p.emptyItemBlank = false
	return node, hasChildren
}

func (p *parser) contList(list *ast.List) state {
	line := p.peekLine()
	if isBlank(line) {
		if list.LastChild().ChildCount() == 0 {
			p.emptyItemBlank = true
		}
		return cont | hasChildren
	}
	offset := lastOffset(list)
	lastIsEmpty := list.LastChild().ChildCount() == 0
	indent := indentWidth(line)
	if indent < offset || lastIsEmpty {
		if indent < 4 {
			match, typ := parseListItem(line)
			if typ != notList && match[1]-offset < 4 {
				marker := line[match[3]-1]
				if !list.CanContinue(marker, typ == orderedList) {
					return closed
				}
				isTb := false
				if p.stop > p.tbPos {
					isTb = isThematicBreak(line[match[3]-1:])
					p.tbPos = p.stop
				}
				if isTb {
					isHeading := false
					if last := p.lastOpened(); last.node != nil && last.k == kPara {
						c, ok := matchesSetextHeadingBar(line[match[3]-1:])
						if ok && c == '-' {
							isHeading = true
						}
					}
					if !isHeading {
						return closed
					}
				}
				return cont | hasChildren
			}
		}
		if !lastIsEmpty {
			return closed
		}
	}
	if lastIsEmpty && indent < offset {
		return closed
	}
	if p.emptyItemBlank {
		return closed
	}
	return cont | hasChildren
}

func (p *parser) closeList(list *ast.List) {
	for c := list.FirstChild(); c != nil && list.IsTight; c = c.NextSibling() {
		if c.FirstChild() != nil && c.FirstChild() != c.LastChild() {
			for c1 := c.FirstChild().NextSibling(); c1 != nil; c1 = c1.NextSibling() {
				if c1.HasBlankPreviousLines() {
					list.IsTight = false
					break
				}
			}
		}
		if c != list.FirstChild() && c.HasBlankPreviousLines() {
			list.IsTight = false
		}
	}
	// The items' paragraphs are TextBlocks already (see openPara).
	for child := list.FirstChild(); child != nil; child = child.NextSibling() {
		for gc := child.FirstChild(); gc != nil; gc = gc.NextSibling() {
			tb, ok := gc.(*ast.TextBlock)
			if !ok {
				continue
			}
			if list.IsTight { // goldmark's new TextBlock: no position, no blank line before
				tb.SetPos(-1)
				tb.SetBlankPreviousLines(false)
				continue
			}
			para := p.newPara()
			para.SetLines(tb.Lines())
			para.SetPos(tb.Pos())
			para.SetBlankPreviousLines(tb.HasBlankPreviousLines())
			child.ReplaceChild(child, tb, para)
			gc = para
		}
	}
}

func (p *parser) openItem(parent ast.Node) (ast.Node, state) {
	list, ok := parent.(*ast.List)
	if !ok {
		return nil, noChildren
	}
	offset := lastOffset(list)
	line := p.peekLine()
	match, typ := parseListItem(line)
	if typ == notList || match[1]-offset > 3 {
		return nil, noChildren
	}
	p.emptyItemBlank = false
	itemOffset := calcListOffset(line, match)
	var node *ast.ListItem
	if p.nodes != nil {
		node = p.nodes.items.get()
	} else {
		node = new(ast.ListItem)
	}
	node.Offset = match[3] + itemOffset
	if match[4] < 0 || isBlank(line[match[4]:match[5]]) {
		return node, noChildren
	}
	pos := indentPosition(line[match[4]:], itemOffset)
	if pos < 0 {
		p.bail = true // unreachable without tabs
		return nil, noChildren
	}
	p.advance(match[3] + pos)
	return node, hasChildren
}

func (p *parser) contItem(node ast.Node) state {
	line := p.peekLine()
	if isBlank(line) {
		p.advanceToEOL()
		return cont | hasChildren
	}
	offset := lastOffset(node.Parent())
	isEmpty := node.ChildCount() == 0 && p.emptyItemBlank
	indent := indentWidth(line)
	if (isEmpty || indent < offset) && indent < 4 {
		if _, typ := parseListItem(line); typ != notList {
			p.skipList = true
			return closed
		}
		if !isEmpty {
			return closed
		}
	}
	pos := indentPosition(line, offset)
	if pos < 0 {
		p.bail = true // goldmark steps back a byte here
		return closed
	}
	p.advance(pos)
	return cont | hasChildren
}
