package journal

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/proselang/prose/delegation"
)

// appendRecord appends the JSON of rec to b as encoding/json (HTML
// escaping off) writes it, byte for byte, without reflection: the records
// a run writes for each call and judgment are encoded here, where
// encoding/json cost more than the rest of journaling a call. ok is false
// for a record this encoder leaves to encoding/json (one with a nested
// error, a gate, the trace's totals or model usage, or a time outside
// what RFC 3339 writes); b is then returned unchanged.
// TestAppendRecordMatchesEncodingJSON and FuzzAppendRecord hold it to
// encoding/json's bytes.
func appendRecord(b []byte, rec *Record) (_ []byte, ok bool) {
	b, _, ok = appendRecordAt(b, rec)
	return b, ok
}

// recordEncodable reports whether appendRecord encodes rec.
func recordEncodable(rec *Record) bool {
	return rec.Nested == nil && rec.Gate == nil && rec.Totals == nil && rec.ModelUsage == nil &&
		rfc3339(rec.Time) && (rec.resultJSON || validRaw(rec.Result)) && validRaw(rec.ArgsValue) && validRaw(rec.Request) &&
		!math.IsNaN(rec.MS) && !math.IsInf(rec.MS, 0)
}

// appendRecordAt is appendRecord, also returning where rec.Result begins
// in b.
func appendRecordAt(b []byte, rec *Record) (_ []byte, resultAt int, ok bool) {
	if !recordEncodable(rec) {
		return b, 0, false
	}
	b = append(b, `{"t":`...)
	b = appendString(b, rec.Type)
	b = append(b, `,"time":`...)
	b = appendTime(b, rec.Time)
	if !rec.ID.IsZero() {
		b = appendField(b, "id", rec.ID.Key())
	}
	b = appendField(b, "pos", rec.Pos)
	b = appendInt(b, "attempt", rec.Attempt)
	b = appendField(b, "slot", rec.Slot)
	b = appendField(b, "args", rec.Args)
	if len(rec.Result) > 0 {
		resultAt = len(b) + len(`,"result":`)
	}
	b = appendRaw(b, "result", rec.Result)
	b = appendField(b, "err", rec.Err)
	b = appendField(b, "kind", rec.Kind)
	b = appendBool(b, "catchable", rec.Catchable)
	if rec.MS != 0 {
		b = append(b, `,"ms":`...)
		b = appendFloat(b, rec.MS)
	}
	b = appendInt(b, "n", rec.N)
	b = appendField(b, "cond", rec.Cond)
	b = appendField(b, "values", rec.Values)
	if rec.Holds != nil {
		b = append(b, `,"holds":`...)
		b = strconv.AppendBool(b, *rec.Holds)
	}
	b = appendField(b, "pick", rec.Pick)
	b = appendField(b, "reasoning", rec.Reasoning)
	b = appendBool(b, "asked", rec.Asked)
	b = appendField(b, "model", rec.Model)
	b = appendField(b, "rule", rec.Rule)
	b = appendInt(b, "tokens_in", rec.TokensIn)
	b = appendInt(b, "tokens_out", rec.TokensOut)
	b = appendBool(b, "fail_closed", rec.FailClosed)
	if rec.Winner != nil {
		b = append(b, `,"winner":`...)
		b = strconv.AppendInt(b, int64(*rec.Winner), 10)
	}
	if rec.Failed != nil {
		b = append(b, `,"failed":`...)
		b = strconv.AppendInt(b, int64(*rec.Failed), 10)
	}
	b = appendInt(b, "started", rec.Started)
	b = appendInts(b, "dropped", rec.Dropped)
	b = appendField(b, "path", rec.Path)
	b = appendBool(b, "withheld", rec.Withheld)
	b = appendInts(b, "order", rec.Order)
	b = appendField(b, "spec_sha256", rec.SpecDigest)
	b = appendField(b, "status", rec.Status)
	b = appendField(b, "err_kind", rec.ErrKind)
	b = appendField(b, "err_code", rec.ErrCode)
	b = appendField(b, "mode", rec.Mode)
	b = appendBool(b, "force", rec.Force)
	b = appendField(b, "prose", rec.Prose)
	b = appendRaw(b, "args_value", rec.ArgsValue)
	b = appendField(b, "system", rec.System)
	b = appendField(b, "system_sha256", rec.SystemDigest)
	b = appendField(b, "prompt", rec.Prompt)
	b = appendField(b, "reply", rec.Reply)
	b = appendRaw(b, "request", rec.Request)
	b = appendInt(b, "pgid", rec.PGID)
	b = appendField(b, "proc", rec.Proc)
	return append(b, '}'), resultAt, true
}

// appendHeader is appendRecord for a journal's header.
func appendHeader(b []byte, h *Header) (_ []byte, ok bool) { return appendHeaderStubs(b, h, nil) }

// appendHeaderStubs is appendHeader leaving the long strings of the
// inputs, bindings and config, and those of Request (RequestLong), to
// st (nil: written out).
func appendHeaderStubs(b []byte, h *Header, st *stubber) (_ []byte, ok bool) {
	if len(h.RequestLong) > 0 && st == nil {
		h = h.expanded()
	}
	if !rfc3339(h.Time) || !validRaw(h.Request) {
		return b, false
	}
	b = append(b, `{"t":`...)
	b = appendString(b, h.Type)
	b = append(b, `,"v":`...)
	b = strconv.AppendInt(b, int64(h.Version), 10)
	b = appendField(b, "prose", h.Prose)
	b = append(b, `,"run":`...)
	b = appendString(b, h.RunID)
	b = append(b, `,"time":`...)
	b = appendTime(b, h.Time)
	b = append(b, `,"spec":`...)
	b = appendString(b, h.Spec)
	b = append(b, `,"spec_sha256":`...)
	b = appendString(b, h.SpecDigest)
	b = appendField(b, "dir", h.Dir)
	if len(h.Request) > 0 {
		at := len(b) + len(`,"request":`)
		for _, l := range h.RequestLong {
			st.refs = append(st.refs, longRef{off: l.Off + at, s: l.S})
		}
	}
	b = appendRaw(b, "request", h.Request)
	b = appendKVs(b, "bindings", h.Bindings, st)
	b = appendKVs(b, "config", h.Config, st)
	b = appendKVs(b, "inputs", h.Inputs, st)
	if len(h.Redacted) > 0 {
		b = append(b, `,"redacted":[`...)
		for i, s := range h.Redacted {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

func appendKVs(b []byte, key string, kvs []KV, st *stubber) []byte {
	if len(kvs) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':', '[')
	for i, kv := range kvs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"k":`...)
		b = appendString(b, kv.Key)
		b = append(b, `,"v":`...)
		b = st.str(b, kv.Value)
		b = appendBool(b, "redacted", kv.Redacted)
		b = append(b, '}')
	}
	return append(b, ']')
}

// validRaw reports whether raw is empty (the field is left out) or JSON
// that encoding/json would write as it is: valid, and without the
// insignificant white space it would take out (validCompact).
func validRaw(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return true
	}
	v := validator{b: raw}
	return v.value(0) && v.i == len(raw)
}

// validator checks compact JSON (no white space outside strings), as
// json.Valid does otherwise: strings are not checked for UTF-8, nesting
// is bounded as encoding/json bounds it. A long string, most of a large
// value, is scanned a byte at a time against one table.
type validator struct {
	b []byte
	i int
}

const maxNesting = 10000 // encoding/json's

// stringStop marks the bytes a string's scan stops at.
var stringStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func (v *validator) value(depth int) bool {
	if v.i >= len(v.b) || depth > maxNesting {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '{':
		v.i++
		if v.i < len(v.b) && v.b[v.i] == '}' {
			v.i++
			return true
		}
		for {
			if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() || v.i >= len(v.b) || v.b[v.i] != ':' {
				return false
			}
			v.i++
			if !v.value(depth + 1) {
				return false
			}
			if v.i < len(v.b) && v.b[v.i] == ',' {
				v.i++
				continue
			}
			if v.i < len(v.b) && v.b[v.i] == '}' {
				v.i++
				return true
			}
			return false
		}
	case c == '[':
		v.i++
		if v.i < len(v.b) && v.b[v.i] == ']' {
			v.i++
			return true
		}
		for {
			if !v.value(depth + 1) {
				return false
			}
			if v.i < len(v.b) && v.b[v.i] == ',' {
				v.i++
				continue
			}
			if v.i < len(v.b) && v.b[v.i] == ']' {
				v.i++
				return true
			}
			return false
		}
	case c == '"':
		return v.str()
	case c == '-' || c >= '0' && c <= '9':
		return v.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if len(v.b)-v.i >= len(lit) && string(v.b[v.i:v.i+len(lit)]) == lit {
				v.i += len(lit)
				return true
			}
		}
		return false
	}
}

// str reads a string at v.i (its opening quote).
func (v *validator) str() bool {
	b := v.b
	i := v.i + 1
	for {
		for i < len(b) && !stringStop[b[i]] {
			i++
		}
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '"':
			v.i = i + 1
			return true
		case '\\':
			if i+1 >= len(b) {
				return false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return false
				}
				for _, h := range b[i+2 : i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				i += 6
			default:
				return false
			}
		default:
			return false // a control character
		}
	}
}

func (v *validator) number() bool {
	b, i := v.b, v.i
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	v.i = i
	return true
}

func appendField(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

func appendInt(b []byte, key string, v int) []byte {
	if v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, int64(v), 10)
}

func appendBool(b []byte, key string, v bool) []byte {
	if !v {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, `":true`...)
}

func appendRaw(b []byte, key string, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return append(b, v...)
}

func appendInts(b []byte, key string, v []int) []byte {
	if len(v) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':', '[')
	for i, n := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, ']')
}

// rfc3339 reports whether encoding/json writes t (as appendTime does):
// years 0 to 9999, a zone offset of whole minutes.
func rfc3339(t time.Time) bool {
	_, off := t.Zone()
	return t.Year() >= 0 && t.Year() <= 9999 && off%60 == 0
}

// appendTime is time.Time's MarshalJSON (RFC 3339 with nanoseconds), for
// years 0 to 9999.
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendFloat is encoding/json's float64.
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendString is encoding/json's string encoding with HTML escaping
// off: quotes, backslashes and control characters escaped, invalid UTF-8
// as U+FFFD, U+2028 and U+2029 escaped (delegation's encoder, which
// writes every value's text).
func appendString(b []byte, s string) []byte { return delegation.AppendJSONString(b, s) }
