package spec

import (
	"slices"
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/proselang/prose/diag"
)

// sectionKeys maps a lower-cased heading to its canonical section key.
var sectionKeys = map[string]string{
	"description": "description",
	"metadata":    "metadata",
	"slots":       "slots",
	"config":      "config",
	"invariants":  "invariants",
	"shape":       "shape",
	"requires":    "requires",
	"parameters":  "requires",
	"ensures":     "ensures",
	"returns":     "ensures",
	"maintains":   "ensures",
	"delegation":  "delegation",
	"execution":   "execution",
	"errors":      "errors",
	"notes":       "notes",
}

// sectionKey looks a heading up in sectionKeys case-insensitively without
// allocating.
func sectionKey(heading string) (string, bool) {
	var buf [16]byte
	if len(heading) > len(buf) {
		return "", false
	}
	for i := 0; i < len(heading); i++ {
		c := heading[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	key, ok := sectionKeys[string(buf[:len(heading)])]
	return key, ok
}

// structure walks the document's top-level blocks: the title, the summary
// and the sections with the blocks of each.
func (l *loader) structure(doc ast.Node) {
	// One count of the top-level blocks and headings first, so that the
	// sections, the blocks of them all and the heading offsets are each
	// one allocation a file rather than one a section and the growth of
	// every list: a section's blocks are a capped window of one array
	// (its blocks are contiguous), the sections are cut from one slab.
	nBlocks, nHeads, h1Sections := 0, 0, 0
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		nBlocks++
		if h, ok := n.(*ast.Heading); ok {
			nHeads++
			if h.Level == 1 && h.Lines().Len() > 0 && l.runSectionHeading(h) {
				h1Sections++
			}
		}
	}
	blocks := make([]ast.Node, 0, nBlocks)
	slab := make([]section, 0, nHeads)
	if nHeads > 0 {
		l.heads = make([]int, 0, nHeads)
	}
	var cur *section
	start := 0    // where cur's blocks begin in blocks
	secLevel := 0 // heading level of the first section
	titleSeen := false
	owner := l // the loader of the node the next section belongs to
	var deep []deepHeading
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			if h.Level == 1 && !titleSeen && cur == nil && h.Lines().Len() > 0 && (h1Sections < 2 || !l.runSectionHeading(h)) {
				titleSeen = true
				l.s.Title = l.joinLines(h, " ")
				continue
			}
			if l.isNodeHeading(h, secLevel) {
				owner, cur = l.newNode(h), nil
				continue
			}
			if l.isSectionHeading(h, secLevel) {
				if secLevel == 0 {
					secLevel = h.Level
				}
				if owner == l && l.sections == nil {
					// sized here, not above: a Spec without sections keeps
					// a nil list
					l.s.Sections = make([]*Section, 0, nHeads)
					l.sections = make([]*section, 0, nHeads)
				}
				slab = append(slab, section{})
				cur = &slab[len(slab)-1]
				owner.newSection(h, cur)
				start = len(blocks)
				l.heads = append(l.heads, int(cur.Pos))
				continue
			}
			if d, ok := l.deepSection(h, owner, cur); ok {
				deep = append(deep, d)
			}
		}
		if cur != nil {
			blocks = append(blocks, n)
			cur.blocks = blocks[start:len(blocks):len(blocks)]
		} else if p, ok := n.(*ast.Paragraph); ok && titleSeen && l.s.Summary == "" {
			l.s.Summary = l.joinLines(p, " ")
		}
	}
	if !titleSeen && !(l.s.Contract && l.s.Name != "") {
		l.warnf(l.fmEnd, CodeNoTitle, "no # title heading")
	}
	l.closeBodies()
	for _, n := range l.nodes {
		n.closeBodies()
	}
	l.reportDeep(deep)
}

// deepHeading is a heading below the section level whose text names a
// section a run reads (`#### Execution`).
type deepHeading struct {
	owner   *loader
	pos     int
	level   int
	heading string // as written
	name    string // the canonical section, "Execution"
	key     string // its section key
	under   string // the heading of the section it sits in, or ""
}

// deepSection reports a heading that is no section of its own but names
// one a run reads: as written it is a subsection of the section before
// it (or of nothing), and its content is documentation.
func (l *loader) deepSection(h *ast.Heading, owner *loader, cur *section) (deepHeading, bool) {
	if h.Level <= 3 || h.Lines().Len() == 0 {
		return deepHeading{}, false
	}
	heading := l.joinLines(h, " ")
	key, known := sectionKey(heading)
	if !known {
		key, known = contractKey(heading)
	}
	if !known {
		return deepHeading{}, false
	}
	name := canonicalName(heading)
	if !runSections[name] {
		return deepHeading{}, false
	}
	d := deepHeading{owner: owner, pos: l.headingPos(h), level: h.Level, heading: heading, name: name, key: key}
	if cur != nil {
		d.under = cur.Heading
	}
	return d, true
}

// canonicalName is the canonical spelling of a known section heading
// ("execution" -> "Execution"), or "".
func canonicalName(heading string) string {
	h := strings.ToLower(strings.Join(strings.Fields(heading), " "))
	for i, c := range lowerSections {
		if c == h {
			return canonicalSections[i]
		}
	}
	return ""
}

// reportDeep makes each deep heading an error when its node has no
// section of that name: `#### Execution` under `### Returns` is a line
// of the Returns, so the function would be rendered by a model instead
// of running its Execution, and `#### Parameters` declares no input.
// Decided: inside `### Maintains` and `### Requires` a `####` heading is
// a facet (or a facet-need) whatever its name, and a node that has the
// section at its level may well document it further down, so neither is
// reported.
func (l *loader) reportDeep(deep []deepHeading) {
	for _, d := range deep {
		switch strings.ToLower(d.under) {
		case "maintains", "requires":
			continue
		}
		has := false
		for _, sec := range d.owner.sections {
			if sec.Key == d.key {
				has = true
				break
			}
		}
		if has {
			continue
		}
		where := "before any section, so it belongs to none"
		if d.under != "" {
			where = "a subsection of ### " + d.under
		}
		l.errorf(d.pos, CodeMisspeltSection, "heading %q is at level %d, %s: as written it is documentation, and the node runs without its %s; write ### %s", strings.Repeat("#", d.level)+" "+d.heading, d.level, where, d.name, d.name)
	}
}

// runSectionHeading reports whether h names a section a run reads
// (`# Parameters`). In a file with two or more such `#` headings (its
// sections written with `#`) the first is that section, as every later
// one is, not the title, so the file runs as one written with `###`; a
// single one (`# Maintains` over ### sections) stays the title.
func (l *loader) runSectionHeading(h *ast.Heading) bool {
	heading := l.joinLines(h, " ")
	_, known := sectionKey(heading)
	if !known && l.s.Contract {
		_, known = contractKey(heading)
	}
	return known && runSections[canonicalName(heading)]
}

// isSectionHeading: a known name at level 1-3, or any heading at or above
// the level of the first section (deeper unknown headings are subsections).
func (l *loader) isSectionHeading(h *ast.Heading, secLevel int) bool {
	if h.Lines().Len() == 0 {
		return false // an empty "###" line: nothing to name a section by
	}
	if _, ok := sectionKey(l.joinLines(h, " ")); ok && h.Level <= 3 {
		return true
	}
	if secLevel == 0 {
		return h.Level <= 3
	}
	return h.Level <= secLevel
}

func (l *loader) newSection(h *ast.Heading, sec *section) {
	heading := l.joinLines(h, " ")
	key, known := sectionKey(heading)
	if !known && l.s.Contract {
		key, known = contractKey(heading)
	}
	if !known {
		key = strings.ToLower(heading)
	}
	pos := l.headingPos(h)
	*sec = section{Section: Section{Heading: heading, Key: key, Known: known, Pos: diag.Pos(pos)}, level: h.Level}
	sec.BodyPos = diag.Pos(l.headingEnd(h))
	l.s.Sections = append(l.s.Sections, &sec.Section)
	l.sections = append(l.sections, sec)
	near := ""
	if !known {
		near = nearSection(heading)
	}
	named := near != "" && strings.EqualFold(strings.Join(strings.Fields(heading), " "), near)
	switch {
	case known:
	case named && !slices.Contains(kinds, l.s.Kind):
		// ### Continuity under a kind prose does not know: the kind's
		// error names the cause; "did you mean ### Continuity?" would not.
	case named && runSections[near]:
		l.errorf(pos, CodeMisspeltSection, "section %q is not read in a spec of kind: %s: as written it is documentation (move it to the node that reads it, or drop it)", heading, l.s.Kind)
	case near != "" && runSections[near]:
		// A slip for a section a run reads (### Excution): as
		// documentation, the node would run without it (a function
		// rendered by a model instead of its program).
		l.errorf(pos, CodeMisspeltSection, "section %q is not ### %s: as written it is documentation, and the node runs without its %s; did you mean ### %s?", heading, near, near, near)
	case !l.s.Contract:
		hint := ""
		if near != "" {
			hint = "; did you mean ### " + near + "?"
		}
		l.warnf(pos, CodeUnknownSection, "unknown section %q (kept as documentation)%s", heading, hint)
	case near != "":
		// Under the 0.15 rules an unknown section is documentation; only
		// one close to a canonical name is likely a slip.
		l.warnf(pos, CodeUnknownSection, "unknown section %q (kept as documentation); did you mean ### %s?", heading, near)
	}
}

// runSections are the canonical sections whose content a run reads: a
// heading that is a slip for one is an error, not documentation.
var runSections = map[string]bool{
	"Requires": true, "Maintains": true, "Parameters": true, "Returns": true, "Continuity": true,
	"Errors": true, "Environment": true, "Execution": true, "Fixtures": true, "Expects": true,
	"Expects Not": true, "Slots": true, "Config": true, "Delegation": true, "Schedule": true,
	"Patterns": true, "Shape": true,
}

// closeBodies sets each section's Body: the raw text up to the next
// section's heading line.
func (l *loader) closeBodies() {
	heads := l.heads
	if l.root != nil {
		heads = l.root.heads
	}
	for _, sec := range l.sections {
		end := len(l.text)
		// heads are in file order: the first one past the section's
		// (a search, not a scan: a file of a million headings)
		if i := sort.SearchInts(heads, int(sec.Pos)+1); i < len(heads) {
			end = l.lineStart(heads[i])
		}
		start := min(int(sec.BodyPos), end)
		sec.BodyPos = diag.Pos(start)
		sec.Body = l.text[start:end]
	}
}

// headingPos is the offset of the heading's first # (or of its text for a
// setext heading).
func (l *loader) headingPos(h *ast.Heading) int {
	lines := h.Lines()
	if lines.Len() == 0 {
		return l.fmEnd
	}
	start := l.lineStart(lines.At(0).Start)
	i := start
	for i < len(l.text) && (l.text[i] == ' ' || l.text[i] == '\t') {
		i++
	}
	return i
}

// headingEnd is the offset of the line after the heading (after a setext
// underline too).
func (l *loader) headingEnd(h *ast.Heading) int {
	lines := h.Lines()
	last := lines.At(lines.Len() - 1)
	_, next := lineAt(l.text, l.lineStart(last.Start))
	if p := l.headingPos(h); p < len(l.text) && l.text[p] != '#' && next < len(l.text) {
		_, next = lineAt(l.text, next) // the setext underline
	}
	return next
}

// lineStart returns the offset of the start of the line holding off.
func (l *loader) lineStart(off int) int {
	if off > len(l.text) {
		off = len(l.text)
	}
	i := strings.LastIndexByte(l.text[:off], '\n')
	return i + 1
}

// joinLines joins the trimmed raw lines of a block with sep.
func (l *loader) joinLines(n ast.Node, sep string) string {
	lines := n.Lines()
	switch lines.Len() {
	case 0:
		return ""
	case 1:
		s := lines.At(0)
		return strings.TrimSpace(l.text[s.Start:s.Stop])
	}
	var b strings.Builder
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		t := strings.TrimSpace(l.text[s.Start:s.Stop])
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(t)
	}
	return b.String()
}

// foldHeading writes strings.ToLower(strings.Join(strings.Fields(h), " "))
// into buf, without allocating, when h is ASCII and the result fits; ok
// is false otherwise (the caller then folds h the long way).
func foldHeading(buf []byte, h string) (folded []byte, ok bool) {
	n, space := 0, false
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= 0x80:
			return nil, false
		case c == ' ' || '\t' <= c && c <= '\r':
			space = n > 0
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if space {
			if n == len(buf) {
				return nil, false
			}
			buf[n], n, space = ' ', n+1, false
		}
		if n == len(buf) {
			return nil, false
		}
		buf[n], n = c, n+1
	}
	return buf[:n], true
}

// headingIs reports whether heading, its words lowered and single-spaced,
// is word (a lower-case section name).
func headingIs(heading, word string) bool {
	var buf [24]byte
	if f, ok := foldHeading(buf[:], heading); ok {
		return string(f) == word
	}
	return strings.ToLower(strings.Join(strings.Fields(heading), " ")) == word
}
