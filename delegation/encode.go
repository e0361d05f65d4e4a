package delegation

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// The JSON text of values. ToJSON, ToIndentedJSON, EncodeJSON and the text
// form of `+` all write through one encoder:
//
//   - objects keep their key order; integers print without a decimal
//     point; other numbers in Go's shortest 'g' form (1e+21); non-finite
//     numbers as null; a service as its name; a duration as "1.5s";
//   - strings as encoding/json writes them with HTML escaping off: `<`, `>`
//     and `&` stay as they are, U+2028 and U+2029 are escaped, control
//     characters use \n, \r, \t, \b, \f or \u00XX, and each byte of invalid
//     UTF-8 becomes \ufffd;
//   - the indented form is exactly what json.Indent with two spaces makes
//     of the compact form.
//
// Encoding stops with an error wrapping ErrTooLarge once the compact text
// passes the size ceiling (in the indented form, also once the
// indentation alone passes it), with ErrTooDeep below MaxDepth levels, and with
// the context's error when it is canceled.

// EncodeOptions tunes EncodeJSON.
type EncodeOptions struct {
	// MaxBytes is the size ceiling of the compact text (0 means
	// DefaultMaxValueBytes). Shared parts count each time they are
	// written.
	MaxBytes int64
	// Indent writes two spaces per level, like ToIndentedJSON.
	Indent bool
	// Long, when set, is given each string value (not an object key) of
	// at least LongMin bytes in place of writing it: it appends what
	// stands for the string (a journal's stub) and returns the length of
	// the string's JSON text, which counts toward MaxBytes as if it had
	// been written. A journal so keeps a long string once, beside the
	// line, without writing it into the line first.
	Long    func(dst []byte, s string) ([]byte, int64)
	LongMin int
}

// EncodeJSON encodes v; it stops with ctx's error when ctx is canceled
// (however large v is written out) and with an error wrapping
// ErrTooLarge beyond opt.MaxBytes.
func EncodeJSON(ctx context.Context, v Value, opt EncodeOptions) ([]byte, error) {
	e := &encoder{m: newMeter(ctx, opt.MaxBytes), indent: opt.Indent}
	if opt.Long != nil {
		e.long, e.longMin = opt.Long, max(opt.LongMin, 1)
	}
	defer e.m.release()
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	if err := e.check(); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// AppendJSON appends the compact JSON of v to dst, within
// DefaultMaxValueBytes.
func AppendJSON(dst []byte, v Value) ([]byte, error) {
	e := &encoder{buf: dst, m: newMeter(context.Background(), DefaultMaxValueBytes), base: len(dst)}
	defer e.m.release()
	if err := e.value(v, 0); err != nil {
		return dst, err
	}
	if err := e.check(); err != nil {
		return dst, err
	}
	return e.buf, nil
}

// bufPool holds the buffers ToJSON encodes into before copying out the
// result, so that growing the buffer costs nothing after the first use.
var bufPool = sync.Pool{New: func() any { return new([]byte) }}

// ToJSON encodes v compactly, within DefaultMaxValueBytes.
func ToJSON(v Value) ([]byte, error) {
	bp := bufPool.Get().(*[]byte)
	out, err := AppendJSON((*bp)[:0], v)
	var res []byte
	if err == nil {
		res = append(make([]byte, 0, len(out)), out...)
	}
	if cap(out) <= 1<<20 {
		*bp = out
		bufPool.Put(bp)
	}
	return res, err
}

// ToIndentedJSON encodes v like ToJSON, indented by two spaces.
func ToIndentedJSON(v Value) ([]byte, error) {
	return EncodeJSON(context.Background(), v, EncodeOptions{Indent: true})
}

// encoder writes values into buf.
type encoder struct {
	buf    []byte
	base   int // len(buf) before encoding began
	m      *meter
	indent bool
	pad    int64 // bytes of indentation written (not counted in the size)
	// long stands in for strings of at least longMin bytes (EncodeOptions.Long);
	// extra is what the strings it stood in for add to the size.
	long    func(dst []byte, s string) ([]byte, int64)
	longMin int
	extra   int64
}

// size is the length of the compact text written so far.
func (e *encoder) size() int64 { return int64(len(e.buf)-e.base) - e.pad + e.extra }

// check counts the text written so far toward the ceiling and looks at
// the context.
func (e *encoder) check() error {
	if e.size() > e.m.max || e.pad > e.m.max {
		return tooLarge(e.m.max)
	}
	return e.m.poll()
}

// elem is called before each list element or object entry.
func (e *encoder) elem() error {
	e.m.units++
	if e.m.units >= e.m.next || int64(len(e.buf)-e.base)+e.extra > e.m.max {
		return e.check()
	}
	return nil
}

func (e *encoder) newline(depth int) {
	e.buf = append(e.buf, '\n')
	for i := 0; i < depth; i++ {
		e.buf = append(e.buf, ' ', ' ')
	}
	e.pad += 1 + 2*int64(depth)
}

func (e *encoder) value(v Value, depth int) error {
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case int64:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			e.buf = append(e.buf, "null"...)
		} else {
			e.buf = strconv.AppendFloat(e.buf, v, 'g', -1, 64)
		}
	case string:
		if e.long != nil && len(v) >= e.longMin {
			n := len(e.buf)
			var text int64
			e.buf, text = e.long(e.buf, v)
			e.extra += text - int64(len(e.buf)-n)
			return nil
		}
		e.buf = appendString(e.buf, v)
	case *List:
		return e.list(v, depth)
	case *Object:
		return e.object(v, depth)
	case time.Duration:
		e.buf = appendString(e.buf, v.String())
	case Service:
		e.buf = appendString(e.buf, v.ServiceName())
	default:
		return fmt.Errorf("cannot encode %T as JSON", v)
	}
	return nil
}

// tooDeep reports whether a list or object at depth with n elements
// nests deeper than MaxDepth: it does, or its elements would.
func tooDeep(depth, n int) bool { return depth > MaxDepth || depth == MaxDepth && n > 0 }

func (e *encoder) list(l *List, depth int) error {
	// Snapshot the elements: a parallel iteration may replace one while
	// they are written, and the list may contain itself.
	base := len(e.m.stack)
	var elems []Value
	elems, e.m.stack = l.view(e.m.stack)
	n := len(elems)
	if tooDeep(depth, n) {
		e.m.pop(base)
		return ErrTooDeep
	}
	e.buf = append(e.buf, '[')
	for i := 0; i < n; i++ {
		if err := e.elem(); err != nil {
			return err
		}
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if e.indent {
			e.newline(depth + 1)
		}
		if err := e.value(elems[i], depth+1); err != nil {
			return err
		}
	}
	e.m.pop(base)
	if e.indent && n > 0 {
		e.newline(depth)
	}
	e.buf = append(e.buf, ']')
	return nil
}

func (e *encoder) object(o *Object, depth int) error {
	base := len(e.m.stack)
	keys, vals, stack := o.view(e.m.stack) // keys below len(keys) are never rewritten
	e.m.stack = stack
	if tooDeep(depth, len(keys)) {
		e.m.pop(base)
		return ErrTooDeep
	}
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		if err := e.elem(); err != nil {
			return err
		}
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if e.indent {
			e.newline(depth + 1)
		}
		e.buf = appendString(e.buf, k)
		e.buf = append(e.buf, ':')
		if e.indent {
			e.buf = append(e.buf, ' ')
			e.pad++
		}
		if err := e.value(vals[i], depth+1); err != nil {
			return err
		}
	}
	e.m.pop(base)
	if e.indent && len(keys) > 0 {
		e.newline(depth)
	}
	e.buf = append(e.buf, '}')
	return nil
}

// plainASCII[b] is true for the ASCII bytes a JSON string holds as they
// are.
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// Eight bytes at once: a byte needs a look when it is below 0x20, '"',
// '\\' or has its top bit set.
const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// special8Mask marks the bytes of x that need a look, each by its top
// bit: exact for the lowest one marked (a borrow can mark a byte only
// above one that is marked rightly), so that bits.TrailingZeros64 of it,
// over 8, is the index of the first such byte.
func special8Mask(x uint64) uint64 {
	q := x ^ (lo8 * '"')
	bs := x ^ (lo8 * '\\')
	return ((x-lo8*0x20)&^x | x | (q-lo8)&^q | (bs-lo8)&^bs) & hi8
}

// AppendJSONString appends s as a JSON string, as every value's text is
// written (see the package comment on encoding above): encoding/json's
// bytes with HTML escaping off.
func AppendJSONString(dst []byte, s string) []byte { return appendString(dst, s) }

// appendString appends s as a JSON string (see the package comment on
// encoding above).
func appendString(dst []byte, s string) []byte {
	if len(s) > 4<<10 && cap(dst)-len(dst) < len(s)+2 {
		// A long string grows dst once, with room for some escapes,
		// not by doubling as it goes (a copy of all that came before
		// at every step).
		dst = slices.Grow(dst, len(s)+len(s)>>4+2)
	}
	dst = append(dst, '"')
	return append(appendStringBody(dst, s), '"')
}

// appendStringBody is appendString without the quotes.
func appendStringBody(dst []byte, s string) []byte {
	start := 0
	i := 0
	for i < len(s) {
		// Skip plain ASCII a word at a time, to the first byte of a
		// word that needs a look.
		for i+8 <= len(s) {
			if m := special8Mask(load8(s, i)); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if plainASCII[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		// Common valid sequences without decoding: two bytes, and three
		// bytes other than E0 and ED (whose second byte is restricted)
		// and U+2028/U+2029 (E2 80 A8/A9).
		if b >= 0xC2 && b <= 0xDF && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			i += 2
			continue
		}
		if (b >= 0xE1 && b <= 0xEC || b >= 0xEE) && b <= 0xEF && i+2 < len(s) &&
			s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 &&
			!(b == 0xE2 && s[i+1] == 0x80 && s[i+2]&0xFE == 0xA8) {
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// pieceEnd is where a piece of s cut at j may end so that it encodes as
// it does within s: before a byte that begins a character, or at j when
// the three bytes before it continue a character too (no character is
// longer than four bytes, so none is cut there).
func pieceEnd(s string, j int) int {
	for k := j; k < len(s) && k > j-4; k-- {
		if utf8.RuneStart(s[k]) {
			return k
		}
	}
	return j
}

// WriteJSONString writes s to w as AppendJSONString would append it, in
// pieces of about len(buf) bytes encoded into buf (at least 64 bytes), so that a
// long string's JSON text is never held whole: a journal hashes it and
// writes it to a file in one pass. It returns the length of the text.
func WriteJSONString(w io.Writer, s string, buf []byte) (int64, error) {
	if cap(buf) < 64 {
		buf = make([]byte, 0, 64)
	}
	piece := max(cap(buf)*7/8-8, 8) // escapes make a piece up to 6 times longer: buf grows then
	var n int64
	out := append(buf[:0], '"')
	for i := 0; i < len(s); {
		j := min(i+piece, len(s))
		j = pieceEnd(s, j)
		out = appendStringBody(out, s[i:j])
		if j == len(s) {
			out = append(out, '"')
		}
		m, err := w.Write(out)
		n += int64(m)
		if err != nil {
			return n, err
		}
		out, i = out[:0], j
	}
	if len(s) == 0 {
		m, err := w.Write(append(out, '"'))
		return n + int64(m), err
	}
	return n, nil
}

// load8 reads s[i:i+8] as a little-endian word.
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
