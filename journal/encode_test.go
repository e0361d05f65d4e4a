package journal

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
)

// sameAsEncodingJSON checks that appendRecord writes rec as encoding/json
// does, byte for byte.
func sameAsEncodingJSON(t *testing.T, rec *Record) {
	t.Helper()
	want, err := encodeRecord(rec)
	got, ok := appendRecord(nil, rec)
	if err != nil {
		if ok {
			t.Fatalf("appendRecord wrote %s where encoding/json fails: %v", got, err)
		}
		return
	}
	if !ok {
		return // left to encoding/json
	}
	if string(got) != string(want) {
		t.Fatalf("appendRecord:\n%s\nencoding/json:\n%s", got, want)
	}
}

func TestAppendRecordMatchesEncodingJSON(t *testing.T) {
	yes, w, f := true, 2, 0
	at := time.Date(2026, 12, 3, 16, 40, 1, 123456789, time.UTC)
	odd := "quote \" backslash \\ nl \n cr \r tab \t bs \b ff \f nul \x00 esc \x1b del \x7f <&> \u2028 \u2029 é 字 bad \xff\xfe end"
	for _, rec := range []*Record{
		{Type: TypeEnd, Time: at, ID: delegation.MustParsePath("L12/2>L5"), Pos: "a.prose.md:3:5", Attempt: 2, Slot: "advancer", Args: "ab12",
			Result: json.RawMessage(`{"a":[1,2.5,"x\"y"],"b":null}`), MS: 1.234},
		{Type: TypeEnd, Time: at, ID: delegation.MustParsePath("L3"), Err: odd, Kind: KindTimeout, Catchable: true, MS: 1e-7},
		{Type: TypeStart, Time: at, ID: delegation.MustParsePath("L3"), Attempt: 1, Slot: "s", Pos: "p:1:1", Args: "cd", PGID: 4242, Proc: "boot 1 2"},
		{Type: TypeJudge, Time: at, ID: delegation.MustParsePath("L9/1"), N: 3, Cond: odd, Values: "ef", Holds: &yes, Reasoning: "r", Asked: true,
			Model: "m", Rule: "rule", TokensIn: 10, TokensOut: 20, FailClosed: true, MS: 1e21},
		{Type: TypeGroup, Time: at, ID: delegation.MustParsePath("L2"), Winner: &w, Failed: &f, Started: 4, Dropped: []int{0, 3}},
		{Type: TypeFirst, Time: at, Order: []int{2, 1}},
		{Type: TypeSource, Time: at, Path: "sub/x.prose.md", SpecDigest: "00", Withheld: true},
		{Type: TypeSession, Time: at, Mode: "resume", Force: true, Prose: "v1", Request: json.RawMessage(`{"spec":"x"}`)},
		{Type: TypeFinal, Time: at, Status: StatusError, Err: "boom", ErrKind: "call", ErrCode: "failed", Pos: "x:1:2"},
		{Type: TypeModel, Time: at, ArgsValue: json.RawMessage(`[1]`), System: "sys", SystemDigest: "d", Prompt: odd, Reply: "re"},
		{Type: TypeEnd, Time: at, MS: -0.5},
		{Type: TypeEnd, Time: at.In(time.FixedZone("x", 3600+75))}, // encoding/json refuses seconds in an offset
		{Type: TypeEnd, Time: at.In(time.FixedZone("y", -5400))},
		{Type: TypeEnd},
		{Type: TypeEnd, Time: at, Result: json.RawMessage(`{"a": 1}`)}, // not compact: left to encoding/json
		{Type: TypeEnd, Time: at, Result: json.RawMessage(`{"a":`)},    // invalid: encoding/json fails
	} {
		sameAsEncodingJSON(t, rec)
	}
	if _, ok := appendRecord(nil, &Record{Type: TypeEnd, Result: json.RawMessage(`{"a": 1}`)}); ok {
		t.Error("a result with white space was written as it is")
	}
	h := &Header{Type: TypeHeader, Version: FormatVersion, Prose: "v", RunID: "id", Time: at, Spec: "/s" + odd, SpecDigest: "ab", Dir: "/d",
		Request:  json.RawMessage(`{"spec":"s","bindings":{"inputs":[{"name":"topic","value":"<b>"}]}}`),
		Bindings: []KV{{Key: "advancer", Value: "exec:a"}}, Config: []KV{{Key: "n", Value: "3"}},
		Inputs: []KV{{Key: "api_key", Value: "[redacted]", Redacted: true}}, Redacted: []string{"input api_key", odd}}
	for _, h := range []*Header{h, {Type: TypeHeader}} {
		want, err := encodeRecord(h)
		got, ok := appendHeader(nil, h)
		if err != nil || !ok || string(got) != string(want) {
			t.Errorf("appendHeader (%v):\n%s\nencoding/json (%v):\n%s", ok, got, err, want)
		}
	}
}

// FuzzAppendRecord: any strings, numbers and result text are written as
// encoding/json writes them, or left to it.
func FuzzAppendRecord(f *testing.F) {
	f.Add("end", "L3/1", "a \"b\" \xff \u2028", `{"x":[1,2]}`, 3, 1.5, int64(1700000000))
	f.Add("judge", "L1>L2", "", `"s"`, -1, 1e-9, int64(-62135596800))
	f.Add("x", "", "\x00\x1f", `nope`, 0, math.Inf(1), int64(253402300800))
	f.Fuzz(func(t *testing.T, typ, id, text, result string, n int, ms float64, sec int64) {
		rec := &Record{Type: typ, Time: time.Unix(sec, int64(n)).UTC(), Pos: text, Attempt: n, Slot: text, Args: text,
			Result: json.RawMessage(result), Err: text, Kind: text, MS: ms, N: n, Cond: text, Reasoning: text, Dropped: []int{n}, Proc: text, PGID: n}
		if p, err := delegation.ParsePath(id); err == nil {
			rec.ID = p
		}
		sameAsEncodingJSON(t, rec)
	})
}

// FuzzValidRaw: validRaw takes what json.Valid takes without white space
// outside strings, and nothing else.
func FuzzValidRaw(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e+3,"x\"\\u00e9",true,false,null],"b":{}}`, `[]`, `"\ud800"`, `01`, `1.`, `{"a" :1}`, `[1,]`, "\"\x01\"", `"\x"`, `-`, `1e`, `"é\xff"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := json.Valid(b) && compactJSON(b)
		if len(b) == 0 {
			want = true
		}
		if got := validRaw(b); got != want {
			t.Fatalf("validRaw(%q) = %v, json.Valid and compact: %v", b, got, want)
		}
	})
}

// compactJSON reports whether raw has no white space outside its strings.
func compactJSON(raw []byte) bool {
	in := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}

// FuzzDecodeResult: decodeResult reads what delegation.FromJSON reads.
func FuzzDecodeResult(f *testing.F) {
	for _, s := range []string{`"step 1 (L4/1)"`, `{"verdict":"certify","n":-3,"ok":true,"x":null,"l":[1,"a",[]],"o":{}}`, `{"a":1,"a":2}`,
		`"é\u00e9"`, `1.5`, `-0`, `9223372036854775808`, `[1,2`, `"\xff"`, `{"a":1}x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // a journaled result is valid JSON
		}
		want, werr := delegation.FromJSON(raw)
		got, gerr := decodeResult(raw)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("decodeResult(%q): %v, FromJSON: %v", raw, gerr, werr)
		}
		if werr != nil {
			return
		}
		wj, _ := delegation.ToJSON(want)
		gj, _ := delegation.ToJSON(got)
		if string(wj) != string(gj) || fmt.Sprintf("%T", want) != fmt.Sprintf("%T", got) {
			t.Fatalf("decodeResult(%q) = %s (%T), FromJSON %s (%T)", raw, gj, got, wj, want)
		}
	})
}
