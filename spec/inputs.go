package spec

import (
	"strings"
	"unicode/utf8"

	"github.com/proselang/prose/diag"
)

// inputs reads the "Pattern instance receives:" block of Requires or
// Parameters from raw lines: goldmark sees it as one paragraph with lazy
// continuation lines. Each entry is `name: type -- comment`; a line
// indented deeper than the entries continues the previous comment. The
// block ends at the first non-blank line indented no deeper than the
// "receives:" line. Without that line, bullets of the form
// `- name: type -- comment` are read instead.
func (l *loader) inputs(sec *section) {
	body, base := sec.Body, int(sec.BodyPos)
	marker, from := -1, 0
	for off := 0; off < len(body); {
		ln, next := lineAt(body, off)
		if containsLower(ln, "receives:") {
			marker, from = indentOf(ln), next
			break
		}
		off = next
	}
	r := inputReader{l: l, seen: map[string]*Input{}, entryIndent: -1}
	if marker < 0 {
		r.bullets(body, base)
		return
	}
	end := len(body)
	for off := from; off < len(body); {
		ln, next := lineAt(body, off)
		if strings.TrimSpace(ln) != "" && indentOf(ln) <= marker {
			end = off
			break
		}
		r.line(ln, base+off)
		off = next
	}
	r.besideBlock(body[:from], base, marker)
	r.besideBlock(body[end:], base+end, marker)
}

// besideBlock reads the bullets of Requires written beside its
// "receives:" block, at the block's marker indentation or less. Decided:
// they are inputs as the block's entries are: a contract item
// (- `style` (string): the voice) as a function's Requires reads it, a
// `- name: type -- comment` bullet as the block reads its entries; they
// were dropped, and their names were undefined in the Delegation. The
// line of the marker itself, and bullets of another form, stay prose.
func (r *inputReader) besideBlock(body string, base, marker int) {
	for off := 0; off < len(body); {
		ln, next := lineAt(body, off)
		t := strings.TrimLeft(ln, " \t")
		if indentOf(ln) <= marker && (strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ")) && !containsLower(ln, "receives:") {
			item := strings.TrimSpace(t[2:])
			pos := base + off + len(ln) - len(t) + 2 + len(t[2:]) - len(strings.TrimLeft(t[2:], " \t"))
			if strings.HasPrefix(item, "`") {
				r.l.contractInput(item, pos)
			} else {
				r.last = nil
				r.entry(item, pos, true)
			}
		}
		off = next
	}
	r.last = nil
}

type inputReader struct {
	l           *loader
	seen        map[string]*Input
	last        *Input
	entryIndent int
}

// bullets reads top-level `- name: type -- comment` bullets.
func (r *inputReader) bullets(body string, base int) {
	for off := 0; off < len(body); {
		ln, next := lineAt(body, off)
		t := strings.TrimLeft(ln, " ")
		if indentOf(ln) < 2 && (strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ")) {
			r.last = nil
			r.entry(t[2:], base+off+len(ln)-len(t)+2, false)
		} else if r.last != nil && strings.TrimSpace(ln) != "" && indentOf(ln) >= 2 {
			r.last.Description = joinSpace(r.last.Description, strings.TrimSpace(ln))
		} else {
			r.last = nil
		}
		off = next
	}
}

// line reads one raw line of the block at offset pos.
func (r *inputReader) line(ln string, pos int) {
	t := strings.TrimSpace(ln)
	if t == "" || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		return
	}
	ind := indentOf(ln)
	lead := len(ln) - len(strings.TrimLeft(ln, " \t"))
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
		t, lead = strings.TrimSpace(t[2:]), lead+2
	}
	if r.entryIndent < 0 || ind <= r.entryIndent {
		if r.entry(t, pos+lead, true) {
			if r.entryIndent < 0 {
				r.entryIndent = ind
			}
			return
		}
		if r.entryIndent >= 0 {
			// At the entries' indentation, a line that is not an entry
			// would otherwise vanish into the previous comment.
			r.l.errorf(pos+lead, CodeInputSyntax, "input line is not \"name: type -- comment\"; indent it deeper to continue the previous comment")
			r.last = nil
			r.nameOnly(t, pos+lead)
			return
		}
	}
	if r.last != nil {
		r.last.Description = joinSpace(r.last.Description, t)
	}
}

// nameOnly keeps the name of a malformed "name: ..." line (an unknown
// type), so that its uses in the Delegation are not reported as undefined
// on top of the line's own error.
func (r *inputReader) nameOnly(t string, pos int) {
	name, _, _, ok := keyed(t)
	if !ok || r.seen[name] != nil {
		return
	}
	in := &Input{Name: name, Pos: diag.Pos(pos + strings.Index(t, name))}
	r.seen[name] = in
	r.l.s.Inputs = append(r.l.s.Inputs, in)
}

// entry parses `name: type [-- comment]` at offset pos. strict entries must
// have a type name; it reports whether t was an entry.
func (r *inputReader) entry(t string, pos int, strict bool) bool {
	name, rest, _, ok := keyed(t)
	if !ok {
		return false
	}
	typ, comment, _ := strings.Cut(rest, "--")
	typ = strings.TrimSpace(typ)
	if typ != "" && !isTypeName(typ) || typ == "" && strict {
		return false
	}
	in := &Input{Name: name, Pos: diag.Pos(pos + strings.Index(t, name)), Type: typ}
	if canon, part, suggest := canonicalType(typ); part != "" {
		at := max(strings.IndexByte(t, ':'), 0)
		at += max(strings.Index(t[at:], part), 0)
		r.l.errorf(pos+at, CodeInputSyntax, "input %q: %s", name, unknownTypeMessage(part, suggest))
	} else {
		in.Type = canon
	}
	in.comment(strings.TrimSpace(comment))
	r.last = in
	if first, dup := r.seen[name]; dup {
		r.l.errorf(int(in.Pos), CodeDuplicateInput, "input %q is declared twice (first on line %d)", name, r.l.f.Position(first.Pos).Line)
		return true
	}
	r.seen[name] = in
	if in.splitDefault != "" {
		// decided: an error, as its default read so gives a list of its
		// first element alone (default a,b gave ["a"])
		r.l.errorf(int(in.Pos), CodeBadDefault, "input %q: the commas of its default split the flags, so its default would be %s alone: write the default as JSON, (%s)", name, clip(in.DefaultRaw), in.splitDefault)
		in.HasDefault, in.DefaultRaw = false, ""
	}
	if in.HasDefault {
		v, ok := decodeValue(in.Type, in.DefaultRaw)
		in.Default = v
		if !ok && in.Type != "" {
			r.l.errorf(int(in.Pos), CodeBadDefault, "default %s of input %q is not a valid %s, so a run that does not give it stops: write %s", clip(in.DefaultRaw), in.Name, in.Type, TypeArticle(in.Type))
		}
	}
	r.l.s.Inputs = append(r.l.s.Inputs, in)
	return true
}

// comment reads "(optional, default X) description" (the parenthesis may
// stand anywhere); a leading dash or em dash before the description goes.
func (in *Input) comment(c string) {
	if i := indexFold(c, "(optional"); i >= 0 || strings.HasPrefix(c, "(") {
		if i < 0 {
			i = 0
		}
		if close := matchParen(c[i:]); close > 0 {
			in.flags(c[i+1 : i+close])
			c = strings.TrimSpace(strings.TrimSpace(c[:i]) + " " + strings.TrimSpace(c[i+close+1:]))
		}
	}
	c = strings.TrimSpace(strings.TrimLeft(c, "—–- "))
	in.Description = c
}

// indexFold is the index in s of the first match of the ASCII word sub,
// ignoring case, or -1. It searches s itself: an index into
// strings.ToLower(s) is no index into s, since lower-casing changes some
// characters' byte lengths (Ⱥ 2 to 3, İ 2 to 3) and invalid bytes become a
// 3-byte U+FFFD.
func indexFold(s, sub string) int {
	if sub == "" {
		return 0
	}
	// A window of s matches the ASCII sub only if it is ASCII (a longer
	// character makes it fewer runes than sub), so its first byte must
	// fold to sub's: checked before the rune-wise comparison.
	first := lowerASCII(sub[0])
	for i := 0; i+len(sub) <= len(s); i++ {
		if lowerASCII(s[i]) == first && strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// containsLower is strings.Contains(strings.ToLower(s), sub) for a
// lower-case ASCII sub, without lower-casing an ASCII s into a new string.
func containsLower(s, sub string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), sub)
		}
	}
	return indexFold(s, sub) >= 0
}

func (in *Input) flags(inner string) {
	if fixed, ok := defaultAsJSON(inner, 0); ok {
		in.splitDefault = fixed
	}
	for _, part := range splitTop(inner) {
		p := strings.TrimSpace(part)
		switch {
		case strings.EqualFold(p, "optional"):
			in.Optional = true
		case strings.EqualFold(p, "required"):
		default:
			if d, ok := cutDefault(p); ok {
				in.Optional, in.HasDefault, in.DefaultRaw = true, true, d
			}
		}
	}
}

// splitTop splits s at commas outside brackets, braces and quotes.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"':
			quote = c
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// indentOf counts leading columns (a tab counts 4).
func indentOf(s string) int {
	n := 0
	for _, c := range []byte(s) {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n
		}
	}
	return n
}

func joinSpace(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}
