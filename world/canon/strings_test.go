package canon

import (
	"bytes"
	"fmt"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// utf16LessByUnits is RFC 8785's order spelled out: the strings'
// UTF-16 code units compared one by one.
func utf16LessByUnits(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

// writeStringByRunes is RFC 8785 3.2.2.2 spelled out rune by rune.
func writeStringByRunes(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// TestMemberOrderAroundSurrogates: a member name with a rune above
// U+FFFF sorts before one with U+E000-U+FFFF at that place (its first
// UTF-16 unit is a surrogate), though its code point is higher.
func TestMemberOrderAroundSurrogates(t *testing.T) {
	got, err := Marshal(map[string]any{"a\uFB01": 1, "a\U0001F600": 2, "a": 3, "ab": 4, "a\u00e9": 5, "a\xff": 6})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"a\":3,\"ab\":4,\"a\u00e9\":5,\"a\U0001F600\":2,\"a\uFB01\":1,\"a\\ufffd\":6}"
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// FuzzStrings: member order and string escapes are those of the
// definitions above, for any pair of strings, valid UTF-8 or not.
func FuzzStrings(f *testing.F) {
	f.Add("a", "b")
	f.Add("a\uFB01", "a\U0001F600")
	f.Add("\x00\"\\\n\u2028", "\xff\xfe")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		if got, want := utf16Less(a, b), utf16LessByUnits(a, b); got != want {
			t.Fatalf("utf16Less(%q, %q) = %v, want %v", a, b, got, want)
		}
		var got, want bytes.Buffer
		writeString(&got, a)
		writeStringByRunes(&want, a)
		if got.String() != want.String() {
			t.Fatalf("writeString(%q) = %s, want %s", a, got.String(), want.String())
		}
	})
}
