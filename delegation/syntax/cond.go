package syntax

import (
	"strings"

	"github.com/proselang/prose/diag"
)

// headEnd returns the index of the token ending the condition of the
// if/elif/loop line starting at the current token: the last ':' at bracket
// depth 0, or for loops the '(' of `(max: N)` or the `as NAME` before the
// ':'. Without a ':' it is the line's NEWLINE (parseBlock then reports it).
func (p *parser) headEnd(loop bool) int {
	depth, colon, maxIdx, nl := 0, -1, -1, len(p.toks)-1
scan:
	for i := p.p; i < len(p.toks); i++ {
		t := &p.toks[i]
		switch t.kind {
		case LPAREN, LBRACK, LBRACE:
			if loop && depth == 0 && t.kind == LPAREN && isWordTok(p.peekAt(i+1), "max") {
				maxIdx = i
			}
			depth++
		case RPAREN, RBRACK, RBRACE:
			depth--
		case COLON:
			if depth == 0 {
				colon = i
			}
		case NEWLINE, EOF, INDENT, OUTDENT:
			nl = i
			break scan
		}
	}
	switch {
	case maxIdx >= 0:
		return maxIdx
	case colon < 0:
		return nl
	case loop && colon-2 >= p.p && isWordTok(&p.toks[colon-2], "as") && p.toks[colon-1].kind == IDENT:
		return colon - 2
	}
	return colon
}

func (p *parser) peekAt(i int) *token {
	if i >= len(p.toks) {
		return &p.toks[len(p.toks)-1]
	}
	return &p.toks[i]
}

// parseCond parses the condition of an if/elif/loop line, which spans the
// tokens up to index end. When those tokens form one expression it is
// returned; otherwise the condition is natural language.
//
//	cond = expr | natural_text .
func (p *parser) parseCond(what string, end int) Expr {
	start := p.p
	for _, m := range []string{markLine, markBlock} {
		if end-start >= 3 && isMark(&p.toks[start], m) && isMark(&p.toks[end-1], m) {
			// **COND** or ***COND***: the condition between the markers
			p.p++
			x := p.parseCond(what, end-1)
			p.p = end
			return x
		}
	}
	if start >= end {
		t := p.tok()
		p.errorf(t.pos, "syntax/expected", "expected a condition after '%s'", what)
	}
	if x := p.tryExpr(end); x != nil {
		return x
	}
	if looksLikeExpr(p.toks[start:end]) {
		// Report the expression's own error, precisely. parseExpr and
		// errorf unwind (bailout), so nothing is returned from here.
		p.parseExpr()
		if p.tok().kind == ASSIGN {
			p.errorf(p.tok().pos, "syntax/expected", "a condition compares with '==', not '=': write '%s A == B:'", what)
		}
		hint := ""
		if t := p.tok(); t.kind == ILLEGAL && charHints[t.raw] != "" {
			hint = ": " + charHints[t.raw] // && for and
		} else if t.kind == PIPE {
			hint = ": write 'or' (a '|' starts a pipeline stage, which a condition cannot hold)"
		}
		p.errorf(p.tok().pos, "syntax/expected", "unexpected %s in the %s condition%s", describe(p.tok()), what, hint)
	}
	p.p = end
	return p.natural(p.toks[start:end])
}

// looksLikeExpr reports whether condition tokens hold operators that
// natural language does not use, so a failed parse is a broken expression.
func looksLikeExpr(toks []token) bool {
	for i, t := range toks {
		if isRegexpStart(toks, i) {
			// `id matches /^[a-z]+$/`: what follows is a pattern, whose
			// brackets and + are no operators (a claim form, rule 23)
			return false
		}
		switch t.kind {
		case EQ, NE, LT, LE, GT, GE, ASSIGN, PLUS, LBRACK, LBRACE, PIPE:
			return true
		case ILLEGAL:
			// && || ! borrowed from other languages: an expression
			// meant, never words for a judge (`if a && b:` would else go
			// to a model as text)
			switch t.raw {
			case "&&", "||", "!", "&":
				return true
			}
		}
	}
	return false
}

// isRegexpStart reports whether toks[i] is the word matches followed by
// a pattern between slashes or backquotes, as the claim form writes one.
func isRegexpStart(toks []token, i int) bool {
	if i+1 >= len(toks) || toks[i].kind != IDENT || !strings.EqualFold(toks[i].raw, "matches") {
		return false
	}
	n := toks[i+1].raw
	return strings.HasPrefix(n, "/") || strings.HasPrefix(n, "`")
}

// tryExpr parses an expression speculatively; it succeeds only when the
// expression ends exactly at token end.
func (p *parser) tryExpr(end int) (x Expr) {
	start, depth, spec := p.p, p.depth, p.spec
	stacks := p.stackLens()
	defer func() {
		p.spec = spec
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			x = nil
		}
		if x == nil {
			p.p, p.depth = start, depth
			p.truncStacks(stacks)
		}
	}()
	p.spec = true
	x = p.parseExpr()
	if p.p != end {
		return nil
	}
	return x
}

// natural builds the NaturalCond for the condition tokens toks.
func (p *parser) natural(toks []token) *NaturalCond {
	first, last := toks[0], toks[len(toks)-1]
	n := p.a.naturals.new(NaturalCond{TextPos: first.pos, EndPos: last.end, Text: p.sourceText(toks)})
	ws := p.condWords(toks)
	words := p.wordStack[:0]
	low := p.low[:0]
	for _, w := range ws {
		if w.path && !reserved(w.text) {
			words = append(words, Word{Pos: w.pos, Path: w.text})
		}
		low = append(low, strings.ToLower(w.text))
	}
	n.Words = p.a.wordLists.cut(words)
	analyze(n, ws, low)
	clear(words)
	clear(low)
	p.wordStack, p.low = words[:0], low[:0]
	return n
}

// sourceText returns the text the tokens span, as written in the file.
func (p *parser) sourceText(toks []token) string {
	first, last := toks[0], toks[len(toks)-1]
	inLine := "" // the text in the tokens' line, when they are on one
	onLine := false
	if first.line == last.line {
		t := p.lines[first.line].Text
		if e := int(last.col) + len(last.raw); e <= len(t) && int(first.col) <= e {
			inLine, onLine = t[first.col:e], true
		}
	}
	if !onLine && first.line < last.line {
		if text, ok := p.linesText(first, last); ok {
			return text
		}
	}
	if p.file != nil {
		src := p.file.Source()
		if int(last.end) <= len(src) && first.pos <= last.end && first.pos >= 0 &&
			len(first.raw) <= int(last.end-first.pos) && string(src[first.pos:int(first.pos)+len(first.raw)]) == first.raw {
			if text := src[first.pos:last.end]; onLine && string(text) == inLine {
				return inLine // the same text, without a copy
			}
			return string(src[first.pos:last.end])
		}
	}
	if onLine {
		return inLine
	}
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = t.raw
	}
	return strings.Join(parts, " ")
}

// linesText is the text from first to last on lines of their own, the
// lines as the code has them: in a Markdown list item the file holds
// the item's indentation between them, which is no part of the code
// (the condition reads the same wherever its block stands). ok is false
// when last does not end on its line as written (a string of several
// lines).
func (p *parser) linesText(first, last token) (string, bool) {
	if int(last.line) >= len(p.lines) || strings.Contains(last.raw, "\n") {
		return "", false
	}
	t := p.lines[first.line].Text
	e := int(last.col) + len(last.raw)
	if int(first.col) > len(t) || e > len(p.lines[last.line].Text) {
		return "", false
	}
	var b strings.Builder
	b.WriteString(t[first.col:])
	for l := first.line + 1; l < last.line; l++ {
		b.WriteString("\n")
		b.WriteString(p.lines[l].Text)
	}
	b.WriteString("\n")
	b.WriteString(p.lines[last.line].Text[:e])
	return b.String(), true
}

// cword is one word of a natural condition: an identifier path, a
// contraction such as "doesn't", or another token's text.
type cword struct {
	text string
	pos  diag.Pos
	path bool
}

// condWords splits condition tokens into words, in p.cwords (valid
// until the next call). A word of several tokens on one line is the
// line's text, not a new string.
func (p *parser) condWords(toks []token) []cword {
	ws := p.cwords[:0]
	for i := 0; i < len(toks); {
		t := toks[i]
		switch t.kind {
		case IDENT:
		case STRING, INT, FLOAT, DURATION:
			text := t.raw
			if t.kind == STRING {
				text = tokValue(p.vals, &t)
			}
			ws = append(ws, cword{text: text, pos: t.pos})
			i++
			continue
		default: // punctuation and quotes carry no word
			i++
			continue
		}
		w := cword{text: t.raw, pos: t.pos, path: true}
		end, j := t.end, i+1
		if j+1 < len(toks) && toks[j].kind == ILLEGAL && (toks[j].raw == "'" || toks[j].raw == "\u2019") &&
			toks[j].pos == end && toks[j+1].kind == IDENT && toks[j+1].pos == toks[j].end {
			// A contraction (doesn't) is one word; a possessive
			// (verdict's) names its owner.
			if toks[j+1].raw != "s" {
				if toks[j].raw == "'" {
					w.text = p.joined(toks[i:j+2], "'")
				} else {
					w.text += "'" + toks[j+1].raw
				}
				w.path = false
			}
			j += 2
		} else {
			for j+1 < len(toks) && toks[j].kind == DOT && toks[j].pos == end && toks[j+1].kind == IDENT && toks[j+1].pos == toks[j].end {
				end = toks[j+1].end
				j += 2
			}
			if j > i+1 {
				w.text = p.joined(toks[i:j], ".")
			}
		}
		ws = append(ws, w)
		i = j
	}
	p.cwords = ws
	return ws
}

// joined is the text of adjacent tokens: the line's, when they are on one,
// else their raw texts joined by sep (the text between two of them).
func (p *parser) joined(toks []token, sep string) string {
	first, last := &toks[0], &toks[len(toks)-1]
	if first.line == last.line {
		return p.lines[first.line].Text[first.col : int(last.col)+len(last.raw)]
	}
	text := first.raw
	for k := 2; k < len(toks); k += 2 {
		text += sep + toks[k].raw
	}
	return text
}

var (
	negations = wordSet("not never no doesn't don't didn't isn't aren't won't cannot can't hasn't haven't shouldn't")
	auxiliary = wordSet("does do did has have is are was were")
	adverbs   = wordSet("explicitly expressly clearly unambiguously unequivocally unmistakably really actually " +
		"still also truly definitely definitively indeed fully")
	articles = wordSet("a an the")
	negative = wordSet("failure failures fail fails failed failing error errors erroneous broken invalid " +
		"unacceptable rejected reject rejection wrong incorrect bad unsuccessful insufficient inadequate " +
		"incomplete empty missing unsafe poor false unsatisfactory flawed defective problematic")
	positive = wordSet("acceptable accepted success successful succeeded valid pass passes passed passing " +
		"correct good ok okay sufficient adequate complete satisfactory approved true fine right safe certified done")
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// analyze fills Negated, Verb and Says from the condition's words: an
// optional leading negation or article, the subject path, then negations, auxiliaries
// and adverbs before the verb.
// low holds the words lower-cased.
func analyze(n *NaturalCond, ws []cword, low []string) {
	i := 0
	for i < len(ws) && (negations[low[i]] || articles[low[i]]) {
		n.Negated = n.Negated || negations[low[i]]
		i++
	}
	if i >= len(ws) {
		return
	}
	subj := i
	i++
	for i < len(ws) {
		switch {
		case negations[low[i]]:
			n.Negated = true
		case auxiliary[low[i]] || adverbs[low[i]]:
		case (low[i] == "fails" || low[i] == "fail") && i+1 < len(ws) && low[i+1] == "to":
			n.Negated = true
			i++
		default:
			n.Verb = low[i]
			if n.Verb == "says" && ws[subj].path {
				n.Says = says(ws[subj].text, ws[i+1:], low[i+1:])
			}
			return
		}
		i++
	}
}

// says parses `SUBJECT is [not] [article] PREDICATE` after `CRITERION says`.
func says(criterion string, ws []cword, low []string) *Says {
	for len(ws) > 0 && articles[low[0]] {
		ws, low = ws[1:], low[1:]
	}
	if len(ws) < 3 || !ws[0].path {
		return nil
	}
	s := &Says{Criterion: criterion, Subject: ws[0].text}
	i := 1
	switch low[i] {
	case "is", "are":
	case "isn't", "aren't":
		s.Negated = true
	default:
		return nil
	}
	i++
	if i < len(low) && low[i] == "not" {
		s.Negated = true
		i++
	}
	var pred []string
	for ; i < len(low); i++ {
		if !articles[low[i]] {
			pred = append(pred, low[i])
		}
	}
	if len(pred) == 0 {
		return nil
	}
	s.Predicate = strings.Join(pred, " ")
	s.Polarity = polarity(pred)
	return s
}

// polarity classifies a predicate by its first word that has one.
func polarity(words []string) Polarity {
	for _, w := range words {
		switch {
		case negative[w]:
			return Negative
		case positive[w]:
			return Positive
		}
	}
	return Unknown
}
