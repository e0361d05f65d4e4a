package syntax

import (
	"strconv"
	"strings"
)

// String escapes (grammar.md, "Strings").
//
// Both string forms take the escapes of a Go string (`\"`, `\\`, `\n`,
// `\t`, `\u00e9`, ...) and ProseScript's `\{` and `\}`, a brace that is
// text and never opens or closes an interpolation (`"\{topic\}"` is the
// text {topic}). Any other escape is an error at the string: upstream
// calls an unknown escape a validation error, and taking it as text
// would give a value the author did not write. A triple-quoted string
// takes the same escapes (`"""a\nb"""` holds a line break, as upstream
// reads it), and a `"` or a line break in it needs none.

// escapeHelp is what an invalid escape's error suggests.
const escapeHelp = `use \", \\, \n, \t, \{ or \}`

// unescape is the value of a string literal's text between its quotes,
// the offsets in that value of the braces written \{ or \} (text, not
// interpolation), and, for an invalid escape, the escape as written.
func unescape(s string, triple bool) (value string, lit []int, bad string) {
	if !strings.Contains(s, `\`) {
		return s, nil, ""
	}
	if !triple && !strings.Contains(s, `\{`) && !strings.Contains(s, `\}`) {
		v, err := strconv.Unquote(`"` + s + `"`)
		if err != nil {
			return "", nil, firstBadEscape(s)
		}
		return v, nil, ""
	}
	var b strings.Builder
	for len(s) > 0 {
		c := s[0]
		switch {
		case c != '\\':
			b.WriteByte(c)
			s = s[1:]
			continue
		case len(s) > 1 && (s[1] == '{' || s[1] == '}'):
			lit = append(lit, b.Len())
			b.WriteByte(s[1])
			s = s[2:]
			continue
		}
		r, multibyte, tail, err := strconv.UnquoteChar(s, '"')
		if err != nil {
			return "", nil, firstBadEscape(s)
		}
		if r < 0x80 || !multibyte {
			b.WriteByte(byte(r))
		} else {
			b.WriteRune(r)
		}
		s = tail
	}
	return b.String(), lit, ""
}

// firstBadEscape is the first escape of s that is not one, as written
// (a backslash and what follows it, at most one character more).
func firstBadEscape(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '}') {
			i++
			continue
		}
		if _, _, _, err := strconv.UnquoteChar(s[i:], '"'); err != nil {
			return s[i:min(i+2, len(s))]
		}
		// A valid escape: skip its backslash and the character after it.
		i++
	}
	return `\`
}
