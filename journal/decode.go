package journal

import (
	"strconv"
	"unicode/utf8"

	"github.com/proselang/prose/delegation"
)

// decodeResult is delegation.FromJSON of a journaled result, raw (valid
// JSON), reading the plainest values itself: strings without escapes,
// integers, booleans, null, and lists and objects of them. A result
// with anything else (an escape, a fraction or exponent, deep nesting)
// is read by delegation.FromJSON whole. Most results of a replay are
// such values, which FromJSON reads a token at a time through
// encoding/json; FuzzDecodeResult holds the two to the same values.
func decodeResult(raw []byte) (delegation.Value, error) {
	d := plainDecoder{b: raw}
	if v, ok := d.value(0); ok && d.i == len(raw) {
		return v, nil
	}
	return delegation.FromJSON(raw)
}

type plainDecoder struct {
	b []byte
	i int
}

func (d *plainDecoder) value(depth int) (delegation.Value, bool) {
	if d.i >= len(d.b) || depth > delegation.MaxDepth {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '"':
		return d.str()
	case c == '{':
		d.i++
		o := delegation.NewObject()
		if d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
			return o, true
		}
		for {
			k, ok := d.str()
			if !ok || d.i >= len(d.b) || d.b[d.i] != ':' {
				return nil, false
			}
			d.i++
			v, ok := d.value(depth + 1)
			if !ok || d.i >= len(d.b) {
				return nil, false
			}
			n := o.Len()
			if o.Set(k, v); o.Len() == n {
				return nil, false // a key twice: FromJSON says so
			}
			switch d.b[d.i] {
			case ',':
				d.i++
			case '}':
				d.i++
				return o, true
			default:
				return nil, false
			}
		}
	case c == '[':
		d.i++
		l := delegation.NewList()
		if d.i < len(d.b) && d.b[d.i] == ']' {
			d.i++
			return l, true
		}
		for {
			v, ok := d.value(depth + 1)
			if !ok || d.i >= len(d.b) {
				return nil, false
			}
			l.Append(v)
			switch d.b[d.i] {
			case ',':
				d.i++
			case ']':
				d.i++
				return l, true
			default:
				return nil, false
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		start := d.i
		d.i++
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
		}
		n, err := strconv.ParseInt(string(d.b[start:d.i]), 10, 64)
		if err != nil || d.i < len(d.b) && (d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E') {
			return nil, false
		}
		return n, true
	default:
		for _, lit := range []struct {
			text string
			v    delegation.Value
		}{{"true", true}, {"false", false}, {"null", nil}} {
			if len(d.b)-d.i >= len(lit.text) && string(d.b[d.i:d.i+len(lit.text)]) == lit.text {
				d.i += len(lit.text)
				return lit.v, true
			}
		}
		return nil, false
	}
}

// str reads a string without escapes or control characters, valid UTF-8.
func (d *plainDecoder) str() (string, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			if !utf8.Valid(d.b[start:j]) {
				return "", false
			}
			d.i = j + 1
			return string(d.b[start:j]), true
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}
