package syntax

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/proselang/prose/diag"
)

// String interpolation (grammar.md, "Strings").
//
// A string literal, quoted or triple-quoted, interpolates `{NAME}` and
// `{NAME.member...}`: a name as the scanner reads names (hyphens between
// letters join it), then members after dots, and nothing else between the
// braces, not even spaces. Every other brace is text, so JSON-looking
// strings (`"{\"verdict\": \"ok\"}"`, `"{ x }"`, `"{}"`) mean what they
// say. `{{NAME}` and `\{NAME\}` write the text `{NAME}` (escape.go);
// `true`, `false` and `null` in braces are text.

// StringPart is one piece of an interpolated string: literal text, or a
// reference (Ref, an *Ident or a *MemberExpr path of them) written at
// Brace, the position of its `{`.
type StringPart struct {
	Text  string
	Ref   Expr
	Brace diag.Pos
}

// interpolation is one `{...}` found in a string: at byte i of the text,
// the path between the braces, or an escaped one (`{{path}`).
type interpolation struct {
	i       int
	path    string
	escaped bool
}

// interpolations finds the references and escapes in s.
// A brace at an offset in lit was written \{ or \} and is text.
func interpolations(s string, lit []int) []interpolation {
	isLit := func(i int) bool { return slices.Contains(lit, i) }
	var out []interpolation
	for i := 0; i < len(s); i++ {
		if s[i] != '{' || isLit(i) {
			continue
		}
		escaped := i+1 < len(s) && s[i+1] == '{' && !isLit(i+1)
		start := i + 1
		if escaped {
			start++
		}
		n := refLen(s[start:])
		if n == 0 || start+n >= len(s) || s[start+n] != '}' || isLit(start+n) {
			if escaped {
				i++ // `{{` that escapes nothing: both braces are text
			}
			continue
		}
		out = append(out, interpolation{i: i, path: s[start : start+n], escaped: escaped})
		i = start + n
	}
	return out
}

// refLen is the length of the name path at the start of s, 0 when there
// is none.
func refLen(s string) int {
	i := 0
	for {
		n := nameLen(s[i:])
		if n == 0 {
			return 0
		}
		i += n
		if i < len(s) && s[i] == '.' && nameLen(s[i+1:]) > 0 {
			i++
			continue
		}
		break
	}
	switch s[:i] {
	case "true", "false", "null":
		return 0
	}
	return i
}

// nameLen is the length of the name at the start of s: letters, digits
// and underscores, hyphens between letters.
func nameLen(s string) int {
	if !isIdentStart(s) {
		return 0
	}
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case isIdentRune(r):
			i += w
		case r == '-' && i+1 < len(s) && isIdentStart(s[i+1:]):
			i++
		default:
			return i
		}
	}
	return i
}

// interpolate splits the value of a string literal into parts. raw is the
// literal as written in the file from pos; the references' positions are
// read from it when it holds the same references as the value (escapes
// such as \u007b could make a brace the raw text lacks; the string's own
// position is used then). It returns the value with escapes applied and
// the parts, nil when the string has no reference. The references' nodes
// come from a. lit holds the offsets in value of the braces written \{ or
// \}, which are text.
func interpolate(a *arena, value, raw string, pos diag.Pos, lit []int) (string, []StringPart) {
	refs := interpolations(value, lit)
	if len(refs) == 0 {
		return value, nil
	}
	inRaw := interpolations(raw, escapedInRaw(raw))
	if len(inRaw) != len(refs) {
		inRaw = nil
	}
	var parts []StringPart
	var text, plain strings.Builder
	last := 0
	for k, r := range refs {
		text.WriteString(value[last:r.i])
		plain.WriteString(value[last:r.i])
		if r.escaped {
			text.WriteString("{" + r.path + "}")
			plain.WriteString("{" + r.path + "}")
			last = r.i + len(r.path) + 3
			continue
		}
		brace := pos
		if inRaw != nil {
			brace = pos + diag.Pos(inRaw[k].i)
		}
		if text.Len() > 0 {
			parts = append(parts, StringPart{Text: text.String()})
			text.Reset()
		}
		parts = append(parts, StringPart{Ref: pathExpr(a, r.path, brace+1), Brace: brace})
		plain.WriteString("{" + r.path + "}")
		last = r.i + len(r.path) + 2
	}
	text.WriteString(value[last:])
	plain.WriteString(value[last:])
	if text.Len() > 0 {
		parts = append(parts, StringPart{Text: text.String()})
	}
	hasRef := false
	for _, p := range parts {
		hasRef = hasRef || p.Ref != nil
	}
	if !hasRef {
		return plain.String(), nil
	}
	return plain.String(), parts
}

// pathExpr builds the expression of a dotted name path written at pos.
func pathExpr(a *arena, path string, pos diag.Pos) Expr {
	name, rest, more := strings.Cut(path, ".")
	var x Expr = a.idents.new(Ident{NamePos: pos, Name: name})
	at := pos + diag.Pos(len(name))
	for more {
		name, rest, more = strings.Cut(rest, ".")
		x = a.members.new(MemberExpr{X: x, NamePos: at + 1, Name: name})
		at += diag.Pos(len(name)) + 1
	}
	return x
}

// litBraces is the offsets, in the value of the string literal written
// raw, of its braces written \{ or \}; nil when it has none.
func litBraces(raw string) []int {
	if !strings.Contains(raw, `\{`) && !strings.Contains(raw, `\}`) {
		return nil
	}
	q := 1
	if strings.HasPrefix(raw, `"""`) && len(raw) >= 6 {
		q = 3
	}
	if len(raw) < 2*q {
		return nil
	}
	_, lit, _ := unescape(raw[q:len(raw)-q], q == 3)
	return lit
}

// escapedInRaw is the offsets in raw, a literal as written, of the braces
// an odd run of backslashes escapes.
func escapedInRaw(raw string) []int {
	var out []int
	for i := 1; i < len(raw); i++ {
		if raw[i] != '{' && raw[i] != '}' {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && raw[j] == '\\'; j-- {
			n++
		}
		if n%2 == 1 {
			out = append(out, i)
		}
	}
	return out
}
