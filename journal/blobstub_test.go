package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/redact"
)

// A long value given to a run, passed to a call whose result holds it
// and returned, is hashed once and written once: the header's inputs and
// request, the call's argument digest, its result and the run's result
// all use what the journal learned of the string the first time. The
// lines are those the writer writes when it encodes each record whole
// and cuts the long strings out after (the journal's format is the
// same), and the argument digest is the one computed without the
// journal's memory.
func TestLongValueIsHashedOnceAndWrittenOnce(t *testing.T) {
	big := strings.Repeat("a paragraph, \"quoted\" <and> escaped\t\u2028é\n", 2*BlobThreshold/40)
	base := t.TempDir()
	h := newHeader(bigCode)
	h.Inputs = []KV{{Key: "topic", Value: big}}
	whole := reencode(t, mustMarshal(t, map[string]any{"spec": "big.prose.md", "inputs": []any{map[string]string{"name": "topic", "value": big}}}))
	h.Request, h.RequestLong = stubbedRequest(t, whole, big)
	r, err := Create(base, h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var args string
	writer := &fakeSvc{name: "writer", fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		args = argsDigest(req.Args, nil)
		return req.Args, nil
	}}
	if _, err := runWith(t, r, mustParse(t, bigCode), map[string]delegation.Value{"writer": writer, "topic": big}, context.Background()); err != nil {
		t.Fatal(err)
	}
	blobs := r.w.blobs
	r.Close()
	if blobs.hashes != 1 {
		t.Errorf("the long value was hashed %d times, want once", blobs.hashes)
	}
	dir := filepath.Join(base, r.ID())
	if ents, _ := os.ReadDir(filepath.Join(dir, BlobDir)); len(ents) != 1 {
		t.Errorf("%d files beside the journal, want one", len(ents))
	}
	raw, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	stubs := 0
	for _, line := range bytes.SplitAfter(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
		body, _, ok := splitSeal(bytes.TrimSuffix(line, []byte("\n")))
		if !ok {
			t.Fatalf("an unsealed line: %.80s", line)
		}
		body = append(append([]byte(nil), body...), '}')
		refs, rest, err := splitBlobs(body)
		if err != nil {
			t.Fatal(err)
		}
		if refs == nil {
			continue
		}
		stubs += len(refs)
		full, err := restoreBlobs(dir, rest, refs)
		if err != nil {
			t.Fatal(err)
		}
		cut, err := newBlobStore(t.TempDir()).cut(full, nil)
		if err != nil || !bytes.Equal(cut, body) {
			t.Fatalf("a line as written:\n%.300s\nas the whole record cut after:\n%.300s (%v)", body, cut, err)
		}
		if bytes.Contains(full, []byte(`"t":"end"`)) && !bytes.Contains(full, []byte(`"args":"`+args+`"`)) {
			t.Errorf("the call's argument digest is not the one computed without the journal's memory (%s)", args)
		}
	}
	// header: inputs and request; the call's result; the run's result.
	if stubs != 4 {
		t.Errorf("%d stubs in the journal, want 4", stubs)
	}
	l, err := ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(l.Header.Request, whole) || l.Header.Inputs[0].Value != big {
		t.Errorf("the header does not read back whole")
	}
}

// A trace, which keeps nothing beside itself, writes a request's long
// strings out in place of their stubs.
func TestTraceWritesTheRequestsLongStrings(t *testing.T) {
	big := strings.Repeat("x\"", LongStringMin)
	whole := reencode(t, mustMarshal(t, map[string]any{"inputs": []any{map[string]string{"value": big}}}))
	h := newHeader(bigCode)
	h.Request, h.RequestLong = stubbedRequest(t, whole, big)
	var buf bytes.Buffer
	tr := NewTrace(&buf, redact.New())
	tr.Start(h)
	l, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(l.Header.Request, whole) {
		t.Errorf("the trace's request is not the request: %.100s", l.Header.Request)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stubbedRequest is whole with the JSON of s replaced by a stub, as
// package run writes a request with long values.
func stubbedRequest(t *testing.T, whole []byte, s string) (json.RawMessage, []LongString) {
	lit := appendString(nil, s)
	i := bytes.Index(whole, lit)
	if i < 0 {
		t.Fatal("the long value is not in the request")
	}
	out := append(append(append([]byte(nil), whole[:i]...), blobStub...), whole[i+len(lit):]...)
	return out, []LongString{{Off: i, S: s}}
}

// A long string equal to one kept, under another identity (a result
// decoded from what a program printed), is neither hashed nor written
// again; what the store holds is bounded, the newest kept.
func TestLongStringKnownByItsBytes(t *testing.T) {
	s := newBlobStore(t.TempDir())
	big := strings.Repeat("é\"", LongStringMin)
	f, err := s.keep(big)
	if err != nil {
		t.Fatal(err)
	}
	clone := strings.Clone(big)
	g, err := s.keep(clone)
	if err != nil || g.sum != f.sum {
		t.Fatalf("%v, %s for the same bytes, want %s", err, g.sum, f.sum)
	}
	if sum, ok := s.sumOf(clone); !ok || sum != f.raw {
		t.Fatal("the clone's sum is not the string's")
	}
	want, _ := delegation.Sum(big)
	if f.raw != want || s.hashes != 1 || len(s.takePending()) != 1 {
		t.Fatalf("hashed %d times, %x want delegation.Sum %x", s.hashes, f.raw, want)
	}
	for i := 0; i < maxKnown+5; i++ {
		s.sumOf(strings.Repeat("x", LongStringMin+i))
	}
	if len(s.known) > maxKnown || s.heldBytes > maxKnownBytes {
		t.Fatalf("the store holds %d strings, %d bytes", len(s.known), s.heldBytes)
	}
	huge := strings.Repeat("y", maxKnownBytes+1)
	s.sumOf(huge)
	if len(s.known) != 1 || s.heldBytes != len(huge) {
		t.Fatalf("after a string above the bound: %d strings, %d bytes; want the newest alone", len(s.known), s.heldBytes)
	}
}

// A record whose long strings were stood in for as its result was
// encoded (encodeResult) is written as the same line as the record
// encoded whole and cut after, whatever the strings hold: escapes,
// invalid UTF-8, a withheld secret's mark (kept in the line), the stub's
// own text.
func FuzzStubbedRecordIsTheCutRecord(f *testing.F) {
	f.Add("a \"quoted\"\ttext\n", "short", 3)
	f.Add("\xff\xe2\x80\xa8é", `$blob`, 1)
	f.Add(secretMark+"X] and more", `"$blob"`, 2)
	f.Fuzz(func(t *testing.T, piece, short string, n int) {
		long := strings.Repeat(piece+"·", 1+LongStringMin/(len(piece)+2))
		o := delegation.NewObject()
		o.Set("short", short)
		o.Set("long", long)
		o.Set("list", delegation.NewList(long, short, strings.Clone(long)+"x"))
		if n%2 == 0 {
			o.Set("again", long)
		}
		v := delegation.Value(o)
		// The environment's secrets, withheld from the record's text: none,
		// one the long string holds (across where its text is cut in
		// pieces, at n), one the short string holds, one with a quote.
		env := []string{}
		secret := "tok_" + strings.Repeat("Z9", 8)
		switch n % 5 {
		case 1:
			at := (n * 7919) % len(long)
			long = long[:at] + secret + long[at:]
			o.Set("long", long)
			env = []string{"API_TOKEN=" + secret}
		case 2:
			o.Set("short", short+secret)
			env = []string{"API_TOKEN=" + secret}
		case 3:
			env = []string{"API_TOKEN=" + secret, "OTHER_SECRET=" + `a"quoted"secret`}
		case 4:
			env = []string{"API_TOKEN=" + secret}
		}
		vault := newEnvVault(env)
		stubbed := &writer{blobs: newBlobStore(t.TempDir())}
		run := &Run{w: stubbed, vault: vault}
		rec := &Record{Type: TypeEnd, Slot: short, Attempt: 1}
		if err := run.encodeResult(rec, v); err != nil {
			t.Skip(err) // not a value the journal holds
		}
		got, err := stubbed.encode(vault.hideRecord(rec))
		if err != nil {
			t.Fatal(err)
		}
		whole, err := delegation.ToJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		plain := vault.hideRecord(&Record{Type: TypeEnd, Slot: short, Attempt: 1, Result: whole})
		if !validRaw(plain.Result) {
			t.Skip("a secret withheld inside an escape: not a record this test compares")
		}
		body, ok := appendRecord(nil, plain)
		if !ok {
			t.Fatal("not encoded")
		}
		want, err := newBlobStore(t.TempDir()).cut(body, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("stubbed as encoded:\n%.400s\nencoded whole and cut:\n%.400s", got, want)
		}
		if len(env) > 0 {
			filepath.WalkDir(stubbed.blobs.dir, func(p string, d os.DirEntry, err error) error {
				if b, _ := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(secret)) {
					t.Errorf("the blob %s holds the secret", p)
				}
				return nil
			})
		}
	})
}

// A long result holding an environment secret's value is not kept
// beside the journal with the value in it: the record's text withholds
// it ([secret $NAME], which stays in the line), and a replay puts it back.
func TestLongResultWithholdsEnvironmentSecrets(t *testing.T) {
	const secret = "sk-live-0123456789abcdefghijklmnop"
	env := []string{"API_TOKEN=" + secret}
	code := "let a = call first\nreturn {a: a}\n"
	long := strings.Repeat("words and more words ", LongStringMin/20) + secret
	plain := strings.Repeat("nothing secret here ", LongStringMin/19)
	base := t.TempDir()
	r, err := Create(base, newHeader(code), Options{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	first := &fakeSvc{name: "first", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		return delegation.NewList(long, plain), nil
	}}
	globals := map[string]delegation.Value{"first": first}
	if _, err := runWith(t, r, mustParse(t, code), globals, context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
	dir := filepath.Join(base, r.ID())
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the secret's value", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rp, err := Replay(base, r.ID(), Options{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	v, err := runWith(t, rp, mustParse(t, code), globals, context.Background())
	rp.Close()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := v.(*delegation.Object).Get("a")
	if got := toJSON(t, a); got != toJSON(t, delegation.NewList(long, plain)) {
		t.Errorf("replayed %.80s..., not the result with its secret", got)
	}
}

// The spotter finds a secret wherever the pieces a text is written in
// cut it, pieces shorter than the secret included.
func TestSpotterAcrossPieces(t *testing.T) {
	secret := "tok_Z9Z9Z9Z9Z9Z9Z9Z9"
	for at := 0; at < 80; at++ {
		text := []byte(strings.Repeat("x", at) + secret + strings.Repeat("y", 30))
		for size := 1; size <= 64; size++ {
			sp := newSpotter([]string{"other-secret-value", secret})
			for i := 0; i < len(text) && !sp.found; i += size {
				sp.Write(text[i:min(i+size, len(text))])
			}
			if !sp.found {
				t.Fatalf("secret at %d, pieces of %d: not found", at, size)
			}
		}
	}
	sp := newSpotter([]string{secret})
	for _, piece := range []string{"tok_Z9", "Z9Z9Z9Z9Z9Z9Z", "x"} { // all but its end
		sp.Write([]byte(piece))
	}
	if sp.found {
		t.Fatal("found in a text without it")
	}
}
