package execsvc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/proselang/prose/delegation"
)

// FuzzDecodeOutput feeds arbitrary program output to the exec service's
// reader of stdout: JSON, text, JSON that does not parse, colored JSON,
// binary. It must never panic, and what it returns must keep the
// contract: text is valid UTF-8 without NUL, trimmed, and not something
// that looks like JSON; a value re-encodes as JSON; the same output reads
// the same way twice.
func FuzzDecodeOutput(f *testing.F) {
	for _, s := range []string{
		`{"verdict":"accept","reason":"fine"}`, `[1, 2, 3]`, `"a string"`, `42`, `null`, `true`,
		"a draft\n", "  [ops] draft:\nfresh  \n\n", "[INFO] done", "{name} is ready",
		`{"verdict": "accept", comments: []`, `{"a": 1}` + "\nlog line", `[1, 2`, `{"a": 1e400}`,
		"\xef\xbb\xbf{\"a\": 1}\r\n", "\x1b[1;39m{\n  \x1b[0m\x1b[34;1m\"a\"\x1b[0m\x1b[1;39m:1\x1b[0m\n}\x1b[0m",
		"\x1b[31mred\x1b[0m", "bin\x00ary", "\xff\xfe", strings.Repeat("[", 200) + strings.Repeat("]", 200),
		"", "   \n", `{"s":"\ud800"}`, `[{"a":[{"b":null}]}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		v, err := decodeOutput("svc", out)
		v2, err2 := decodeOutput("svc", out)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("two reads differ: %v / %v", err, err2)
		}
		if err != nil {
			if v != nil {
				t.Fatalf("a value (%v) beside the error %v", v, err)
			}
			return
		}
		raw, jerr := delegation.ToJSON(v)
		if jerr != nil {
			t.Fatalf("value %#v does not re-encode: %v", v, jerr)
		}
		if raw2, _ := delegation.ToJSON(v2); !bytes.Equal(raw, raw2) {
			t.Fatalf("two reads differ: %s / %s", raw, raw2)
		}
		text := bytes.TrimSpace(bytes.TrimPrefix(out, []byte("\xef\xbb\xbf")))
		s, isText := v.(string)
		if !isText || json.Valid(text) || bytes.IndexByte(text, 0x1b) >= 0 {
			return // a JSON value (a JSON string included), or colored output
		}
		switch {
		case s != string(text):
			t.Fatalf("text %q read as %q", text, s)
		case !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0:
			t.Fatalf("text %q is not clean UTF-8", s)
		case looksLikeJSON(text):
			t.Fatalf("%q looks like JSON but was taken as text", s)
		}
	})
}

// FuzzSmallJSON holds the reader of short outputs to delegation.FromJSON:
// whatever it reads, FromJSON reads as the same value of the same type.
func FuzzSmallJSON(f *testing.F) {
	for _, s := range []string{
		"1", "0", "-0", "-", "01", "-12", "123456789012345678", "1234567890123456789", "9223372036854775807",
		"1.5", "1e3", "true", "false", "null", "nul", `""`, `"a b"`, `"\u00e9"`, `"a\"b"`, `"tab	"`, `"\xff"`,
		`"é"`, `"`, `"a"b"`, "+1", " 1", "1 ",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		v, ok := smallJSON(text)
		if !ok {
			return
		}
		want, err := delegation.FromJSON(text)
		if err != nil {
			t.Fatalf("%q read as %#v, but FromJSON fails: %v", text, v, err)
		}
		if fmt.Sprintf("%T %#v", v, v) != fmt.Sprintf("%T %#v", want, want) {
			t.Fatalf("%q read as %T %#v, FromJSON reads %T %#v", text, v, v, want, want)
		}
	})
}
