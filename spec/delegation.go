package spec

import (
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/recovered"
)

// parseDelegation parses the Delegation's code lines. A panic in the
// parser is a bug; it is turned into a diagnostic so that loading a spec
// never crashes the caller.
func parseDelegation(f *diag.File, lines []syntax.Line) (prog *syntax.Program, diags diag.List) {
	defer func() {
		if r := recover(); r != nil {
			prog, diags = nil, nil
			diags.Errorf(f, lines[0].Off, CodeInternal, "internal error parsing the Delegation: %v", recovered.Capture(r))
		}
	}()
	if at, deep := tooDeep(lines); deep {
		diags.Errorf(f, at, "syntax/nesting", "nesting deeper than %d levels: split the block or the expression", maxBracketDepth)
		return nil, diags
	}
	return syntax.Parse(f, lines)
}

// maxBracketDepth is the parser's nesting limit (package syntax refuses
// nesting deeper than 100 levels).
const maxBracketDepth = 100

// tooDeep reports the first bracket that opens more than maxBracketDepth
// levels, skipping strings and comments. A program nested that deep is
// refused by the parser anyway; refusing it here, before it is tokenized,
// keeps a hostile 4 MiB line of brackets from costing gigabytes of
// tokens (it cost 570 times the file's size).
func tooDeep(lines []syntax.Line) (diag.Pos, bool) {
	depth := 0
	triple := false
	for _, ln := range lines {
		t := ln.Text
		for i := 0; i < len(t); i++ {
			switch c := t[i]; {
			case triple:
				if strings.HasPrefix(t[i:], `"""`) {
					triple, i = false, i+2
				}
			case c == '"' && strings.HasPrefix(t[i:], `"""`):
				triple, i = true, i+2
			case c == '"':
				for i++; i < len(t) && t[i] != '"'; i++ {
					if t[i] == '\\' {
						i++
					}
				}
			case c == '#':
				i = len(t)
			case c == '(' || c == '[' || c == '{':
				if depth++; depth > maxBracketDepth {
					return ln.Off + diag.Pos(i), true
				}
			case c == ')' || c == ']' || c == '}':
				depth = max(depth-1, 0)
			}
		}
	}
	return 0, false
}

// execution reads a Contract Markdown file's ### Execution section: its
// first ```prose block is the program, run like a Delegation. An Execution
// without one is prose guidance for a render (Program stays nil).
func (l *loader) execution() {
	if !l.s.Contract {
		return
	}
	var sec *section
	for _, s := range l.sections {
		if s.Key == "execution" {
			sec = s
			break
		}
	}
	if sec == nil {
		return
	}
	d := &Delegation{Pos: sec.Pos, FencePos: diag.NoPos}
	l.s.Execution = d
	fence, other := l.findFence(sec)
	if fence == nil {
		d.Prose = strings.TrimSpace(sec.Body)
		if other == nil {
			l.unfencedExecution(sec)
		} else {
			l.unmarkedExecution(sec, other)
		}
		return
	}
	l.readFence(sec, d, fence)
	if extra := l.nextFence(sec, fence); extra != nil {
		l.warnf(l.fencePos(extra, int(sec.Pos)), CodeExtraFence, "a second ```prose block in the Execution is not run (only the first is): merge the code into the first block")
	}
}

// unfencedExecution reports an Execution with no fenced code block whose
// text is a ProseScript program (`return {greeting: "hello " + name}` on
// a line of its own, the fence forgotten): as written it is instructions
// to a model, which renders the node instead of running the program.
// Decided: an error, as for a block not marked prose; text that does not
// parse (upstream's "Read `X` by reference, ..."), or that is only names
// and values (`TBD`), stays instructions.
func (l *loader) unfencedExecution(sec *section) {
	body := strings.TrimRight(sec.Body, " \t\r\n")
	if strings.TrimSpace(body) == "" {
		return
	}
	var lines []syntax.Line
	for off := 0; off < len(body); {
		ln, next := lineAt(body, off)
		lines = append(lines, syntax.Line{Text: strings.TrimRight(ln, "\r"), Off: sec.BodyPos + diag.Pos(off)})
		off = next
	}
	prog, diags := parseDelegation(l.f, lines)
	if prog == nil || diags.HasErrors() || !slices.ContainsFunc(prog.Body, isStatement) {
		return
	}
	first := 0
	for first < len(lines) && strings.TrimSpace(lines[first].Text) == "" {
		first++
	}
	at := lines[first].Off + diag.Pos(len(lines[first].Text)-len(strings.TrimLeft(lines[first].Text, " ")))
	l.errorf(int(at), CodeDelegationFence, "the Execution is code written outside a code block, so it does not run: a model renders the node from it instead; put it in a ```prose block")
}

// isStatement reports whether st is more than a name or a value standing
// alone, which a line of prose may also be.
func isStatement(st syntax.Stmt) bool {
	x, ok := st.(*syntax.ExprStmt)
	if !ok {
		return true
	}
	_, call := x.X.(*syntax.CallExpr)
	return call
}

// unmarkedExecution reports an Execution whose code block is not marked
// prose (a bare ``` fence, or ```js) but holds a program that parses as
// one: as written it is instructions to a model, which renders the node
// instead of running the program (an answer nothing checked). Decided:
// an error; a block that does not parse (upstream's pseudo-code) stays
// instructions, as before.
func (l *loader) unmarkedExecution(sec *section, other *ast.FencedCodeBlock) {
	if other == nil {
		return
	}
	lines, code := l.codeLines(other)
	if strings.TrimSpace(code) == "" {
		return
	}
	if prog, diags := parseDelegation(l.f, lines); prog == nil || len(prog.Body) == 0 || diags.HasErrors() {
		return
	}
	marked := "is not marked with a language"
	if info := l.fenceInfo(other); info != "" {
		marked = "is marked " + quote(info)
	}
	l.errorf(l.fencePos(other, int(sec.Pos)), CodeDelegationFence, "the Execution's code block %s, so it does not run: a model renders the node from it instead; mark it ```prose", marked)
}

// delegation reads the Delegation section: the first ```prose fence (or
// ```prosescript, reported) anywhere in its blocks, also inside a list
// item, and the prose around it.
func (l *loader) delegation() {
	var sec *section
	for _, s := range l.sections {
		if s.Key == "delegation" {
			sec = s
			break
		}
	}
	if sec == nil {
		l.execution()
		return
	}
	d := &Delegation{Pos: sec.Pos, FencePos: diag.NoPos}
	l.s.Delegation = d
	fence, other := l.findFence(sec)
	if fence == nil {
		d.Prose = strings.TrimSpace(sec.Body)
		if other != nil {
			l.errorf(l.fencePos(other, int(sec.Pos)), CodeDelegationFence, "the Delegation's code block is marked %q; mark it ```prose", l.fenceInfo(other))
		} else {
			l.errorf(int(sec.Pos), CodeDelegationFence, "the Delegation section has no ```prose code block")
		}
		return
	}
	l.readFence(sec, d, fence)
	if extra := l.nextFence(sec, fence); extra != nil {
		l.warnf(l.fencePos(extra, int(sec.Pos)), CodeExtraFence, "a second ```prose block in the Delegation is not run (only the first is): merge the code into the first block")
	}
}

// nextFence returns the first prose or prosescript fence of the section
// after the chosen one, or nil.
func (l *loader) nextFence(sec *section, chosen *ast.FencedCodeBlock) *ast.FencedCodeBlock {
	var next *ast.FencedCodeBlock
	seen := false
	for _, b := range sec.blocks {
		_ = ast.Walk(b, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			fc, ok := n.(*ast.FencedCodeBlock)
			switch {
			case !entering || !ok:
				return ast.WalkContinue, nil
			case fc == chosen:
				seen = true
			case seen && (l.fenceInfo(fc) == "prose" || l.fenceInfo(fc) == "prosescript"):
				next = fc
				return ast.WalkStop, nil
			}
			return ast.WalkSkipChildren, nil
		})
		if next != nil {
			break
		}
	}
	return next
}

// readFence fills d from the chosen fence: its info, position, code lines,
// the prose around it, and the parsed program.
func (l *loader) readFence(sec *section, d *Delegation, fence *ast.FencedCodeBlock) {
	d.Info = l.fenceInfo(fence)
	d.FencePos = diag.Pos(l.fencePos(fence, int(sec.Pos)))
	if d.Info != "prose" {
		l.warnf(int(d.FencePos), CodeProsescript, "code fence says %q; the language is now called prose (```prose)", d.Info)
	}
	closeEnd, closed := l.fenceClose(fence, int(d.FencePos))
	if !closed {
		l.errorf(int(d.FencePos), CodeUnterminatedFence, "the Delegation's code fence is never closed")
	}
	d.Lines, d.Code = l.codeLines(fence)
	if !closed {
		d.Lines, d.Code = cutAtSection(d.Lines, d.Code)
	}
	if strings.TrimSpace(d.Code) == "" {
		l.warnf(int(d.FencePos), CodeEmptyDelegation, "the Delegation's code block is empty")
	}
	start, end := int(sec.BodyPos), int(sec.BodyPos)+len(sec.Body)
	open := l.lineStart(int(d.FencePos))
	d.Prose = joinProse(l.text[start:max(open, start)], l.text[min(closeEnd, end):end])
	if len(d.Lines) > 0 {
		var diags diag.List
		pattern := d == l.s.Delegation
		d.Program, diags = parseDelegation(l.f, l.uses(d, pattern))
		diags = lateUse(l.f, d.Lines, diags, pattern)
		if l.s.Contract {
			diags = explainUnsupported(l.f, d.Lines, diags)
			if d.Program != nil {
				callModifiers(d.Program)
			}
		}
		if d.Program != nil && d == l.s.Delegation {
			l.sessionsOutsideExecution(d.Program)
		}
		l.syntaxErrors = diags.HasErrors()
		l.diags = append(l.diags, diags...)
	}
}

// cutAtSection ends the code of an unclosed fence before the first line
// that is a heading of a known section ("### Notes"): CommonMark runs an
// unclosed fence to the end of the file, but the author meant the code to
// end where the next section starts, and reading that section's prose as
// code would add a syntax error on top of the fence error.
func cutAtSection(lines []syntax.Line, code string) ([]syntax.Line, string) {
	for i, ln := range lines {
		if !isSectionHeading(ln.Text) {
			continue
		}
		texts := make([]string, i)
		for j := range texts {
			texts[j] = lines[j].Text
		}
		return lines[:i], strings.Join(texts, "\n")
	}
	return lines, code
}

// isSectionHeading reports whether a line reads as an ATX heading whose
// text names a known section, like "### Notes" or "## Returns".
func isSectionHeading(line string) bool {
	t := strings.TrimLeft(line, " \t")
	hashes := len(t) - len(strings.TrimLeft(t, "#"))
	if hashes < 1 || hashes > 6 || len(t) == hashes || (t[hashes] != ' ' && t[hashes] != '\t') {
		return false
	}
	heading := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[hashes:]), "#"))
	_, ok := sectionKey(heading)
	return ok
}

func joinProse(before, after string) string {
	before, after = strings.TrimSpace(before), strings.TrimSpace(after)
	if before == "" || after == "" {
		return before + after
	}
	return before + "\n\n" + after
}

// findFence returns the first fenced block marked prose or prosescript in
// the section, and else the first fenced block of any kind as other.
func (l *loader) findFence(sec *section) (fence, other *ast.FencedCodeBlock) {
	for _, b := range sec.blocks {
		_ = ast.Walk(b, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			fc, ok := n.(*ast.FencedCodeBlock)
			if !entering || !ok {
				return ast.WalkContinue, nil
			}
			switch l.fenceInfo(fc) {
			case "prose", "prosescript":
				fence = fc
				return ast.WalkStop, nil
			}
			if other == nil {
				other = fc
			}
			return ast.WalkSkipChildren, nil
		})
		if fence != nil {
			return fence, other
		}
	}
	return nil, other
}

// fenceInfo is the fence's language: the first word of its info string,
// lower-cased.
func (l *loader) fenceInfo(fc *ast.FencedCodeBlock) string {
	if fc.Info == nil {
		return ""
	}
	seg := fc.Info.Segment
	info := strings.TrimSpace(l.text[seg.Start:seg.Stop])
	if i := strings.IndexAny(info, " \t{"); i >= 0 {
		info = info[:i]
	}
	return strings.ToLower(info)
}

// fencePos is the offset of the opening fence's first ` or ~.
func (l *loader) fencePos(fc *ast.FencedCodeBlock, fallback int) int {
	var lineStart int
	switch {
	case fc.Info != nil:
		lineStart = l.lineStart(fc.Info.Segment.Start)
	case fc.Lines().Len() > 0:
		first := l.lineStart(fc.Lines().At(0).Start)
		if first == 0 {
			return fallback
		}
		lineStart = l.lineStart(first - 1)
	default:
		return fallback
	}
	ln, _ := lineAt(l.text, lineStart)
	if i := strings.IndexAny(ln, "`~"); i >= 0 {
		return lineStart + i
	}
	return lineStart
}

// fenceClose looks for the closing fence after the block's last line: the
// same character, at least as many, nothing else. It returns the offset
// after the closing line (or after the content when unclosed).
func (l *loader) fenceClose(fc *ast.FencedCodeBlock, open int) (end int, closed bool) {
	ch := l.text[open]
	n := len(l.text[open:]) - len(strings.TrimLeft(l.text[open:], string(ch)))
	_, off := lineAt(l.text, open)
	if k := fc.Lines().Len(); k > 0 {
		_, off = lineAt(l.text, l.lineStart(fc.Lines().At(k-1).Start))
	}
	for off < len(l.text) {
		ln, next := lineAt(l.text, off)
		t := strings.TrimLeft(ln, " \t>")
		if strings.TrimSpace(t) == "" {
			off = next
			continue
		}
		rest := strings.TrimLeft(t, string(ch))
		return next, len(t)-len(rest) >= n && strings.TrimSpace(rest) == ""
	}
	return off, false
}

// codeLines turns the fence's segments into syntax.Lines: goldmark has
// already removed the list-item or blockquote indentation, so each
// segment's start is the offset of the line's first code byte.
func (l *loader) codeLines(fc *ast.FencedCodeBlock) ([]syntax.Line, string) {
	segs := fc.Lines()
	lines := make([]syntax.Line, 0, segs.Len())
	// The code is the lines joined by "\n": when they follow each other
	// in the source, each ended by a bare "\n" (a fence that is not
	// indented), that is a substring of the source, and nothing is built.
	whole := true
	for i := 0; i < segs.Len(); i++ {
		s := segs.At(i)
		t, off := l.codeLine(s.Start, s.Stop, s.Padding)
		lines = append(lines, syntax.Line{Text: t, Off: diag.Pos(off)})
		if whole && (s.Padding != 0 || off != s.Start || i > 0 && s.Start != segs.At(i-1).Stop ||
			i+1 < segs.Len() && (s.Stop != s.Start+len(t)+1 || l.text[s.Start+len(t)] != '\n')) {
			whole = false
		}
	}
	if len(lines) == 0 {
		return lines, ""
	}
	if whole {
		first, last := lines[0], lines[len(lines)-1]
		return lines, l.text[first.Off : int(last.Off)+len(last.Text)]
	}
	var b strings.Builder
	for i, ln := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ln.Text)
	}
	return lines, b.String()
}

// codeLine is one code line's text and the offset of its first byte. When
// the Markdown indentation consumed part of a tab (goldmark's padding), the
// line keeps that tab, so that its indentation stays a tab like on the
// lines whose tab was not split, and Off+i is the offset of Text[i] for
// every byte.
func (l *loader) codeLine(start, stop, padding int) (string, int) {
	t := strings.TrimRight(l.text[start:stop], "\r\n")
	if padding == 0 {
		return t, start
	}
	if start > 0 && l.text[start-1] == '\t' {
		return "\t" + t, start - 1
	}
	// Not expected from goldmark: keep the width, and the bytes of the
	// line (not of its padding) at their offsets.
	return strings.Repeat(" ", padding) + t, max(start-padding, 0)
}
