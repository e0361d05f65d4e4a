package delegation

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
)

// longSamples are strings whose pieces WriteJSONString may cut inside a
// character, an escape or invalid UTF-8.
func longSamples() []string {
	return []string{
		"",
		"plain",
		strings.Repeat("a \"quoted\"\tline\n", 9000),
		strings.Repeat("é€😀\u2028\u2029<>&", 7000),
		strings.Repeat("\xff\xe2\x80abc\xf0\x9f\x98", 11000),
		strings.Repeat("\x80", 70000),
		strings.Repeat("x", 65535) + "\xe2\x80\xa8" + strings.Repeat("\x01", 300),
	}
}

func TestWriteJSONStringMatchesAppend(t *testing.T) {
	for _, s := range longSamples() {
		want := AppendJSONString(nil, s)
		for _, size := range []int{0, 64, 100, 4096, 1 << 16} {
			var got bytes.Buffer
			n, err := WriteJSONString(&got, s, make([]byte, 0, size))
			if err != nil || n != int64(got.Len()) || !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("len %d, buffer %d: wrote %d bytes (%v), not AppendJSONString's %d", len(s), size, n, err, len(want))
			}
		}
	}
}

// TestSumOfLongStringIsItsJSONDigest: a long string hashed as it is
// encoded has the digest of its JSON text, and one above the ceiling
// fails as ToJSON does.
func TestSumOfLongStringIsItsJSONDigest(t *testing.T) {
	for _, s := range longSamples() {
		got, err := Sum(s)
		if err != nil || got != sha256.Sum256(AppendJSONString(nil, s)) {
			t.Fatalf("len %d: Sum %x, %v", len(s), got, err)
		}
	}
	big := strings.Repeat("\x01", DefaultMaxValueBytes/6+1) // escaped: above the ceiling
	_, want := ToJSON(big)
	if _, err := Sum(big); err == nil || !errors.Is(err, ErrTooLarge) || err.Error() != want.Error() {
		t.Fatalf("Sum of a string above the ceiling: %v, want %v", err, want)
	}
}

// TestEncodeLongStandsIn: EncodeOptions.Long is given the long strings
// (values, not keys) in order, what it appends stands in for them, and
// their full text counts toward the ceiling.
func TestEncodeLongStandsIn(t *testing.T) {
	long := strings.Repeat("\"x\"", 40)
	v := objOf("a", "short", long, NewList(long, int64(3), objOf("k", long)))
	var seen []string
	var offs []int
	opt := EncodeOptions{LongMin: 100, Long: func(dst []byte, s string) ([]byte, int64) {
		seen, offs = append(seen, s), append(offs, len(dst))
		return append(dst, `"$"`...), int64(len(AppendJSONString(nil, s)))
	}}
	got, err := EncodeJSON(context.Background(), v, opt)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ToJSON(v)
	if len(seen) != 2 || seen[0] != long || seen[1] != long {
		t.Fatalf("Long was given %d strings", len(seen))
	}
	// Put the strings back where their stand-ins are: the plain text.
	var back []byte
	from := 0
	for _, off := range offs {
		back = append(back, got[from:off]...)
		back = AppendJSONString(back, long)
		from = off + 3
	}
	back = append(back, got[from:]...)
	if !bytes.Equal(back, want) {
		t.Fatalf("with the strings put back:\n%s\nwant\n%s", back, want)
	}
	opt.MaxBytes = int64(len(want) - 1)
	if _, err := EncodeJSON(context.Background(), v, opt); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a value one byte above the ceiling with its long strings stood in for: %v, want ErrTooLarge", err)
	}
	opt.MaxBytes = int64(len(want))
	if _, err := EncodeJSON(context.Background(), v, opt); err != nil {
		t.Fatalf("at the ceiling: %v", err)
	}
}

func objOf(kv ...Value) *Object {
	o := NewObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

func FuzzWriteJSONString(f *testing.F) {
	for _, s := range longSamples() {
		if len(s) < 1000 {
			f.Add(s, 70)
		}
	}
	f.Add("\xe2\x80\xa8\xe2\x80", 64)
	f.Fuzz(func(t *testing.T, s string, size int) {
		s = strings.Repeat(s, 1+300/(len(s)+1))
		var got bytes.Buffer
		if _, err := WriteJSONString(&got, s, make([]byte, 0, size&1023)); err != nil {
			t.Fatal(err)
		}
		if want := AppendJSONString(nil, s); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%q: %q, want %q", s, got.Bytes(), want)
		}
	})
}
