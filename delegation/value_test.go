package delegation

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// JSON round trips keep integers as integers, key order, and refuse
// numbers that do not fit a float64 instead of turning them into null,
// and integers beyond int64 that a float64 would keep as another integer.
func TestJSONNumbers(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{`{"b":1,"a":2.5,"c":-3}`, `{"b":1,"a":2.5,"c":-3}`},
		{`[9007199254740993]`, `[9007199254740993]`},
		{`[123456789012345680000]`, `[1.2345678901234568e+20]`},
		{`[1e3]`, `[1000]`},
	} {
		v, err := FromJSON([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		got, _ := ToJSON(v)
		if string(got) != tc.out {
			t.Errorf("%s: got %s, want %s", tc.in, got, tc.out)
		}
	}
	_, err := FromJSON([]byte(`{"n": [12345678901234567890]}`))
	if err == nil || !strings.Contains(err.Error(), "kept as 12345678901234567000") {
		t.Errorf("12345678901234567890: err = %v, want it refused, not rounded", err)
	}
	var inexact *InexactIntegerError
	if !errors.As(err, &inexact) || inexact.Integer != "12345678901234567890" || inexact.Kept != "12345678901234567000" {
		t.Errorf("12345678901234567890: err = %#v, want an InexactIntegerError naming it and what it would be", err)
	}
	if _, err := FromJSON([]byte(`{"f": 1e400}`)); err == nil || !strings.Contains(err.Error(), "1e400 is out of range") {
		t.Errorf("1e400: err = %v", err)
	}
}

// ToDuration is the one reader of durations: timeouts, backoff and config
// keys typed duration all go through it.
func TestToDuration(t *testing.T) {
	for _, tc := range []struct {
		in   Value
		want time.Duration
		ok   bool
	}{
		{1500 * time.Millisecond, 1500 * time.Millisecond, true},
		{int64(2), 2 * time.Second, true},
		{0.5, 500 * time.Millisecond, true},
		{" 1m30s ", 90 * time.Second, true},
		{"30", 30 * time.Second, true},
		{"-1s", 0, false},
		{int64(-3), 0, false},
		{"soon", 0, false},
		{nil, 0, false},
	} {
		got, ok := ToDuration(tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("ToDuration(%#v) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// JSON that is not UTF-8 is refused, naming where, not read with U+FFFD
// in place of its bad bytes.
func TestJSONNotUTF8(t *testing.T) {
	if _, err := FromJSON([]byte("{\"n\": \"a\xffb\"}")); err == nil || !strings.Contains(err.Error(), "not UTF-8") || !strings.Contains(err.Error(), "offset 8") {
		t.Errorf("err = %v, want it refused at offset 8", err)
	}
	if v, err := FromJSON([]byte(`{"n": "a\ufffdb é"}`)); err != nil || Text(v) != `{"n":"a`+"\ufffd"+`b é"}` {
		t.Errorf("valid UTF-8: %v, %v", Text(v), err)
	}
}

// A \u escape of half a surrogate pair decodes to no character:
// encoding/json would read U+FFFD in its place, so it is refused, as a
// byte that is not UTF-8 is; a whole pair is its character.
func TestJSONLoneSurrogate(t *testing.T) {
	if _, err := FromJSON([]byte(`{"out": "x\ud800y"}`)); err == nil || !strings.Contains(err.Error(), `\ud800 is half of a UTF-16 surrogate pair`) {
		t.Errorf("lone surrogate: err = %v, want it refused", err)
	}
	if v, err := FromJSON([]byte(`{"out": "\ud83d\ude00", "esc": "\\ud800"}`)); err != nil || Text(v) != `{"out":"😀","esc":"\\ud800"}` {
		t.Errorf("a pair and an escaped backslash: %v, %v", Text(v), err)
	}
}
