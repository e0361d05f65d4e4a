package receipt

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestBodyIsTheGenericCanonicalForm holds the receipt's directly written
// canonical body to the one encoding/json and package canon give, for
// receipts of every shape: legacy and current formats, absent and
// present optional members, nil and empty lists and maps, names that
// sort differently by bytes and by UTF-16, escapes, and large numbers.
func TestBodyIsTheGenericCanonicalForm(t *testing.T) {
	texts := []string{"", "a", "n00001", "x<-y.part", "é", "\U0001F600", "\uFFFD", "\ufb01", "q\"uo\\te", "tab\there", "\x01ctl", "<&>", "\u2028"}
	rng := rand.New(rand.NewSource(1))
	pick := func() string { return texts[rng.Intn(len(texts))] }
	list := func() []string {
		switch rng.Intn(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		l := make([]string, 1+rng.Intn(3))
		for i := range l {
			l[i] = pick()
		}
		return l
	}
	obj := func() map[string]string {
		switch rng.Intn(3) {
		case 0:
			return nil
		case 1:
			return map[string]string{}
		}
		m := map[string]string{}
		for range 1 + rng.Intn(5) {
			m[pick()] = pick()
		}
		return m
	}
	nums := []int64{0, 1, -1, 42, 1 << 53, 1<<53 + 1, -(1 << 60), 1<<62 + 7, 123456789012345678}
	num := func() int64 { return nums[rng.Intn(len(nums))] }
	for i := range 3000 {
		r := &Receipt{
			Format: []string{Format, legacy, "1.7", pick()}[rng.Intn(4)],
			Node:   pick(), Drain: int(num()), Seq: int(num()), Contract: pick(),
			Wake:   Wake{Source: pick(), Refs: list()},
			Inputs: obj(), Events: pick(), Memo: pick(), Facets: obj(), Version: pick(),
			Diff: Diff{Moved: list(), Fields: list()}, Prev: pick(), Status: Status(pick()), Reason: pick(),
			Cost: Cost{Requests: int(num()), TokensIn: int(num()), TokensOut: int(num()), Programs: int(num()), Model: pick(), DurationMS: num()},
			Run:  pick(), Hash: pick(), Sig: pick(), Key: pick(),
		}
		if i%7 == 0 {
			r.Reason = "bad \xff byte"
		}
		got, err := r.body()
		want, gerr := r.bodyGeneric()
		if (err == nil) != (gerr == nil) {
			t.Fatalf("receipt %+v: direct %v, generic %v", r, err, gerr)
		}
		if err != nil {
			continue // an integer a JSON number does not hold exactly, refused by both
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("receipt %+v:\n direct  %s\n generic %s", r, got, want)
		}
	}
}

// FuzzBody: the direct body and the generic one agree on any receipt a
// ledger line parses to.
func FuzzBody(f *testing.F) {
	r := &Receipt{Node: "n", Status: Rendered, Inputs: map[string]string{"b<-x": "1", "a<-y.p": "2"}}
	r.Seal(nil)
	line, _ := r.Marshal()
	f.Add(line)
	f.Add([]byte(`{"format":"1.0","cost":{"duration_ms":5},"inputs":null,"wake":{"refs":null}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse(b)
		if err != nil {
			return
		}
		got, err1 := r.body()
		want, err2 := r.bodyGeneric()
		if (err1 == nil) != (err2 == nil) || !bytes.Equal(got, want) {
			t.Fatalf("direct %s (%v)\ngeneric %s (%v)", got, err1, want, err2)
		}
	})
}

// BenchmarkBody writes the body of a receipt as a drain leaves one,
// directly and by the generic path.
//
//	go test ./world/receipt -run '^$' -bench Body
func BenchmarkBody(b *testing.B) {
	r := &Receipt{Node: "n00042", Drain: 3, Seq: 42, Contract: "sha256:" + string(bytes.Repeat([]byte("c"), 64)),
		Wake:   Wake{Source: Input, Refs: []string{"sha256:" + string(bytes.Repeat([]byte("r"), 64))}},
		Inputs: map[string]string{"n00041<-n00041": "sha256:" + string(bytes.Repeat([]byte("i"), 64))},
		Memo:   "sha256:" + string(bytes.Repeat([]byte("m"), 64)), Facets: map[string]string{"@atomic": "sha256:" + string(bytes.Repeat([]byte("f"), 64))},
		Version: "sha256:" + string(bytes.Repeat([]byte("v"), 64)), Status: Rendered, Cost: Cost{Programs: 1}}
	if err := r.Seal(nil); err != nil {
		b.Fatal(err)
	}
	b.Run("direct", func(b *testing.B) {
		for range b.N {
			r.body()
		}
	})
	b.Run("generic", func(b *testing.B) {
		for range b.N {
			r.bodyGeneric()
		}
	})
}
