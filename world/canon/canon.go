// Package canon writes JSON values in the canonical form of RFC 8785
// (JSON Canonicalization Scheme) and fingerprints them.
//
// Marshal takes a decoded JSON value (what encoding/json gives with
// UseNumber, or plain Go maps, slices, strings, bools, numbers and nil)
// and writes it with object members sorted by the UTF-16 code units of
// their names, numbers in the shortest ECMAScript form, strings with the
// minimal escapes, and no white space. Indent writes the same value
// readable (two spaces, one member per line, the same order). Fingerprint
// is "sha256:" and the hex digest of the canonical bytes of a value with
// the named immaterial fields removed at every depth (Strip).
//
// Main entry points: Marshal, Indent, Decode, Fingerprint, Strip.
package canon

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/proselang/prose/internal/surrogate"
)

// Decode parses JSON into a value Marshal writes exactly (numbers kept as
// json.Number). It refuses trailing data and text that is not UTF-8.
func Decode(data []byte) (any, error) {
	if !utf8.Valid(data) {
		// encoding/json would put U+FFFD in place of each bad byte, a
		// value other than the one sent
		return nil, fmt.Errorf("not UTF-8 JSON: a byte of it is no UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("JSON value followed by more data")
	}
	return v, nil
}

// Normalize turns any value encoding/json can write into the decoded
// form (maps, slices, json.Number, ...).
func Normalize(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// Marshal writes v canonically.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := write(&b, v, "", ""); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Indent writes v with canonical member order, indented by two spaces,
// ending in a newline: the readable form of the published files.
func Indent(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := write(&b, v, "\n", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// Fingerprint is the sha256 of v's canonical form without the
// immaterial fields.
func Fingerprint(v any, immaterial []string) (string, error) {
	b, err := Marshal(Strip(v, immaterial))
	if err != nil {
		return "", err
	}
	return Hash(b), nil
}

// Hash is "sha256:" and the hex digest of b.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Strip returns v without the members named in names, at every depth (v
// itself is not changed).
func Strip(v any, names []string) any {
	if len(names) == 0 {
		return v
	}
	drop := map[string]bool{}
	for _, n := range names {
		drop[n] = true
	}
	return strip(v, drop)
}

func strip(v any, drop map[string]bool) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if !drop[k] {
				out[k] = strip(x, drop)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = strip(x, drop)
		}
		return out
	}
	return v
}

func write(b *bytes.Buffer, v any, nl, ind string) error {
	return writeAt(b, v, nl, ind, "")
}

func writeAt(b *bytes.Buffer, v any, nl, ind, cur string) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		writeString(b, v)
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return fmt.Errorf("number %s: %v", v, err)
		}
		if !strings.ContainsAny(string(v), ".eE") {
			if err := exactInteger(string(v)); err != nil {
				return err
			}
		}
		return writeNumber(b, f)
	case float64:
		return writeNumber(b, v)
	case int:
		return writeInteger(b, int64(v))
	case int64:
		return writeInteger(b, v)
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(nl + cur + ind)
			if err := writeAt(b, x, nl, ind, cur+ind); err != nil {
				return err
			}
		}
		b.WriteString(nl + cur + "]")
	case map[string]any:
		if len(v) == 0 {
			b.WriteString("{}")
			return nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return utf16Less(keys[i], keys[j]) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(nl + cur + ind)
			writeString(b, k)
			b.WriteByte(':')
			if nl != "" {
				b.WriteByte(' ')
			}
			if err := writeAt(b, v[k], nl, ind, cur+ind); err != nil {
				return err
			}
		}
		b.WriteString(nl + cur + "}")
	default:
		// Anything else encoding/json can write: its decoded form holds
		// only the types above.
		n, err := Normalize(v)
		if err != nil {
			return err
		}
		return writeAt(b, n, nl, ind, cur)
	}
	return nil
}

// utf16Less orders member names by their UTF-16 code units (RFC 8785
// 3.2.3). It compares rune by rune: UTF-16 orders as code points do,
// except that a rune above U+FFFF is written from a surrogate
// (U+D800-U+DFFF), which comes before U+E000-U+FFFF. An invalid byte
// is U+FFFD, as utf16.Encode([]rune(s)) reads it.
func utf16Less(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return firstUnit(ra) < firstUnit(rb) || firstUnit(ra) == firstUnit(rb) && ra < rb
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b != ""
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r > 0xFFFF {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// WriteString writes s as a JSON string of RFC 8785 (Marshal's form of
// a string), for a caller that writes a canonical form of its own.
func WriteString(b *bytes.Buffer, s string) { writeString(b, s) }

// writeString escapes only what RFC 8785 3.2.2.2 says: the quote, the
// backslash and control characters.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		// A run of bytes written as they are: printable ASCII but the
		// quote and the backslash.
		j := i
		for j < len(s) && s[j] >= 0x20 && s[j] < 0x80 && s[j] != '"' && s[j] != '\\' {
			j++
		}
		b.WriteString(s[i:j])
		if i = j; i == len(s) {
			break
		}
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

// writeNumber writes f as ECMAScript's Number.prototype.toString does
// (RFC 8785 3.2.2.3).
// An integer that the canonical form would write as another integer is
// refused, not rounded (decided): 9007199254740993 would be written,
// fingerprinted and published as 9007199254740992, a plausible wrong
// value. Integers up to 2^53, and larger ones whose digits the shortest
// float64 form keeps (123456789012345680000), are written as ever; a
// number with a fraction or an exponent is a float, rounded as floats
// are.
func writeInteger(b *bytes.Buffer, i int64) error {
	if i > 1<<53 || i < -(1<<53) {
		if err := exactInteger(strconv.FormatInt(i, 10)); err != nil {
			return err
		}
	}
	return writeNumber(b, float64(i))
}

// exactInteger refuses the integer literal lit when its canonical form
// is another integer.
func exactInteger(lit string) error {
	kept, err := Kept(lit)
	if err != nil {
		return err
	}
	if kept != lit {
		return fmt.Errorf("the integer %s is beyond what a JSON number holds exactly (it would be kept as %s; every integer up to 2^53 = 9007199254740992 is exact): give it as a string", lit, kept)
	}
	return nil
}

// Kept is the integer literal lit as a JSON number (a float64) keeps it:
// lit itself up to 2^53, and beyond it whatever integer the shortest
// float64 form writes (9007199254740993 is kept as 9007199254740992).
func Kept(lit string) (string, error) {
	if len(strings.TrimPrefix(lit, "-")) <= 15 { // below 10^15 < 2^53: exact
		return lit, nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return "", fmt.Errorf("number %s: %v", lit, err)
	}
	var kept bytes.Buffer
	if err := writeNumber(&kept, f); err != nil {
		return "", err
	}
	return kept.String(), nil
}

func writeNumber(b *bytes.Buffer, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("number %v has no JSON form", f)
	}
	if f == 0 {
		b.WriteByte('0')
		return nil
	}
	if f < 0 {
		b.WriteByte('-')
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n := x + 1 // the decimal point's place
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		b.WriteString(digits + strings.Repeat("0", n-k))
	case 0 < n && n <= 21:
		b.WriteString(digits[:n] + "." + digits[n:])
	case -6 < n && n <= 0:
		b.WriteString("0." + strings.Repeat("0", -n) + digits)
	default:
		b.WriteString(digits[:1])
		if k > 1 {
			b.WriteString("." + digits[1:])
		}
		sign := "+"
		if n-1 < 0 {
			sign = "-"
		}
		fmt.Fprintf(b, "e%s%d", sign, abs(n-1))
	}
	return nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// SortNames orders member names as Marshal writes them: by their UTF-16
// code units (RFC 8785 3.2.3), for a caller that writes a canonical
// object of its own.
func SortNames(names []string) {
	sort.Slice(names, func(i, j int) bool { return utf16Less(names[i], names[j]) })
}

// WriteInt writes n as Marshal writes a number.
func WriteInt(b *bytes.Buffer, n int64) {
	if -1<<53 <= n && n <= 1<<53 {
		b.WriteString(strconv.FormatInt(n, 10))
		return
	}
	_ = writeNumber(b, float64(n)) // finite: never an error
}

// Exact reports the first integer of v (a decoded value) that the
// canonical form would write as another integer (writeInteger), so that
// the boundary where a value arrives can refuse it naming what sent it.
func Exact(v any) error {
	switch v := v.(type) {
	case json.Number:
		if !strings.ContainsAny(string(v), ".eE") {
			return exactInteger(string(v))
		}
		if _, err := strconv.ParseFloat(string(v), 64); err != nil {
			return fmt.Errorf("the number %s is beyond what a JSON number holds (at most about 1.8e308): give it as a string", v)
		}
	case int64:
		if v > 1<<53 || v < -(1<<53) {
			return exactInteger(strconv.FormatInt(v, 10))
		}
	case int:
		return Exact(int64(v))
	case map[string]any:
		for _, e := range v {
			if err := Exact(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range v {
			if err := Exact(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// DecodeEvent is Decode for a value that arrives from outside (an event):
// it also refuses an object that names a member twice, whose value
// encoding/json would take from the last (decided, as delegation.FromJSON
// does: which one was meant cannot be known), and an integer Exact
// refuses.
func DecodeEvent(data []byte) (any, error) {
	v, err := Decode(data)
	if err != nil {
		return nil, err
	}
	if err := noDuplicates(data); err != nil {
		return nil, err
	}
	if err := loneSurrogate(data); err != nil {
		return nil, err
	}
	if err := Exact(v); err != nil {
		return nil, err
	}
	return v, nil
}

// LoneSurrogate refuses JSON text with a \uXXXX escape of a UTF-16
// surrogate that is not half of a pair, as DecodeEvent does: for a value
// that arrives from outside in a reader other than DecodeEvent (a
// render's answer).
func LoneSurrogate(data []byte) error { return loneSurrogate(data) }

// loneSurrogate refuses JSON text (valid, as Decode found it) with a
// \uXXXX escape of a UTF-16 surrogate that is not half of a pair:
// encoding/json puts U+FFFD in its place, a value other than the one
// sent (as Decode refuses bytes that are no UTF-8).
func loneSurrogate(data []byte) error { return surrogate.Lone(data) }

// noDuplicates refuses JSON text (valid, as Decode found it) with an
// object that names a member twice.
func noDuplicates(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		names map[string]bool
		key   bool // the next token of this object is a member name
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end (Decode has seen the text whole)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.key {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			name, _ := tok.(string)
			if top.names[name] {
				return fmt.Errorf("the member %q appears twice in one object", name)
			}
			top.names[name] = true
			top.key = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			if top != nil && top.names != nil {
				top.key = true
			}
			stack = append(stack, &frame{names: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			if top != nil && top.names != nil {
				top.key = true
			}
			stack = append(stack, &frame{})
			continue
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// a value ended: in an object, a name comes next
		if len(stack) > 0 && stack[len(stack)-1].names != nil {
			stack[len(stack)-1].key = true
		}
	}
}
