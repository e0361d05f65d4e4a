package execsvc

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// ansiSeq matches terminal escape sequences: CSI (colors, cursor moves),
// OSC (titles, hyperlinks, ended by BEL or ESC \) and two-byte escapes.
var ansiSeq = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])`)

// cleanText makes a program's stderr fit for an error message: terminal
// escape sequences are removed, carriage returns end lines, invalid UTF-8
// and other control characters (but tabs and newlines) become '?'.
func cleanText(s string) string {
	s = ansiSeq.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "?")
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r':
			return '\n'
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return '?'
		}
		return r
	}, s)
}
