package delegation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// legacyToJSON is the encoder the package used before encode.go (over
// bytes.Buffer and encoding/json), kept to check that the output did not
// change.
func legacyToJSON(v Value) ([]byte, error) {
	var b bytes.Buffer
	if err := legacyWrite(&b, v, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func legacyIndented(v Value) ([]byte, error) {
	raw, err := legacyToJSON(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func legacyWrite(b *bytes.Buffer, v Value, depth int) error {
	if depth > MaxDepth {
		return ErrTooDeep
	}
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			b.WriteString("null")
		} else {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
	case string:
		legacyString(b, v)
	case time.Duration:
		legacyString(b, v.String())
	case Service:
		legacyString(b, v.ServiceName())
	case *List:
		b.WriteByte('[')
		for i, e := range v.Elems() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := legacyWrite(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *Object:
		b.WriteByte('{')
		for i, k := range v.Keys() {
			if i > 0 {
				b.WriteByte(',')
			}
			legacyString(b, k)
			b.WriteByte(':')
			e, _ := v.Get(k)
			if err := legacyWrite(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("cannot encode %T as JSON", v)
	}
	return nil
}

func legacyString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s)
	enc = bytes.ReplaceAll(enc, []byte(`\u003c`), []byte("<"))
	enc = bytes.ReplaceAll(enc, []byte(`\u003e`), []byte(">"))
	enc = bytes.ReplaceAll(enc, []byte(`\u0026`), []byte("&"))
	b.Write(enc)
}

// legacyMangles reports whether s holds text that the legacy encoder
// corrupted: a literal backslash followed by u003c, u003e or u0026 was
// turned into `\<` (invalid JSON). The new encoder writes such text
// correctly, so the comparisons skip it.
func legacyMangles(s string) bool {
	return strings.Contains(s, `\u003c`) || strings.Contains(s, `\u003e`) || strings.Contains(s, `\u0026`)
}

// reference is encoding/json's string encoding with HTML escaping off.
func reference(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

var trickyStrings = []string{
	"", "a", "plain ascii text of some length, over eight bytes",
	`quote " and backslash \ and slash /`, "<html> & 'apostrophes'",
	"\x00\x01\x07\b\t\n\v\f\r\x1b\x1f\x7f", "tab\tin the middle of a long run of text\n",
	"é ü 中文 🎉", "\u2028 line and \u2029 paragraph", "\xff\xfe invalid", "ab\xc3", "\xc3(",
	"\xed\xa0\x80 surrogate half", "a\x00b", strings.Repeat("x", 100) + "\"", strings.Repeat("é", 9),
	"12345678\"", "1234567\x80", "\ufffd real replacement",
}

type namedService string

func (s namedService) ServiceName() string { return string(s) }

// randomValue builds a value of every kind, depth levels deep at most.
func randomValue(r *rand.Rand, depth int) Value {
	switch k := r.IntN(12); {
	case k == 0:
		return nil
	case k == 1:
		return r.IntN(2) == 0
	case k == 2:
		return r.Int64() - r.Int64()
	case k == 3:
		return []float64{0.1, -2.5e-300, 1e21, 123456789.0, math.Inf(1), math.NaN(), math.MaxFloat64, 3}[r.IntN(8)]
	case k == 4:
		return trickyStrings[r.IntN(len(trickyStrings))]
	case k == 5:
		return time.Duration(r.Int64N(int64(time.Hour)))
	case k == 6:
		return namedService("svc<" + strconv.Itoa(r.IntN(9)) + ">")
	case k < 9 && depth > 0:
		l := NewList()
		for range r.IntN(5) {
			l.Append(randomValue(r, depth-1))
		}
		return l
	case depth > 0:
		o := NewObject()
		for range r.IntN(12) {
			o.Set(trickyStrings[r.IntN(len(trickyStrings))]+strconv.Itoa(r.IntN(20)), randomValue(r, depth-1))
		}
		return o
	}
	return "leaf"
}

// The encoder writes what the project printed before it, byte for byte,
// compact and indented, over many values of every kind.
func TestEncoderMatchesLegacyOutput(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	values := []Value{NewList(), NewObject(), deepList(MaxDepth - 1), deepList(MaxDepth), deepList(MaxDepth + 1)}
	for _, s := range trickyStrings {
		values = append(values, s)
	}
	for range 3000 {
		values = append(values, randomValue(r, 4))
	}
	for i, v := range values {
		want, wantErr := legacyToJSON(v)
		got, gotErr := ToJSON(v)
		if (wantErr != nil) != (gotErr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("value %d: got %s (%v), want %s (%v)", i, got, gotErr, want, wantErr)
		}
		want, wantErr = legacyIndented(v)
		got, gotErr = ToIndentedJSON(v)
		if (wantErr != nil) != (gotErr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("value %d indented: got %s (%v), want %s (%v)", i, got, gotErr, want, wantErr)
		}
		if appended, err := AppendJSON([]byte("prefix"), v); err == nil && string(appended) != "prefix"+string(want2(t, v)) {
			t.Fatalf("value %d: AppendJSON %s", i, appended)
		}
	}
}

func want2(t *testing.T, v Value) []byte {
	b, err := legacyToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The legacy encoder turned a literal `\u003c` into `\<`; the encoder
// writes valid JSON that decodes back to the text.
func TestEncoderKeepsLiteralEscapes(t *testing.T) {
	s := `a \u003c b \u0026 c`
	got, err := ToJSON(s)
	if err != nil || string(got) != `"a \\u003c b \\u0026 c"` {
		t.Fatalf("got %s, %v", got, err)
	}
	back, err := FromJSON(got)
	if err != nil || back != s {
		t.Fatalf("round trip: %q, %v", back, err)
	}
}

// Strings encode as encoding/json encodes them with HTML escaping off
// (which is what the legacy encoder meant to do), for any bytes.
func FuzzEncodeString(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s)
	}
	f.Add(`\u003c literal`)
	f.Fuzz(func(t *testing.T, s string) {
		got := string(appendString(nil, s))
		if want := reference(s); got != want {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
		if !legacyMangles(s) {
			var b bytes.Buffer
			legacyString(&b, s)
			if got != b.String() {
				t.Fatalf("%q: got %s, legacy %s", s, got, b.String())
			}
		}
		if !utf8.ValidString(got) {
			t.Fatalf("%q: invalid UTF-8 out: %q", s, got)
		}
	})
}
