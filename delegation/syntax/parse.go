package syntax

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/proselang/prose/diag"
)

// Limits of the parser: it keeps the first maxErrors syntax errors of a
// block (lexical and grammatical, in order of position) and counts the
// others into one last diagnostic, "and N more syntax errors in this
// block", at the block's end; it refuses blocks or expressions nested
// deeper than maxDepth. The parse itself never stops for errors: each
// broken statement is skipped, so the cost stays linear in the block.
const (
	maxErrors = 50
	maxDepth  = 100
)

// bailout unwinds the parse of one statement after a syntax error; stop
// unwinds the whole parse.
type (
	bailout struct{}
	stop    struct{}
)

// parser is a recursive-descent parser over the token slice of one block.
type parser struct {
	file  *diag.File
	lines []Line
	toks  []token
	vals  []string // the tokens' values (token.val)
	p     int      // index of the current token
	errs  diag.List
	more  int // errors past maxErrors, counted
	depth int
	spec  bool // speculative: errors only unwind (condition probing)
	// catches counts the catch blocks being parsed: a bare throw is
	// allowed inside one.
	catches int
	// agents are the agent definitions met (parse_session.go).
	agents []*AgentDef

	a arena // the nodes of this parse
	// Scratch stacks: the items of the lists being parsed, nested lists'
	// above their parents', copied out to the arena when a list ends.
	stmtStack []Stmt
	// destructured are the lets a destructuring let stands for after its
	// first (parseLet), which the statement list takes next.
	destructured []Stmt
	fieldStack   []*Field
	exprStack    []Expr
	wordStack    []Word
	cwords       []cword
	low          []string
}

// buffers is the scratch state of one parse, kept in a pool from one
// parse to the next: a lint parses a block per file, and a fresh token
// slice (zeroed, walked by the collector) cost a third of scanning one.
// Nothing of a parsed program points into it.
type buffers struct {
	s scanner
	p parser
	r resolver
}

var bufferPool sync.Pool // of *buffers

// maxPooled is the most tokens of a token slice the pool keeps.
const maxPooled = 1 << 14

func getBuffers() *buffers {
	if b, ok := bufferPool.Get().(*buffers); ok {
		return b
	}
	return new(buffers)
}

// putBuffers clears b of everything that points into a program or its
// source and gives it back to the pool.
func putBuffers(b *buffers) {
	s := &b.s
	toks := s.toks
	if cap(toks) > maxPooled {
		toks = nil
	}
	clear(toks)
	clear(s.vals)
	clear(s.indents)
	clear(s.opens[:cap(s.opens)])
	clear(s.errs)
	*s = scanner{toks: toks[:0], vals: s.vals[:0], indents: s.indents[:0], opens: s.opens[:0], errs: s.errs[:0]}
	p := &b.p
	clear(p.stmtStack[:cap(p.stmtStack)])
	clear(p.fieldStack[:cap(p.fieldStack)])
	clear(p.exprStack[:cap(p.exprStack)])
	clear(p.wordStack[:cap(p.wordStack)])
	clear(p.cwords[:cap(p.cwords)])
	clear(p.low[:cap(p.low)])
	*p = parser{stmtStack: p.stmtStack[:0], fieldStack: p.fieldStack[:0], exprStack: p.exprStack[:0],
		wordStack: p.wordStack[:0], cwords: p.cwords[:0], low: p.low[:0]}
	b.r = resolver{}
	bufferPool.Put(b)
}

// Parse parses the lines of one Delegation block. Every position in the
// result, and in the diagnostics, is an offset into f. On a syntax error the
// offending statement is skipped (with its nested block) and parsing goes on
// with the next one; a lexical error (indentation, tabs, brackets) is
// recovered from by the scanner the same way. The Program is never nil.
func Parse(f *diag.File, lines []Line) (*Program, diag.List) {
	b := getBuffers()
	prog, diags := b.parse(f, lines)
	putBuffers(b)
	return prog, diags
}

// parse is Parse with the scratch state b.
func (b *buffers) parse(f *diag.File, lines []Line) (*Program, diag.List) {
	pb := &programBlock{prog: Program{File: f}}
	prog := &pb.prog
	toks, vals, serrs, smore := b.s.scan(lines)
	p := &b.p
	p.file, p.lines, p.toks, p.vals, p.more = f, lines, toks, vals, smore
	p.a.countNodes(toks)
	p.a.seed(pb)
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stop); !ok {
					panic(r)
				}
			}
		}()
		prog.Body = p.parseStmtList()
		prog.Agents = p.agents
		if t := p.tok(); t.kind != EOF {
			p.report(t.pos, "syntax/unexpected", "unexpected %s", describe(t))
		}
	}()
	b.r.resolve(pb, &p.a)
	return prog, p.diagnostics(serrs, toks[len(toks)-1].pos)
}

// diagnostics merges the scanner's errors with the parser's in order of
// position. A parser error in the text a lexical error covers (the line
// of a wrong closer; what an unclosed bracket swallowed) is dropped: it is
// that error's echo. Past maxErrors, the rest are counted into one diagnostic
// at end.
func (p *parser) diagnostics(serrs []*scanError, end diag.Pos) diag.List {
	var out diag.List
	type span struct{ from, to diag.Position }
	var echo []span
	for _, e := range serrs {
		msg := e.msg
		if e.opener.IsValid() {
			at := p.file.Position(e.opener)
			msg += fmt.Sprintf(" (the opener is at line %d, column %d)", at.Line, at.Col)
		}
		from := p.file.Position(e.pos) // an unclosed bracket: from its opener
		if !e.quiet {
			out.Errorf(p.file, e.pos, e.code, "%s", msg)
		}
		switch {
		case e.code == "syntax/indent" && !e.quiet, e.code == "syntax/tabs":
			continue // the line is read at an outer level, or as written: its errors are its own
		case e.code != "syntax/unclosed":
			from.Col = 1 // the whole line
		}
		echo = append(echo, span{from, p.file.Position(e.upto)})
	}
	before := func(a, b diag.Position) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }
	more := p.more
	for _, d := range p.errs {
		hidden := false
		for _, sp := range echo {
			if d.Code != "syntax/nesting" && !before(d.Position, sp.from) && !before(sp.to, d.Position) {
				hidden = true
			}
		}
		if !hidden {
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return before(out[i].Position, out[j].Position) })
	if len(out) > maxErrors {
		more += len(out) - maxErrors
		out = out[:maxErrors]
	}
	if more > 0 {
		word := "errors"
		if more == 1 {
			word = "error"
		}
		out.Errorf(p.file, end, "syntax/too-many-errors", "and %d more syntax %s in this block", more, word)
	}
	return out
}

// ParseString parses code as if it were a whole file named name: positions
// are offsets into code. It is meant for tests and tools.
func ParseString(name, code string) (*Program, diag.List) {
	f := diag.NewFile(name, []byte(code))
	return Parse(f, SplitLines(code, 0))
}

// SplitLines cuts code into Lines, the first starting at offset off.
func SplitLines(code string, off diag.Pos) []Line {
	var lines []Line
	for {
		i := strings.IndexByte(code, '\n')
		if i < 0 {
			lines = append(lines, Line{Text: code, Off: off})
			return lines
		}
		lines = append(lines, Line{Text: code[:i], Off: off})
		code, off = code[i+1:], off+diag.Pos(i+1)
	}
}

// ---- tokens ----

func (p *parser) tok() *token { return &p.toks[p.p] }

// value is t's value: a STRING's unquoted text, an ILLEGAL's message.
func (p *parser) value(t *token) string { return tokValue(p.vals, t) }

func tokValue(vals []string, t *token) string {
	switch {
	case t.val == 0:
		return ""
	case t.val < 0:
		return t.raw[1 : len(t.raw)-1]
	}
	return vals[t.val-1]
}

// peek returns the token k places ahead (the final EOF past the end).
func (p *parser) peek(k int) *token {
	if p.p+k >= len(p.toks) {
		return &p.toks[len(p.toks)-1]
	}
	return &p.toks[p.p+k]
}

func (p *parser) advance() token {
	t := p.toks[p.p]
	if t.kind != EOF {
		p.p++
	}
	return t
}

// isWord reports whether the current token is the name w (a contextual
// keyword).
func (p *parser) isWord(w string) bool {
	t := p.tok()
	return t.kind == IDENT && t.raw == w
}

func isWordTok(t *token, w string) bool { return t.kind == IDENT && t.raw == w }

// expect consumes a token of kind k or reports what was expected.
func (p *parser) expect(k Token, context string) token {
	if t := p.tok(); t.kind != k {
		p.errorf(t.pos, "syntax/expected", "expected '%s' %s, found %s", k, context, describe(t))
	}
	return p.advance()
}

// expectWord consumes the contextual keyword w.
func (p *parser) expectWord(w, context string) token {
	if !p.isWord(w) {
		t := p.tok()
		p.errorf(t.pos, "syntax/expected", "expected '%s' %s, found %s", w, context, describe(t))
	}
	return p.advance()
}

// describe names a token for a message.
func describe(t *token) string {
	switch t.kind {
	case IDENT:
		return "'" + t.raw + "'"
	case INT, FLOAT, DURATION:
		return t.kind.String() + " " + t.raw
	case STRING:
		return "string " + truncate(t.raw, 30)
	case ILLEGAL:
		return strconv.Quote(truncate(t.raw, 30))
	case NEWLINE:
		return "end of line"
	case LPAREN, RPAREN, LBRACK, RBRACK, LBRACE, RBRACE, COMMA, COLON, DOT, ASSIGN,
		EQ, NE, LT, LE, GT, GE, PLUS, MINUS, PIPE:
		return "'" + t.kind.String() + "'"
	}
	return t.kind.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// ---- errors and recovery ----

// errorf records a syntax error and unwinds the current statement.
func (p *parser) errorf(pos diag.Pos, code, format string, args ...any) {
	p.report(pos, code, format, args...)
	panic(bailout{})
}

// report records a syntax error without unwinding (the statement's
// structure is intact); past maxErrors it is only counted.
func (p *parser) report(pos diag.Pos, code, format string, args ...any) {
	if p.spec {
		panic(bailout{})
	}
	if len(p.errs) >= maxErrors {
		p.more++ // counted, not kept: the first maxErrors are shown
		return
	}
	p.errs.Errorf(p.file, pos, code, format, args...)
}

// enter increments the nesting depth; beyond maxDepth the parse stops,
// also when probing a condition.
func (p *parser) enter(pos diag.Pos) {
	p.depth++
	if p.depth > maxDepth {
		p.errs.Errorf(p.file, pos, "syntax/nesting", "nesting deeper than %d levels: split the block or the expression", maxDepth)
		panic(stop{})
	}
}

func (p *parser) leave() { p.depth-- }

// safeStmt parses one statement; after a syntax error it skips the rest of
// the statement, including any block nested under it, and returns nil.
func (p *parser) safeStmt() (s Stmt) {
	start, depth := p.p, p.depth
	stacks := p.stackLens()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			s = nil
			p.depth = depth
			p.truncStacks(stacks)
			p.sync(start)
		}
	}()
	return p.parseStmt()
}

// stackLens are the heights of the scratch stacks, for truncStacks to
// restore after a statement or a speculative parse is unwound.
type stackLens struct{ stmts, fields, exprs int }

func (p *parser) stackLens() stackLens {
	return stackLens{len(p.stmtStack), len(p.fieldStack), len(p.exprStack)}
}

func (p *parser) truncStacks(l stackLens) {
	p.stmtStack = p.stmtStack[:l.stmts]
	p.fieldStack = p.fieldStack[:l.fields]
	p.exprStack = p.exprStack[:l.exprs]
}

// sync skips to the start of the next statement at the level of the
// statement that began at token start: the rest of its line, the block
// nested under it, and for `if`/`try` its elif/else/catch/finally parts.
func (p *parser) sync(start int) {
	bal := 0
	for _, t := range p.toks[start:p.p] {
		switch t.kind {
		case INDENT:
			bal++
		case OUTDENT:
			bal--
		}
	}
	bal = max(bal, 0)
	for {
		switch p.tok().kind {
		case EOF:
			return
		case INDENT:
			bal++
		case OUTDENT:
			if bal == 0 {
				return
			}
			bal--
			if bal == 0 {
				p.advance()
				p.skipContinuations(start)
				return
			}
		case NEWLINE:
			if bal == 0 {
				p.advance()
				p.skipBlock()
				p.skipContinuations(start)
				return
			}
		}
		p.advance()
	}
}

// skipContinuations skips the elif/else or catch/finally parts that follow
// a broken `if` or `try` statement.
func (p *parser) skipContinuations(start int) {
	first := p.toks[start].raw
	for {
		t := p.tok()
		cont := t.kind == IDENT && (first == "if" || first == "elif") && (t.raw == "elif" || t.raw == "else") ||
			t.kind == IDENT && first == "try" && (t.raw == "catch" || t.raw == "finally")
		if !cont || p.peek(1).kind == ASSIGN {
			return
		}
		for k := p.tok().kind; k != NEWLINE && k != EOF; k = p.tok().kind {
			p.advance()
		}
		p.advance()
		p.skipBlock()
	}
}

// skipBlock skips an indented block that starts at the current token.
func (p *parser) skipBlock() {
	if p.tok().kind != INDENT {
		return
	}
	bal := 0
	for p.tok().kind != EOF {
		switch p.advance().kind {
		case INDENT:
			bal++
		case OUTDENT:
			bal--
			if bal == 0 {
				return
			}
		}
	}
}

// ---- blocks ----

// parseStmtList parses statements up to the OUTDENT closing the block.
//
//	stmts = { stmt } .
func (p *parser) parseStmtList() []Stmt {
	base := len(p.stmtStack)
	for k := p.tok().kind; k != OUTDENT && k != EOF; k = p.tok().kind {
		if s := p.safeStmt(); s != nil {
			p.stmtStack = append(p.stmtStack, s)
			p.stmtStack = append(p.stmtStack, p.destructured...)
		}
		p.destructured = nil
	}
	list := p.a.stmtLists.cut(p.stmtStack[base:])
	clear(p.stmtStack[base:])
	p.stmtStack = p.stmtStack[:base]
	return list
}

// parseBlock parses the ':' ending a header line and the indented block
// after it. what names the header in messages ("for", "if", ...).
//
//	block = ':' NEWLINE INDENT stmts OUTDENT .
func (p *parser) parseBlock(what string) []Stmt {
	t := p.tok()
	if t.kind != COLON {
		if t.kind == NEWLINE {
			p.errorf(t.pos, "syntax/missing-colon", "missing ':' at the end of the %s line: a block opens with ':'", what)
		}
		p.errorf(t.pos, "syntax/expected", "unexpected %s in the %s line: expected ':' and a new line", describe(t), what)
	}
	colon := p.advance()
	if t := p.tok(); t.kind != NEWLINE {
		p.errorf(t.pos, "syntax/expected", "unexpected %s after ':': write the %s block's statements on the following lines, indented", describe(t), what)
	}
	if p.peek(1).kind != INDENT {
		p.errorf(colon.pos, "syntax/empty-block", "expected an indented block after the %s line", what)
	}
	p.advance()
	ind := p.advance()
	p.enter(ind.pos)
	body := p.parseStmtList()
	p.leave()
	p.expect(OUTDENT, "at the end of the block")
	return body
}

// endStmt ends a simple statement: the line must end here, unless the
// statement closed with an indented block of its own (a call's arguments, a
// collecting loop's body).
func (p *parser) endStmt(what string) { p.endStmtOf("", what, "") }

// endStmtOf is endStmt with the statement's name in three parts, joined
// only for the message.
func (p *parser) endStmtOf(before, what, after string) {
	if p.p > 0 && p.toks[p.p-1].kind == OUTDENT {
		return
	}
	t := p.tok()
	switch t.kind {
	case NEWLINE:
		p.advance()
		return
	case EOF, OUTDENT:
		return
	}
	if t.kind == ILLEGAL {
		p.errorf(t.pos, "syntax/unexpected", "%s", p.value(t))
	}
	if hint := p.parenHint(); hint != "" {
		p.errorf(t.pos, "syntax/unexpected", "%s", hint)
	}
	p.errorf(t.pos, "syntax/unexpected", "unexpected %s after the %s%s%s: expected the end of the line", describe(t), before, what, after)
}

// parenHint says what to write for NAME(...) where a statement should
// end, a call or a method of another language, or "": ProseScript
// calls a function with `call NAME` and its arguments on the lines
// below, and has no functions of values.
func (p *parser) parenHint() string {
	t := p.tok()
	if t.kind != LPAREN || p.p == 0 {
		return ""
	}
	name := p.toks[p.p-1]
	if name.kind != IDENT || name.end != t.pos {
		return ""
	}
	if p.p > 1 && p.toks[p.p-2].kind == DOT {
		return fmt.Sprintf("a value has no methods: .%s(...) is not ProseScript; ask a function for what it would compute (call NAME, with the value as an argument), and read a list's length as x.length", name.raw)
	}
	switch name.raw {
	case "len", "length", "count", "size":
		return fmt.Sprintf("there is no %s(...): the length of a list or a text is X.length", name.raw)
	}
	return fmt.Sprintf("%s(...) is no call in ProseScript: write call %s, then its arguments on indented key: value lines below it (a named block runs with do %s(...))", name.raw, name.raw, name.raw)
}
