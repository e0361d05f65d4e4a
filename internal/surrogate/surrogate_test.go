package surrogate

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLone(t *testing.T) {
	for in, lone := range map[string]bool{
		`"a"`:                     false,
		`"\ud83d\ude00"`:          false, // a pair
		`"\ud800"`:                true,
		`"\udc00"`:                true, // a low half first
		`"\ud800\u0041"`:          true,
		`"\ud800x"`:               true,
		`"\\ud800"`:               false, // an escaped backslash, then text
		`"\\\ud800"`:              true,
		`{"k": "\uD800", "n": 1}`: true,
		`"\u00e9\n\t"`:            false,
	} {
		if err := Lone([]byte(in)); (err != nil) != lone {
			t.Errorf("%s: %v, want lone %v", in, err, lone)
		}
	}
}

// Lone finds exactly the escapes encoding/json would put U+FFFD in place
// of, in text that is valid JSON holding no U+FFFD of its own.
func FuzzLone(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud800"`, `"\ud83d\ude00"`, `["\\", "\udfff\ud800"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) || !utf8.ValidString(s) || strings.ContainsRune(s, utf8.RuneError) || strings.Contains(strings.ToLower(s), `\ufffd`) {
			return
		}
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return
		}
		b, _ := json.Marshal(v)
		replaced := strings.Contains(string(b), `\ufffd`) || strings.ContainsRune(string(b), utf8.RuneError)
		if got := Lone([]byte(s)) != nil; got != replaced {
			t.Errorf("%q: lone %v, but encoding/json replaced a character: %v", s, got, replaced)
		}
	})
}
