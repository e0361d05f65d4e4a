package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"reflect"
	"testing"

	"github.com/proselang/prose/world/receipt"
)

// fullEntry is an index entry with every member the index writes set.
func fullEntry() *indexEntry {
	r := &receipt.Receipt{
		Format: "1.1", Node: "n/é", Drain: 7, Seq: 2, Contract: "c1",
		Wake:   receipt.Wake{Source: "event", Refs: []string{"h1", "h2"}},
		Inputs: map[string]string{"in<-p.a": "f1", "x<-q.b": "f2"}, Events: "ev",
		Memo: "m", Facets: map[string]string{"@atomic": "a", "f": "b"}, Version: "v",
		Diff: receipt.Diff{Moved: []string{"f"}, Fields: []string{}}, Prev: "p",
		Status: receipt.Rendered, Cost: receipt.Cost{Requests: 1, TokensIn: 2, TokensOut: 3, Programs: 4, Model: "m1", DurationMS: -5},
		Run: "drain-7", Hash: "h", Sig: "s", Key: "k",
	}
	failed := *r
	failed.Status, failed.Reason, failed.Cost, failed.Hash = receipt.Failed, "it broke <\"here\">\n", receipt.Cost{}, "h2"
	return &indexEntry{
		Node:      "n/é",
		Ledger:    fileID{Size: 10, Mod: 1 << 60, Change: -3, Ino: 1<<64 - 1},
		Head:      fileID{Size: -1},
		Last:      &failed,
		LastOK:    r,
		Published: map[string]fileID{"truth.json": {Size: 3, Ino: 9}, "f.json": {Size: -2}},
		// Two facets, NUL-joined as publishedKnown compares them.
		PublishedFor: "a\x00b",
		Scan:         &Scan{Last: "h", Contract: "c", Shape: "s", Key: "k", Spec: "sp", Inputs: map[string]string{}},
		Trust:        "signer/fp",
		OKEnd:        1<<40 + 7,
	}
}

// TestQuickEntryReadsTheIndex: every line the index writes, whatever
// members it holds, is read by the index's own decoder (not handed to
// encoding/json) and gives back the entry written, checksum checked.
func TestQuickEntryReadsTheIndex(t *testing.T) {
	// fullEntry sets every member: one added to the index and not to
	// the quick decoder would send every line to encoding/json.
	for _, v := range []any{*fullEntry(), *fullEntry().Scan} {
		rv := reflect.ValueOf(v)
		for i := range rv.NumField() {
			if f := rv.Type().Field(i); f.IsExported() && rv.Field(i).IsZero() {
				t.Errorf("fullEntry leaves %s.%s unset", rv.Type().Name(), f.Name)
			}
		}
	}
	plain, _ := indexedStore(t)
	x := &plain.idx
	x.nodes["full"] = fullEntry()
	sparse := &indexEntry{Node: "sparse", Ledger: fileID{Size: -1}, Head: fileID{Size: -1}}
	x.nodes["sparse"] = sparse
	b, err := x.encode([]string{"full", "n", "sparse"})
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), b)
	}
	for i, line := range lines {
		_, body, _ := bytes.Cut(line, []byte(" "))
		var quick, slow indexEntry
		if !quickEntry(body, &quick) {
			t.Fatalf("line %d declined by the index's decoder:\n%s", i+1, body)
		}
		if err := json.Unmarshal(body, &slow); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(quick, slow) {
			t.Fatalf("line %d: decoded\n%+v\nencoding/json\n%+v", i+1, quick, slow)
		}
		var e indexEntry
		if !decodeEntry(line, &e, false) {
			t.Fatalf("line %d does not read", i+1)
		}
	}
	var e indexEntry
	if !decodeEntry(lines[0], &e, false) || !reflect.DeepEqual(*e.LastOK, *fullEntry().LastOK) || e.Ledger.Ino != 1<<64-1 {
		t.Fatalf("the full entry read back as %+v", e)
	}
}

// TestQuickEntryDeclines: what the index does not write itself is left
// to encoding/json, which reads it as before: a key in another case, an
// escape, a member not known, a duplicate, a float.
func TestQuickEntryDeclines(t *testing.T) {
	for _, body := range []string{
		`{"Node":"n"}`,
		`{"node":"n\ud83d\ude00"}`,
		`{"node":"n","future":1}`,
		`{"node":"n","node":"m"}`,
		`{"node":"n","ledger":{"size":1.0}}`,
		`{"node":"n","ledger":{"size":01}}`,
		`{"node":"n","head":{"ino":-1}}`,
		`{"node":"n","scan":{"inputs":{"a":null}}}`,
		`{"node":"n"} x`,
		`{"node":"n\xff"}`,
	} {
		var e, lazy indexEntry
		if quickEntry([]byte(body), &e) {
			t.Errorf("%s: read by the index's decoder, want it declined", body)
		}
		if readEntry([]byte(body), &lazy, true) {
			t.Errorf("%s: read with its receipts left undecoded, want it declined", body)
		}
	}
	// Declined lines that encoding/json reads still count.
	for body, node := range map[string]string{`{"Node":"n"}`: "n", `{"node":"n\ud83d\ude00","future":1}`: "n\U0001F600"} {
		line := []byte(crcHex(body) + " " + body)
		var e indexEntry
		if !decodeEntry(line, &e, false) || e.Node != node {
			t.Errorf("%s: read as %q, want %q", body, e.Node, node)
		}
	}
}

// FuzzQuickEntry: the index's decoder never panics, and whatever it
// reads, encoding/json reads the same.
func FuzzQuickEntry(f *testing.F) {
	_, b := indexedStore(f)
	for _, line := range bytes.Split(b, []byte("\n")) {
		if _, body, ok := bytes.Cut(line, []byte(" ")); ok {
			f.Add(body)
		}
	}
	full, err := json.Marshal(fullEntry())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	f.Add([]byte(`{"node":"n","last":null,"scan":null,"ledger":null,"published":{}}`))
	f.Add([]byte(`{"node":"n","last":{"wake":null,"diff":{"moved":[]},"cost":{"duration_ms":-0}}}`))
	f.Add([]byte(`{"node":"n","last":{"node":"n","hash":"h","version":"v","drain":3,"status":"failed","inputs":{"a":"\u003c"}},"last_ok":{"hash":"g","diff":{"moved":["x"]}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var quick, lazy indexEntry
		ok := quickEntry(body, &quick)
		if readEntry(body, &lazy, true) != ok {
			t.Fatalf("read eagerly: %v, with its receipts undecoded: %v, from %s", ok, !ok, body)
		}
		if !ok {
			return
		}
		// The receipts left undecoded: their summary is the decoded
		// receipt's, and decoding them gives the eager entry.
		hash, version, drain, exists := lazy.summary()
		if l := quick.Last; exists != (l != nil) || l != nil && (hash != l.Hash || version != l.Version || drain != l.Drain) {
			t.Fatalf("summary %q %q %d %v of last %+v, from %s", hash, version, drain, exists, l, body)
		}
		if l := lazy.lazyLast; l != nil && (l.node != quick.Last.Node || receipt.Status(l.status) != quick.Last.Status) {
			t.Fatalf("summary %+v of last %+v, from %s", l, quick.Last, body)
		}
		if !lazy.full() {
			t.Fatalf("receipts left undecoded do not decode, from %s", body)
		}
		if !reflect.DeepEqual(quick, lazy) {
			t.Fatalf("decoded\n%+v\nleft undecoded, then decoded\n%+v\nfrom %s", quick, lazy, body)
		}
		var slow indexEntry
		if err := json.Unmarshal(body, &slow); err != nil {
			t.Fatalf("read by the index's decoder, refused by encoding/json (%v):\n%s", err, body)
		}
		if !reflect.DeepEqual(quick, slow) {
			t.Fatalf("decoded\n%+v\nencoding/json\n%+v\nfrom %s", quick, slow, body)
		}
	})
}

func crcHex(body string) string { return fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(body))) }

// BenchmarkIndexLine: one index line of an entry holding two receipts,
// read by the index's decoder and by encoding/json.
func BenchmarkIndexLine(b *testing.B) {
	body, err := json.Marshal(fullEntry())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("quick", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var e indexEntry
			if !quickEntry(body, &e) {
				b.Fatal("declined")
			}
		}
	})
	b.Run("lazy", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var e indexEntry
			if !readEntry(body, &e, true) {
				b.Fatal("declined")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var e indexEntry
			if err := json.Unmarshal(body, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
}
