package journal

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzScanIndexed: scanIndexed never panics, and what it reads of a line
// that encoding/json decodes is what encoding/json reads.
func FuzzScanIndexed(f *testing.F) {
	for _, s := range []string{
		`{"t":"start","time":"2026-01-01T00:00:00Z","id":"L3/1","pos":"a.prose.md:3:5","attempt":2,"slot":"w","args":"ab"}`,
		`{"t":"end","time":"2026-01-01T00:00:00Z","id":"L3","attempt":1,"result":{"a":[1,2.5e3,"x\"y",null,true],"b":{}},"ms":0.25,"sum":"00"}`,
		`{"t":"end","id":"L3","attempt":1,"err":"boom","kind":"call","nested":{"pos":{"file":"n","line":3,"col":1},"msg":"m","kind":"throw","chain":["a"]}}`,
		`{"t":"judge","id":"L9","n":2,"cond":"it holds","values":"cd","model":"m","holds":true,"fail_closed":true,"rule":""}`,
		`{"t":"group","id":"L4","n":1,"winner":0,"started":3,"dropped":[1,2]}`,
		`{"t":"end","id":"L3","attempt":1,"err":"[secret $TOKEN] leaked"}`,
		`{"t":"end","id":"L3","attempt":1,"result":"\u005bsecret $TOKEN]"}`,
		`{"T":"end","t":"start","id":"L3"}`,
		`{"t":"final","status":"ok"}`,
		`{"t":"end","attempt":1.0}`,
		`{"t":"end","attempt":01}`,
		`{"t":"end","id":null}`,
		` {"t" : "end" , "id" : "L3" } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, ok := scanIndexed(line)
		if !ok {
			return
		}
		if !indexedOnly(rec.Type) {
			t.Fatalf("scanned a %q record, which the index may hold", rec.Type)
		}
		if refersToSecret(rec) {
			t.Fatalf("scanned a record that refers to a secret: %q", line)
		}
		var full Record
		if json.Unmarshal(line, &full) != nil {
			return // the values scanIndexed skips are not checked
		}
		if refersToSecret(&full) {
			t.Fatalf("%q refers to a secret, and was scanned", line)
		}
		got := Record{Type: rec.Type, ID: rec.ID, Pos: rec.Pos, Attempt: rec.Attempt, Err: rec.Err, Kind: rec.Kind,
			N: rec.N, Cond: rec.Cond, Values: rec.Values, Model: rec.Model, Rule: rec.Rule, FailClosed: rec.FailClosed}
		want := Record{Type: full.Type, ID: full.ID, Pos: full.Pos, Attempt: full.Attempt, Err: full.Err, Kind: full.Kind,
			N: full.N, Cond: full.Cond, Values: full.Values, Model: full.Model, Rule: full.Rule, FailClosed: full.FailClosed}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Fatalf("%q: scanned %s, encoding/json reads %s", line, g, w)
		}
	})
}

// The cases scanIndexed leaves to encoding/json: a record the Log holds,
// a reference to a secret (also one behind an escape), a key encoding/json
// could match without regard to case, a number that is not an int.
func TestScanIndexedLeavesTheUnsureToEncodingJSON(t *testing.T) {
	for _, line := range []string{
		`{"t":"final","status":"ok"}`,
		`{"t":"session","mode":"resume"}`,
		`{"t":"proc","id":"L3","attempt":1,"pgid":7}`,
		`{"t":"end","id":"L3","attempt":1,"err":"[secret $TOKEN] leaked"}`,
		`{"t":"end","id":"L3","attempt":1,"result":"\u005bsecret $TOKEN]"}`,
		`{"T":"end","t":"start","id":"L3"}`,
		`{"t":"end","id":"L3","attempt":1.0}`,
		`{"t":"end","id":"L3","err":"a \"quoted\" error"}`,
		`{"t":"end","id":"L3"} x`,
	} {
		if _, ok := scanIndexed([]byte(line)); ok {
			t.Errorf("%s was scanned", line)
		}
	}
	rec, ok := scanIndexed([]byte(`{"t":"end","time":"2026-01-01T00:00:00Z","id":"L3/2","attempt":3,"result":{"x":["a\"b",{"c":null}]},"err":"","kind":"call","ms":1.5}`))
	if !ok || rec.Type != TypeEnd || rec.ID.Key() != "L3/2" || rec.Attempt != 3 || rec.Kind != "call" {
		t.Errorf("an end record: %+v, %v", rec, ok)
	}
}

// FuzzIndexedRead reads sealed journals as a resume and a replay index
// them (the calls, judgments and groups read by scanIndexed): every
// entry of the index is found by the key of the record it reads back
// whole, so the scan and encoding/json agree on what each record is.
func FuzzIndexedRead(f *testing.F) {
	f.Add(`{"t":"header","v":2}`, `{"t":"start","id":"L3","attempt":1,"pos":"a:1:1"}`+"\n"+
		`{"t":"end","id":"L3","attempt":1,"result":{"a":[1,"x"]},"ms":1}`+"\n"+
		`{"t":"judge","id":"L4","n":2,"cond":"c","holds":true}`+"\n"+
		`{"t":"group","id":"L5","n":1,"winner":0,"started":2}`+"\n"+
		`{"t":"end","id":"L6/1","attempt":2,"err":"e","kind":"call"}`+"\n"+
		`{"t":"final","status":"ok","result":1}`)
	f.Add(`{"t":"header","v":2}`, `{"t":"end","id":"L3","ID":"L4","attempt":1}`+"\n"+`{"t":"judge","id":"L3","n":1,"N":2}`)
	f.Fuzz(func(t *testing.T, header, body string) {
		lines := []string{strings.TrimSpace(header)}
		for _, l := range strings.Split(body, "\n") {
			lines = append(lines, strings.TrimSpace(l))
		}
		for _, l := range lines {
			if len(l) < 2 || l[0] != '{' || l[len(l)-1] != '}' {
				return // a line the writer could not have sealed
			}
		}
		data := sealedJournal(lines...)
		for _, mode := range []Mode{Resuming, Replaying} {
			b := newIndexer(bytes.NewReader(data), "", mode)
			l, err := readLog(bytes.NewReader(data), &Log{keep: b.keep}, MaxRecordBytes)
			if err != nil {
				return
			}
			x := b.done(l)
			check := func(kind string, tab table, key func(*Record) uint32) {
				for _, e := range tab {
					rec, err := x.load(e)
					if err != nil {
						continue // read whole when it answers, and refused then
					}
					if key(rec) != e.key {
						t.Fatalf("%s: the %s entry at %d was indexed under another key than its record's %+v", mode, kind, e.off, rec)
					}
				}
			}
			check("call", x.calls, func(r *Record) uint32 { return hashKey(r.ID, r.Attempt) })
			check("judgment", x.judges, func(r *Record) uint32 { return hashKey(r.ID, r.N) })
			check("group", x.groups, func(r *Record) uint32 { return hashKey(r.ID, max(r.N, 1)) })
		}
	})
}

// FuzzScanAnswer: a record scanAnswer reads is the record encoding/json
// decodes from the line.
func FuzzScanAnswer(f *testing.F) {
	f.Add(`{"t":"end","time":"2026-12-01T12:00:00Z","id":"L4/1","pos":"r.prose.md:4:18","attempt":1,"slot":"advancer","args":"05b3","result":{"a":[1,"x",null],"b":true},"ms":2,"sum":"ab"}`)
	f.Add(`{"t":"end","id":"L4/1","attempt":2,"err":"boom","kind":"error","catchable":true,"result":null}`)
	f.Add(`{"t":"judge","id":"L9/1","n":3,"cond":"c","values":"v","holds":false,"reasoning":"r","asked":true,"model":"m","rule":"x","tokens_in":3,"tokens_out":4,"fail_closed":true}`)
	f.Add(`{"t":"end","id":"L1","nested":{"msg":"x"}}`)
	f.Add(`{"t":"end","id":"L1","result":"a\"b","result":2}`)
	f.Fuzz(func(t *testing.T, line string) {
		rec, ok := scanAnswer([]byte(line))
		if !ok {
			return
		}
		var want Record
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatalf("scanAnswer read %q, which encoding/json refuses: %v", line, err)
		}
		if !reflect.DeepEqual(*rec, want) {
			t.Fatalf("scanAnswer read %q as\n%+v\nencoding/json as\n%+v", line, *rec, want)
		}
	})
}
