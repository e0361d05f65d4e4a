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
type token struct {
	kind  Token
	pos   diag.Pos
	end   diag.Pos
	raw   string // source text (for names, numbers, strings, durations)
	value string // unquoted value of a STRING; message of an ILLEGAL
	line  int32
	col   int32
	nl    bool // first token of its physical line
}

// scanError is a fatal lexical error: indentation that cannot be resolved,
// a bracket that never closes or closes the wrong opener.
type scanError struct {
	pos    diag.Pos
	code   string
	msg    string
	opener diag.Pos // for a mismatched bracket: where the opener is
}

// scanner turns code lines into tokens, with INDENT/OUTDENT computed from
// a stack of indentation prefixes (as in Python and Starlark). Blank and
// comment-only lines do not affect indentation; inside (), [] and {} line
// breaks and indentation are ignored.
type scanner struct {
	lines   []Line
	toks    []token
	indents []string // indentation prefixes, outermost first; [0] == ""
	opens   []token  // unclosed brackets
	err     *scanError
	li      int    // current line index
	text    string // lines[li].Text
	i       int    // byte index into text
	lineHas bool   // current logical line has produced a token
}

// scan tokenizes lines. It stops at the first fatal error.
func scan(lines []Line) ([]token, *scanError) {
	s := &scanner{lines: lines, indents: []string{baseIndent(lines)}}
	size := 0
	for _, l := range lines {
		size += len(l.Text)
	}
	s.toks = make([]token, 0, size/8+2*len(lines)+8)
	for s.li = 0; s.li < len(lines) && s.err == nil; s.li++ {
		s.text, s.i = lines[s.li].Text, 0
		s.scanLine()
	}
	if s.err != nil {
		return s.toks, s.err
	}
	if len(s.opens) > 0 {
		o := s.opens[len(s.opens)-1]
		return s.toks, &scanError{pos: o.pos, code: "syntax/unclosed",
			msg: "unclosed '" + o.raw + "': add the matching '" + closer(o.raw) + "'", opener: diag.NoPos}
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
	return s.toks, nil
}

// baseIndent is the indentation of the first code line: a block indented as
// a whole is read as if it were not.
func baseIndent(lines []Line) string {
	for _, l := range lines {
		t := strings.TrimLeft(l.Text, " \t")
		if t != "" && t[0] != '#' && strings.TrimSpace(t) != "" {
			return l.Text[:len(l.Text)-len(t)]
		}
	}
	return ""
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
	}
	return "}"
}

func (s *scanner) off(i int) diag.Pos { return s.lines[s.li].Off + diag.Pos(i) }

func (s *scanner) emit(k Token, pos, end diag.Pos, raw, value string) {
	s.toks = append(s.toks, token{kind: k, pos: pos, end: end, raw: raw, value: value, line: int32(s.li), col: int32(pos - s.lines[min(s.li, len(s.lines)-1)].Off)})
}

// scanLine handles one physical line: indentation (outside brackets), then
// its tokens, then NEWLINE when the logical line ends here.
func (s *scanner) scanLine() {
	if len(s.opens) == 0 {
		j := 0
		for j < len(s.text) && (s.text[j] == ' ' || s.text[j] == '\t') {
			j++
		}
		if j == len(s.text) || s.text[j] == '#' || s.text[j] == '\r' && j+1 == len(s.text) {
			return // blank or comment-only
		}
		s.indent(s.text[:j])
		if s.err != nil {
			return
		}
		s.i = j
	}
	first := true
	for s.err == nil {
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
	if len(s.opens) == 0 && s.lineHas && s.err == nil {
		p := s.toks[len(s.toks)-1].end // right after the last token, before any comment
		s.emit(NEWLINE, p, p, "", "")
		s.lineHas = false
	}
}

// indent compares the line's indentation prefix with the stack and emits
// INDENT or OUTDENTs.
func (s *scanner) indent(ind string) {
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
	if mixedIndent(ind, s.indents) {
		s.err = &scanError{pos: s.off(0), code: "syntax/tabs", opener: diag.NoPos, msg: "inconsistent use of tabs and spaces in indentation: indent every line of the block the same way (spaces are recommended)"}
		return
	}
	s.err = &scanError{pos: pos, code: "syntax/indent", opener: diag.NoPos, msg: "unindent does not match any outer indentation level: align this line with the block it belongs to"}
}

// mixedIndent reports whether ind and the stack disagree about tabs.
func mixedIndent(ind string, stack []string) bool {
	tabs := strings.ContainsRune(ind, '\t')
	spaces := strings.ContainsRune(ind, ' ')
	if tabs && spaces {
		return true
	}
	for _, t := range stack {
		if t != "" && (strings.ContainsRune(t, '\t') != tabs || strings.ContainsRune(t, ' ') != spaces) {
			return true
		}
	}
	return false
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
	two := ""
	if s.i+1 < len(s.text) {
		two = s.text[s.i : s.i+2]
	}
	if k, ok := twoCharOps[two]; ok {
		s.i += 2
		s.emit(k, s.off(start), s.off(s.i), two, "")
		return
	}
	if k, ok := oneCharOps[c]; ok {
		s.i++
		s.emit(k, s.off(start), s.off(s.i), string(c), "")
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

// charHints says what to write instead of characters borrowed from other
// languages.
var charHints = map[string]string{
	"&&": "write 'and'",
	"&":  "write 'and'",
	"||": "write 'or'",
	"|":  "write 'or'",
	"!":  "write 'not' (and '!=' to compare)",
	"'":  "strings are written in double quotes: \"...\"",
	"?":  "there is no ?: operator: use if/else",
	";":  "write one statement a line",
	"*":  "the operators are + and - (no * or /)",
	"/":  "the operators are + and - (no * or /)",
	"%":  "the operators are + and - (no * or /)",
}

var twoCharOps = map[string]Token{"==": EQ, "!=": NE, "<=": LE, ">=": GE}

var oneCharOps = map[byte]Token{
	'(': LPAREN, ')': RPAREN, '[': LBRACK, ']': RBRACK, '{': LBRACE, '}': RBRACE,
	',': COMMA, ':': COLON, '.': DOT, '=': ASSIGN, '<': LT, '>': GT, '+': PLUS, '-': MINUS,
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
			s.err = &scanError{pos: t.pos, code: "syntax/bracket", opener: o.pos, msg: "'" + t.raw + "' does not match the '" + o.raw + "' it closes: expected '" + closer(o.raw) + "'"}
			return
		}
		s.opens = s.opens[:len(s.opens)-1]
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isIdentStart(s string) bool {
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
		s.emit(DURATION, pos, end, raw, raw)
	case float:
		s.emit(FLOAT, pos, end, raw, raw)
	default:
		s.emit(INT, pos, end, raw, raw)
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
			v, err := strconv.Unquote(raw)
			if err != nil {
				s.emit(ILLEGAL, s.off(start), s.off(s.i), raw, "invalid escape in string "+raw+": use \\\", \\\\, \\n or \\t")
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
// is the text between the quotes, lines joined by "\n", with no escapes.
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
			s.toks = append(s.toks, token{kind: ILLEGAL, pos: pos, end: s.off(s.i), raw: `"""`, value: `unterminated """ string: add the closing """`, line: int32(startLine), col: int32(start)})
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
	s.toks = append(s.toks, token{kind: STRING, pos: pos, end: s.off(s.i), raw: raw, value: b.String(), line: int32(startLine), col: int32(start)})
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
