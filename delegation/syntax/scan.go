package syntax

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/proselang/prose/diag"
)

// token is one lexical token. Positions are .md offsets; line and col locate
// the token's first byte in the scanner's input lines (col is a byte index
// into Line.Text).
//
// A block has a token for every few bytes of code, so a token is kept
// small (48 bytes): the unquoted value of a STRING and the message of an
// ILLEGAL, which few tokens have, are in the scanner's vals, and val is
// the index of a token's one plus one (0: none, the value ""; -1, for
// most strings: raw without its quotes).
type token struct {
	pos  diag.Pos
	end  diag.Pos
	raw  string // source text (for names, numbers, strings, durations)
	line int32
	col  int32
	val  int32
	kind Token
	nl   bool // first token of its physical line
}

// scanError is a lexical error: indentation that cannot be resolved, a tab
// in the indentation, a bracket that never closes or closes the wrong
// opener. The scanner records it and goes on (see scan), so that the
// parser still reports the errors of the other lines.
type scanError struct {
	pos    diag.Pos
	code   string
	msg    string
	opener diag.Pos // for a mismatched bracket: where the opener is
	// upto ends the text whose parse errors echo this one (the rest of
	// the line; for a bracket left open, up to where the scanner closed
	// it): the parser's errors from pos to upto are not shown.
	upto  diag.Pos
	quiet bool // not shown: it only hides the parse errors of its text
}

// scanner turns code lines into tokens, with INDENT/OUTDENT computed from
// a stack of indentation prefixes (as in Python and Starlark). Blank and
// comment-only lines do not affect indentation; inside (), [] and {} line
// breaks and indentation are ignored.
type scanner struct {
	lines   []Line
	toks    []token
	vals    []string // the values of tokens (token.val)
	indents []string // indentation prefixes, outermost first; [0] == ""
	opens   []token  // unclosed brackets
	errs    []*scanError
	tabs    int    // lines indented with a tab after the first, reported once
	more    int    // errors past maxErrors, counted
	li      int    // current line index
	text    string // lines[li].Text
	i       int    // byte index into text
	lineHas bool   // current logical line has produced a token
}

// scan tokenizes lines. A lexical error does not stop it: each is
// recorded and the scan goes on with a guess at what was meant, so the
// token stream is always well formed (brackets and INDENT/OUTDENT
// balanced, EOF last):
//
//   - a line whose indentation matches no outer level is read at the
//     deepest level it is indented past;
//   - a closer that does not match its opener closes it;
//   - a bracket still open when a line starts a new statement (a
//     statement keyword, indented no deeper than the opener's line) is
//     closed there, and the statement is read as a new line;
//   - a tab in the indentation is an error (once per block, counting the
//     other lines), and the indentation is compared as written.
//
// It keeps the first maxErrors errors and counts the others (more). The
// scanner's slices are reused: what it returns is valid until its next
// scan.
func (s *scanner) scan(lines []Line) (toks []token, vals []string, errs []*scanError, more int) {
	*s = scanner{lines: lines, toks: s.toks, vals: s.vals, indents: append(s.indents, baseIndent(lines)), opens: s.opens, errs: s.errs}
	size := 0
	for _, l := range lines {
		size += len(l.Text)
	}
	if n := size/4 + 2*len(lines) + 8; cap(s.toks) < n {
		s.toks = make([]token, 0, n)
	}
	for s.li = 0; s.li < len(lines); s.li++ {
		s.text, s.i = lines[s.li].Text, 0
		s.scanLine()
	}
	if len(s.opens) > 0 {
		s.unclosed()
	}
	if s.tabs > 0 {
		for _, e := range s.errs {
			if e.code == "syntax/tabs" {
				e.msg += tabsMore(s.tabs)
				break
			}
		}
	}
	end := s.eofPos()
	if s.lineHas {
		s.emit(NEWLINE, end, end, "", "")
	}
	for len(s.indents) > 1 {
		s.indents = s.indents[:len(s.indents)-1]
		s.emit(OUTDENT, end, end, "", "")
	}
	s.emit(EOF, end, end, "", "")
	return s.toks, s.vals, s.errs, s.more
}

func tabsMore(n int) string {
	if n == 1 {
		return " (1 more line of this block is indented with a tab)"
	}
	return " (" + strconv.Itoa(n) + " more lines of this block are indented with tabs)"
}

// fail records an error (nil when it is only counted, past maxErrors).
func (s *scanner) fail(pos diag.Pos, code, msg string, opener diag.Pos) *scanError {
	if len(s.errs) >= maxErrors {
		s.more++
		return nil
	}
	upto := s.eofPos()
	if s.li < len(s.lines) {
		upto = s.lines[s.li].Off + diag.Pos(len(s.lines[s.li].Text))
	}
	e := &scanError{pos: pos, code: code, msg: msg, opener: opener, upto: upto}
	s.errs = append(s.errs, e)
	return e
}

// unclosed records the outermost open bracket as never closed and forgets
// every open one.
func (s *scanner) unclosed() {
	o := s.opens[0]
	e := s.fail(o.pos, "syntax/unclosed", "unclosed '"+o.raw+"': add the matching '"+closer(o.raw)+"'", diag.NoPos)
	if e != nil && s.li < len(s.lines) {
		// closed at the start of this line: what follows is not an echo
		e.upto = s.lines[s.li].Off
	}
	s.opens = s.opens[:0]
}

// stmtWords start a statement; inside brackets, a line that starts with
// one (followed by a space, not a ':' as an object key would be) and is
// indented no deeper than the line that opened the bracket is taken for
// the next statement after a bracket left open.
var stmtWords = map[string]bool{
	"let": true, "const": true, "return": true, "if": true, "elif": true, "else": true,
	"for": true, "repeat": true, "parallel": true, "try": true, "catch": true,
	"finally": true, "throw": true, "loop": true, "while": true, "break": true, "continue": true,
}

// startsStmt reports whether the physical line text (indentation j bytes)
// looks like the start of a statement after an unclosed bracket.
func (s *scanner) startsStmt(j int) bool {
	o := s.opens[0]
	oj := indentLen(s.lines[o.line].Text)
	if j > oj {
		return false
	}
	rest := s.text[j:]
	k := 0
	for k < len(rest) && 'a' <= rest[k] && rest[k] <= 'z' {
		k++
	}
	w := rest[:k]
	if !stmtWords[w] || k == len(rest) {
		return false
	}
	switch rest[k] {
	case ' ':
		after := strings.TrimLeft(rest[k:], " ")
		return !strings.HasPrefix(after, ":") && !strings.HasPrefix(after, "=")
	case ':':
		return (w == "else" || w == "try" || w == "finally") && strings.TrimSpace(rest[k+1:]) == ""
	}
	return false
}

// baseIndent is the indentation of the first code line: a block indented as
// a whole is read as if it were not.
func baseIndent(lines []Line) string {
	for _, l := range lines {
		j := indentLen(l.Text)
		if t := l.Text[j:]; t != "" && t[0] != '#' && strings.TrimSpace(t) != "" {
			return l.Text[:j]
		}
	}
	return ""
}

// indentLen is the length of the spaces and tabs text starts with.
func indentLen(text string) int {
	j := 0
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	return j
}

func (s *scanner) eofPos() diag.Pos {
	if len(s.lines) == 0 {
		return 0
	}
	l := s.lines[len(s.lines)-1]
	return l.Off + diag.Pos(len(l.Text))
}

func closer(open string) string {
	switch open {
	case "(":
		return ")"
	case "[":
		return "]"
	case markBlock:
		return markBlock
	}
	return "}"
}

func (s *scanner) off(i int) diag.Pos { return s.lines[s.li].Off + diag.Pos(i) }

func (s *scanner) emit(k Token, pos, end diag.Pos, raw, value string) {
	var val int32 // only a STRING's and an ILLEGAL's value is read
	switch {
	case k == STRING && len(raw) >= 2 && value == raw[1:len(raw)-1]:
		val = -1 // a string without escapes: raw without its quotes
	case k == STRING || k == ILLEGAL:
		val = s.value(value)
	}
	s.toks = append(s.toks, token{kind: k, pos: pos, end: end, raw: raw, val: val, line: int32(s.li), col: int32(pos - s.lines[min(s.li, len(s.lines)-1)].Off)})
}

// value keeps a token's value: its token.val.
func (s *scanner) value(v string) int32 {
	if v == "" {
		return 0
	}
	s.vals = append(s.vals, v)
	return int32(len(s.vals))
}

// scanLine handles one physical line: indentation (outside brackets), then
// its tokens, then NEWLINE when the logical line ends here.
func (s *scanner) scanLine() {
	j := 0
	for j < len(s.text) && (s.text[j] == ' ' || s.text[j] == '\t') {
		j++
	}
	if len(s.opens) > 0 && j < len(s.text) && s.startsStmt(j) {
		s.unclosed()
		if s.lineHas {
			p := s.toks[len(s.toks)-1].end
			s.emit(NEWLINE, p, p, "", "")
			s.lineHas = false
		}
	}
	if len(s.opens) == 0 {
		if j == len(s.text) || s.text[j] == '#' || s.text[j] == '\r' && j+1 == len(s.text) {
			return // blank or comment-only
		}
		s.indent(s.text[:j])
		s.i = j
	}
	first := true
	for {
		for s.i < len(s.text) && (s.text[s.i] == ' ' || s.text[s.i] == '\t' || s.text[s.i] == '\r') {
			s.i++
		}
		if s.i >= len(s.text) || s.text[s.i] == '#' {
			break
		}
		n := len(s.toks)
		s.next()
		if first && len(s.toks) > n {
			s.toks[n].nl = true
			first = false
		}
		s.lineHas = true
	}
	if len(s.opens) == 0 && s.lineHas {
		p := s.toks[len(s.toks)-1].end // right after the last token, before any comment
		s.emit(NEWLINE, p, p, "", "")
		s.lineHas = false
	}
}

// indent compares the line's indentation prefix with the stack and emits
// INDENT or OUTDENTs.
func (s *scanner) indent(ind string) {
	// the block's own indentation (a fence inside a list item, a quote)
	// is Markdown's; what is past it is ProseScript's
	base := s.indents[0]
	if t := strings.IndexByte(strings.TrimPrefix(ind, base), '\t'); t >= 0 && strings.HasPrefix(ind, base) {
		s.tab(len(base) + t)
	} else if t := strings.IndexByte(ind, '\t'); t >= 0 && !strings.HasPrefix(ind, base) {
		s.tab(t)
	}
	top := s.indents[len(s.indents)-1]
	pos := s.off(len(ind))
	switch {
	case ind == top:
		return
	case strings.HasPrefix(ind, top):
		s.indents = append(s.indents, ind)
		s.emit(INDENT, pos, pos, "", "")
		return
	}
	for k := len(s.indents) - 2; k >= 0; k-- {
		if s.indents[k] == ind {
			for len(s.indents)-1 > k {
				s.indents = s.indents[:len(s.indents)-1]
				s.emit(OUTDENT, pos, pos, "", "")
			}
			return
		}
	}
	msg := "unindent does not match any outer indentation level: align this line with the block it belongs to"
	if len(ind) < len(s.text) && s.text[len(ind)] == '|' {
		// a later stage of a pipeline, the likely slip where the first
		// '|' follows the value on its line (grammar.md, Pipelines)
		msg = "this '|' is indented to no level of the lines above it: start each stage of a pipeline where the first starts, or at the statement's indentation when the first '|' follows the value on its line"
	}
	e := s.fail(pos, "syntax/indent", msg, diag.NoPos)
	if e != nil && (strings.ContainsRune(ind, '\t') || strings.ContainsRune(strings.Join(s.indents, ""), '\t')) {
		// with a tab about, the tab's error explains the mismatch: this
		// one only hides the parse errors of the line
		e.quiet = true
	}
	// Read the line at the deepest level it is indented past (the
	// outermost when none is), as if it were aligned with it.
	k := len(s.indents) - 1
	for k > 0 && !(len(ind) > len(s.indents[k]) && strings.HasPrefix(ind, s.indents[k])) {
		k--
	}
	for len(s.indents)-1 > k {
		s.indents = s.indents[:len(s.indents)-1]
		s.emit(OUTDENT, pos, pos, "", "")
	}
}

// tab records a tab at byte t of the current line's indentation: upstream's
// ProseScript indents with spaces only, and a tab's width is anyone's
// guess. Reported once per block, at the first such line; the others are
// counted into that message.
func (s *scanner) tab(t int) {
	for _, e := range s.errs {
		if e.code == "syntax/tabs" {
			s.tabs++
			return
		}
	}
	s.fail(s.off(t), "syntax/tabs", "a tab in the indentation: indent ProseScript with spaces", diag.NoPos)
}

// next scans one token starting at s.i (not a space).
func (s *scanner) next() {
	c := s.text[s.i]
	start := s.i
	switch {
	case c == '"':
		if strings.HasPrefix(s.text[s.i:], `"""`) {
			s.tripleString()
		} else {
			s.string()
		}
		return
	case isDigit(c):
		s.number()
		return
	case isIdentStart(s.text[s.i:]):
		s.ident()
		return
	}
	if c == '*' && s.marker() {
		return
	}
	two := ""
	if s.i+1 < len(s.text) {
		two = s.text[s.i : s.i+2]
	}
	if k, ok := twoCharOp(two); ok {
		s.i += 2
		s.emit(k, s.off(start), s.off(s.i), two, "")
		return
	}
	if k, ok := oneCharOp(c); ok && two != "||" {
		s.i++
		s.emit(k, s.off(start), s.off(s.i), s.text[start:s.i], "")
		s.bracket(k)
		return
	}
	_, w := utf8.DecodeRuneInString(s.text[s.i:])
	s.i += w
	if two == "&&" || two == "||" {
		s.i++
	}
	bad := s.text[start:s.i]
	msg := "unexpected character " + strconv.Quote(bad)
	if hint := charHints[bad]; hint != "" {
		msg += ": " + hint
	}
	s.emit(ILLEGAL, s.off(start), s.off(s.i), bad, msg)
}

// Discretion markers. ProseScript may wrap a natural-language condition
// in `**...**` on its line, or in `***` lines around text spanning lines
// (`if ***` then the text, then `***:`); the markers change nothing about
// the condition. The scanner reads a run of two or three asterisks as one
// ILLEGAL token (an error anywhere else), and a `***` that ends its line
// as an opener whose lines are joined as inside brackets, until the next
// `***` closes it; parseCond drops a pair around a whole condition.
const (
	markLine  = "**"
	markBlock = "***"
)

// markHelp is the error of a marker that wraps no condition.
const markHelp = ": the operators are + and - (no * or /); ** and *** mark the whole condition of an if, elif or loop line, as in if **x is empty**:"

// marker scans a run of two or three asterisks at s.i, reporting whether
// it did.
func (s *scanner) marker() bool {
	n := 0
	for s.i+n < len(s.text) && s.text[s.i+n] == '*' {
		n++
	}
	if n != 2 && n != 3 {
		return false
	}
	start := s.i
	s.i += n
	raw := s.text[start:s.i]
	s.emit(ILLEGAL, s.off(start), s.off(s.i), raw, "unexpected "+strconv.Quote(raw)+markHelp)
	if raw != markBlock {
		return true
	}
	if k := len(s.opens); k > 0 && s.opens[k-1].raw == markBlock {
		s.opens = s.opens[:k-1]
		return true
	}
	if rest := strings.TrimSpace(s.text[s.i:]); rest == "" || rest[0] == '#' {
		s.opens = append(s.opens, s.toks[len(s.toks)-1])
	}
	return true
}

// isMark reports whether t is a discretion marker of the kind raw.
func isMark(t *token, raw string) bool { return t.kind == ILLEGAL && t.raw == raw }

// charHints says what to write instead of characters borrowed from other
// languages.
var charHints = map[string]string{
	"&&": "write 'and'",
	"&":  "write 'and'",
	"||": "write 'or'",
	"!":  "write 'not' (and '!=' to compare)",
	"'":  "strings are written in double quotes: \"...\"",
	"?":  "there is no ?: operator: use if/else",
	";":  "write one statement a line",
	"*":  "the operators are + and - (no * or /)",
	"/":  "the operators are + and - (no * or /)",
	"%":  "the operators are + and - (no * or /)",
}

// twoCharOp and oneCharOp are the operators and punctuation (a switch:
// a map was looked up for every token that is not a name).
func twoCharOp(two string) (Token, bool) {
	switch two {
	case "==":
		return EQ, true
	case "!=":
		return NE, true
	case "<=":
		return LE, true
	case ">=":
		return GE, true
	}
	return ILLEGAL, false
}

func oneCharOp(c byte) (Token, bool) {
	switch c {
	case '(':
		return LPAREN, true
	case ')':
		return RPAREN, true
	case '[':
		return LBRACK, true
	case ']':
		return RBRACK, true
	case '{':
		return LBRACE, true
	case '}':
		return RBRACE, true
	case ',':
		return COMMA, true
	case ':':
		return COLON, true
	case '.':
		return DOT, true
	case '=':
		return ASSIGN, true
	case '<':
		return LT, true
	case '>':
		return GT, true
	case '+':
		return PLUS, true
	case '-':
		return MINUS, true
	case '|':
		return PIPE, true
	}
	return ILLEGAL, false
}

// bracket maintains the stack of open brackets for the token just emitted.
func (s *scanner) bracket(k Token) {
	t := s.toks[len(s.toks)-1]
	switch k {
	case LPAREN, LBRACK, LBRACE:
		s.opens = append(s.opens, t)
	case RPAREN, RBRACK, RBRACE:
		if len(s.opens) == 0 {
			return // the parser reports the stray closer
		}
		o := s.opens[len(s.opens)-1]
		if closer(o.raw) != t.raw {
			// read as the closer meant: the opener is closed
			s.fail(t.pos, "syntax/bracket", "'"+t.raw+"' does not match the '"+o.raw+"' it closes: expected '"+closer(o.raw)+"'", o.pos)
		}
		s.opens = s.opens[:len(s.opens)-1]
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isIdentStart(s string) bool {
	if s == "" {
		return false
	}
	if c := s[0]; c < utf8.RuneSelf {
		return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// ident scans a name. A hyphen between two letters joins a name
// (`session-source`, `quality-bar`): subtraction is written with spaces
// (`a - b`) or before a digit (`n-1`). After a '.', a hyphen also belongs
// to the name when the part after it holds a letter (`model.gpt-4o`), so
// that `xs.length-1` stays a subtraction.
func (s *scanner) ident() {
	start := s.i
	member := len(s.toks) > 0 && s.toks[len(s.toks)-1].kind == DOT && s.toks[len(s.toks)-1].end == s.off(start)
	for s.i < len(s.text) {
		if c := s.text[s.i]; c < utf8.RuneSelf {
			if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				s.i++
				continue
			}
		}
		r, w := utf8.DecodeRuneInString(s.text[s.i:])
		if isIdentRune(r) {
			s.i += w
			continue
		}
		if r == '-' && (member && hyphenJoins(s.text[s.i+1:]) || letterBetween(s.text, s.i)) {
			s.i++
			continue
		}
		break
	}
	if s.text[start:s.i] == "std" && s.i < len(s.text) && s.text[s.i] == '/' && s.afterCall() {
		// `call std/roles/summarizer`: a library path is one target name.
		for s.i < len(s.text) && (isIdentRune(rune(s.text[s.i])) || strings.IndexByte("/.-", s.text[s.i]) >= 0) {
			s.i++
		}
	}
	raw := s.text[start:s.i]
	s.emit(IDENT, s.off(start), s.off(s.i), raw, raw)
}

// afterCall reports whether the last token is the word call.
func (s *scanner) afterCall() bool {
	n := len(s.toks)
	return n > 0 && s.toks[n-1].kind == IDENT && s.toks[n-1].raw == "call"
}

// number scans an INT, FLOAT or DURATION (digits with a unit suffix).
func (s *scanner) number() {
	start := s.i
	for s.i < len(s.text) && isDigit(s.text[s.i]) {
		s.i++
	}
	float := false
	if s.i+1 < len(s.text) && s.text[s.i] == '.' && isDigit(s.text[s.i+1]) {
		float = true
		s.i++
		for s.i < len(s.text) && isDigit(s.text[s.i]) {
			s.i++
		}
	}
	unit := s.i
	for s.i < len(s.text) {
		r, w := utf8.DecodeRuneInString(s.text[s.i:])
		if !isIdentRune(r) {
			break
		}
		s.i += w
	}
	raw := s.text[start:s.i]
	pos, end := s.off(start), s.off(s.i)
	switch {
	case unit < s.i:
		if _, err := time.ParseDuration(raw); err != nil {
			s.emit(ILLEGAL, pos, end, raw, "invalid number or duration "+strconv.Quote(raw)+": durations are written 500ms, 30s, 2m or 1h")
			return
		}
		s.emit(DURATION, pos, end, raw, "")
	case float:
		s.emit(FLOAT, pos, end, raw, "")
	default:
		s.emit(INT, pos, end, raw, "")
	}
}

// string scans a "..." literal on one line.
func (s *scanner) string() {
	start := s.i
	s.i++
	for s.i < len(s.text) {
		switch s.text[s.i] {
		case '\\':
			s.i += 2
			continue
		case '"':
			s.i++
			raw := s.text[start:s.i]
			v, _, bad := unescape(raw[1:len(raw)-1], false)
			if bad != "" {
				s.emit(ILLEGAL, s.off(start), s.off(s.i), raw, "invalid escape "+bad+" in string "+raw+": "+escapeHelp)
				return
			}
			s.emit(STRING, s.off(start), s.off(s.i), raw, v)
			return
		}
		s.i++
	}
	s.i = len(s.text)
	s.emit(ILLEGAL, s.off(start), s.off(s.i), s.text[start:], "unterminated string: add the closing '\"' on the same line (use \"\"\"...\"\"\" for text spanning lines)")
}

// tripleString scans a """...""" literal, which may span lines. Its value
// is the text between the quotes, lines joined by "\n", with the escapes
// of ProseScript (unescape).
func (s *scanner) tripleString() {
	start, startLine := s.i, s.li
	pos := s.off(start)
	s.i += 3
	var b strings.Builder
	for {
		if k := strings.Index(s.text[s.i:], `"""`); k >= 0 {
			b.WriteString(s.text[s.i : s.i+k])
			s.i += k + 3
			break
		}
		b.WriteString(s.text[s.i:])
		if s.li+1 >= len(s.lines) {
			s.i = len(s.text)
			s.toks = append(s.toks, token{kind: ILLEGAL, pos: pos, end: s.off(s.i), raw: `"""`, val: s.value(`unterminated """ string: add the closing """`), line: int32(startLine), col: int32(start)})
			return
		}
		b.WriteByte('\n')
		s.li++
		s.text, s.i = s.lines[s.li].Text, 0
	}
	var raw string
	if s.li == startLine {
		raw = s.text[start:s.i]
	} else {
		raw = `"""` + b.String() + `"""`
	}
	v, _, bad := unescape(b.String(), true)
	if bad != "" {
		s.toks = append(s.toks, token{kind: ILLEGAL, pos: pos, end: s.off(s.i), raw: raw, val: s.value("invalid escape " + bad + ` in """ string: ` + escapeHelp), line: int32(startLine), col: int32(start)})
		return
	}
	s.toks = append(s.toks, token{kind: STRING, pos: pos, end: s.off(s.i), raw: raw, val: s.value(v), line: int32(startLine), col: int32(start)})
}

// hyphenJoins reports whether the name part at the start of rest (up to
// the next hyphen or the end of the name) holds a letter.
func hyphenJoins(rest string) bool {
	for _, r := range rest {
		switch {
		case unicode.IsLetter(r):
			return true
		case r == '_' || unicode.IsDigit(r):
			continue
		}
		return false
	}
	return false
}

// letterBetween reports whether the hyphen at text[i] stands between two
// letters.
func letterBetween(text string, i int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:i])
	after, _ := utf8.DecodeRuneInString(text[i+1:])
	return unicode.IsLetter(before) && unicode.IsLetter(after)
}
