package spec

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// A facet is a `#### name` sub-heading inside a Contract Markdown
// ### Maintains (a named part of the maintained truth) or ### Requires (a
// need for such a part). Under the 0.15 rules each facet is an output
// (Maintains) or an input (Requires) named like it, described by the text
// under it; the contract items of the section (its bullets before the
// first facet) are read as well, and lists under a facet describe that
// facet, not more outputs.
type facet struct {
	name, desc string
	pos        int
}

// facets splits sec into the blocks before its first `####` facet
// heading and its facets. Only Contract Markdown Maintains and Requires
// have facets; for any other section head is every block.
func (l *loader) facets(sec *section) (head []ast.Node, fs []facet) {
	h := strings.ToLower(strings.Join(strings.Fields(sec.Heading), " "))
	if !l.s.Contract || h != "maintains" && h != "requires" {
		return sec.blocks, nil
	}
	cur := -1
	for _, b := range sec.blocks {
		if hd, ok := b.(*ast.Heading); ok && hd.Level == sec.level+1 {
			name := strings.Trim(l.joinLines(hd, " "), "`")
			if isIdent(strings.ReplaceAll(name, "-", "_")) {
				fs = append(fs, facet{name: name, pos: l.headingPos(hd) + strings.Index(l.joinLines(hd, " "), name)})
				cur = len(fs) - 1
				continue
			}
		}
		if cur < 0 {
			head = append(head, b)
			continue
		}
		if p, ok := b.(*ast.Paragraph); ok {
			fs[cur].desc = strings.TrimSpace(fs[cur].desc + " " + l.joinLines(p, " "))
		}
	}
	return head, fs
}

// headItems returns the top-level list items among blocks.
func headItems(blocks []ast.Node) []*ast.ListItem {
	var out []*ast.ListItem
	for _, b := range blocks {
		if list, ok := b.(*ast.List); ok {
			out = appendItems(out, list)
		}
	}
	return out
}
