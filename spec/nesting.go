package spec

import "strings"

// maxPrefix is the longest run of Markdown container markup (indentation,
// '>' quotes, list markers) the loader accepts at the start of a line.
// goldmark's time grows faster than linearly with container nesting, so a
// file of a few MiB nested thousands of levels deep would take minutes or
// hours to read; no real spec comes near this.
const maxPrefix = 256

// deepLine returns the offset of the first line of text whose container
// prefix is longer than maxPrefix, or -1.
func deepLine(text string) int {
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		if end > maxPrefix && containerPrefix(text[off:off+end]) > maxPrefix { // a prefix is no longer than its line
			return off
		}
		off += end + 1
	}
	return -1
}

// containerPrefix is the length of line's leading run of spaces, tabs,
// '>' quote markers and list markers ("- ", "* ", "+ ", "1. ", "1) ").
func containerPrefix(line string) int {
	i := 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '>':
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			i += 2
		case '0' <= c && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && '0' <= line[j] && line[j] <= '9' {
				j++
			}
			if j+1 < len(line) && (line[j] == '.' || line[j] == ')') && (line[j+1] == ' ' || line[j+1] == '\t') {
				i = j + 2
				continue
			}
			return i
		default:
			return i
		}
	}
	return i
}
