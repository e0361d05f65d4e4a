// Package surrogate finds, in JSON text, a \uXXXX escape of a UTF-16
// surrogate that is not half of a pair. encoding/json decodes such an
// escape to U+FFFD, a character other than the one sent, so every reader
// of JSON from outside prose (a program's answer, a model's, an input,
// an event, a truth) refuses it where it arrives, as it refuses bytes
// that are not UTF-8.
package surrogate

import (
	"bytes"
	"fmt"
	"unicode/utf16"
)

// Lone returns an error naming the first lone surrogate escape of data,
// JSON text, or nil when there is none. A backslash outside a string is
// no JSON, so every backslash is the start of an escape.
func Lone(data []byte) error {
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\\')
		if j < 0 {
			return nil
		}
		i += j
		r, ok := escape(data, i)
		if !ok {
			i += 2 // the escaped character: \\ starts no other escape
			continue
		}
		if utf16.IsSurrogate(r) {
			lo, ok := escape(data, i+6)
			if r >= 0xdc00 || !ok || lo < 0xdc00 || lo > 0xdfff {
				return fmt.Errorf("the escape %s is half of a UTF-16 surrogate pair, with no other half: no character (give the pair, or the character itself)", data[i:i+6])
			}
			i += 6
		}
		i += 6
	}
	return nil
}

// escape reads the \uXXXX at data[i:], if there is one.
func escape(data []byte, i int) (rune, bool) {
	if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range data[i+2 : i+6] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
