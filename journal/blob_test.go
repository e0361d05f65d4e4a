package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

const bigCode = `let draft = call writer
  topic: topic
return {result: draft}
`

// bigRun journals a run given a long input whose service answers with
// its arguments: the input is in the header (its inputs and its
// request), the call's result and the run's result.
func bigRun(t *testing.T) (base, id, big string, writer *fakeSvc) {
	t.Helper()
	big = strings.Repeat("a paragraph about the topic, \"quoted\" <and> escaped\t\n", 2*BlobThreshold/50)
	req, _ := json.Marshal(map[string]any{"spec": "big.prose.md", "inputs": []any{map[string]string{"name": "topic", "value": big}}})
	h := newHeader(bigCode)
	h.Inputs = []KV{{Key: "topic", Value: big}}
	h.Request = reencode(t, req)
	base = t.TempDir()
	r, err := Create(base, h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	writer = &fakeSvc{name: "writer", fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		return req.Args, nil
	}}
	v, err := runWith(t, r, mustParse(t, bigCode), map[string]delegation.Value{"writer": writer, "topic": big}, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if got := toJSON(t, v); !strings.Contains(got, `"topic":`) || len(got) < len(big) {
		t.Fatalf("the run's result is not what it was given: %.80s", got)
	}
	return base, r.ID(), big, writer
}

// reencode is raw as the journal writes JSON: without HTML escaping.
func reencode(t *testing.T, raw []byte) json.RawMessage {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return json.RawMessage(bytes.TrimSpace(b.Bytes()))
}

// A long string is kept once beside the journal, however many records
// hold it; the journal reads back with it, and a replay answers from it.
func TestLongValueIsKeptOnceBesideTheJournal(t *testing.T) {
	base, id, big, writer := bigRun(t)
	dir := filepath.Join(base, id)
	ents, err := os.ReadDir(filepath.Join(dir, BlobDir))
	if err != nil || len(ents) != 1 {
		t.Fatalf("blobs: %v, %v; want one file for the one long string", ents, err)
	}
	st, _ := os.Stat(filepath.Join(dir, FileName))
	if st.Size() > 8<<10 {
		t.Errorf("the journal is %d bytes: the long string is in it", st.Size())
	}
	l, err := ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if l.Header.Inputs[0].Value != big || !bytes.Contains(l.Header.Request, []byte(`"value":`)) {
		t.Error("the header does not read back with its input")
	}
	fin := l.Final()
	var res struct{ Result struct{ Topic string } }
	if fin == nil || json.Unmarshal(fin.Result, &res) != nil || res.Result.Topic != big {
		t.Fatalf("the final record does not read back with the result")
	}
	rp, err := Replay(base, id, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := runWith(t, rp, mustParse(t, bigCode), map[string]delegation.Value{"writer": writer, "topic": big}, context.Background())
	if err != nil || writer.calls.Load() != 1 {
		t.Fatalf("replay: %v (%d calls ran)", err, writer.calls.Load())
	}
	if o, _ := v.(*delegation.Object).Get("result"); o == nil {
		t.Fatal("replay returned no result")
	}
}

// A long value that is missing, changed, or not one JSON string is a
// clear error naming its file, for a read, a replay and a resume.
func TestDamagedLongValueIsRefusedNamingItsFile(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(path string)
		want   string
	}{
		{"missing", func(p string) { os.Remove(p) }, "is missing"},
		{"changed", func(p string) {
			b, _ := os.ReadFile(p)
			b[10] ^= 1
			os.WriteFile(p, b, 0o600)
		}, "does not match its digest"},
		{"a directory", func(p string) { os.Remove(p); os.Mkdir(p, 0o700) }, "not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, id, _, _ := bigRun(t)
			ents, _ := os.ReadDir(filepath.Join(base, id, BlobDir))
			path := filepath.Join(base, id, BlobDir, ents[0].Name())
			c.damage(path)
			_, rerr := ReadFile(filepath.Join(base, id, FileName))
			_, perr := Replay(base, id, Options{})
			_, serr := Resume(base, id, Options{})
			for what, err := range map[string]error{"read": rerr, "replay": perr, "resume": serr} {
				var be *BlobError
				if err == nil || !errors.As(err, &be) || be.Path != path || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s of a journal whose long value is %s: %v, want a *BlobError naming %s and saying %q", what, c.name, err, path, c.want)
				}
			}
		})
	}
}

// A record answered from the journal reads its long value back, checked:
// a result changed after the journal was opened is refused when the call
// is answered.
func TestLongResultIsCheckedWhenAnswered(t *testing.T) {
	base := t.TempDir()
	r, err := Create(base, newHeader(bigCode), Options{})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("y", BlobThreshold+1)
	writer := &fakeSvc{name: "writer", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) { return big, nil }}
	globals := map[string]delegation.Value{"writer": writer, "topic": "short"}
	if _, err := runWith(t, r, mustParse(t, bigCode), globals, context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
	rp, err := Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Join(base, r.ID(), BlobDir))
	if len(ents) != 1 {
		t.Fatalf("blobs %v, want one", ents)
	}
	os.WriteFile(filepath.Join(base, r.ID(), BlobDir, ents[0].Name()), []byte(`"`+strings.Repeat("z", BlobThreshold+1)+`"`), 0o600)
	_, err = runWith(t, rp, mustParse(t, bigCode), globals, context.Background())
	var be *BlobError
	if !errors.As(err, &be) {
		t.Fatalf("replay answering from a changed long result: %v, want a *BlobError", err)
	}
}

// cut, splitBlobs and restoreBlobs give back the line that was cut, and
// any "$blobs" field the writer did not write is refused, never a panic.
func FuzzBlobLines(f *testing.F) {
	f.Add(`{"t":"end","result":{"a":"`, `x"y\\`, `"},"err":"e"}`, 3)
	f.Add(`{"t":"header","inputs":[{"k":"a","v":"`, "\u2028\t<>", `"}]}`, 0)
	f.Add(`{"$blobs":[[7,"`+strings.Repeat("0", 64)+`"]],"t":"x","r":"`, `$blob`, `"}`, 1)
	f.Fuzz(func(t *testing.T, before, middle, after string, n int) {
		// Whatever a line says, reading its blobs field never panics.
		line := []byte(before + middle + after)
		if refs, rest, err := splitBlobs(line); err == nil && refs != nil {
			for _, r := range refs {
				if string(rest[r.off:r.off+len(blobStub)]) != blobStub {
					t.Fatalf("a reference at %d of %q is not a stub", r.off, rest)
				}
			}
			restoreBlobs(t.TempDir(), rest, refs)
		}
		// A record with a long string (middle, repeated) round-trips.
		rec := &Record{Type: TypeEnd, Err: before, Slot: after, Reasoning: strings.Repeat(middle+"ü", 1+BlobThreshold/(len(middle)+2)), Cond: middle}
		if n%2 == 0 {
			rec.Pos = rec.Reasoning // twice in one record: one blob
		}
		body, ok := appendRecord(nil, rec)
		if !ok {
			t.Fatal("not encoded")
		}
		dir := t.TempDir()
		s := newBlobStore(dir)
		cut, err := s.cut(append([]byte(nil), body...), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.have) != 1 {
			t.Fatalf("%d blobs for one long string", len(s.have))
		}
		refs, rest, err := splitBlobs(cut)
		if err != nil || refs == nil {
			t.Fatalf("the cut line does not split: %v", err)
		}
		got, err := restoreBlobs(dir, rest, refs)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("restored %q (%v), want %q", got, err, body)
		}
	})
}

// A run stopped after a call whose result was kept beside the journal
// resumes: the call is answered from the journal (its value read back
// from the blob), the rest runs live.
func TestResumeAnswersALongResultFromItsBlob(t *testing.T) {
	const code = `let a = call first
let b = call second
  a: a
return {a: a, b: b}
`
	big := strings.Repeat("z", BlobThreshold+7)
	base := t.TempDir()
	r, err := Create(base, newHeader(code), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	first := &fakeSvc{name: "first", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) { return big, nil }}
	second := &fakeSvc{name: "second", fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		cancel() // stopped here, as a kill would stop it
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	globals := map[string]delegation.Value{"first": first, "second": second}
	runWith(t, r, mustParse(t, code), globals, ctx)
	r.Close() // no final record: the run was stopped
	second.fn = func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		a, _ := req.Args.Get("a")
		return int64(len(a.(string))), nil
	}
	rs, err := Resume(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := runWith(t, rs, mustParse(t, code), globals, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if first.calls.Load() != 1 || second.calls.Load() != 2 {
		t.Errorf("calls run: first %d, second %d; want the first answered from the journal", first.calls.Load(), second.calls.Load())
	}
	a, _ := v.(*delegation.Object).Get("a")
	b, _ := v.(*delegation.Object).Get("b")
	if a != big || b != int64(len(big)) {
		t.Errorf("resumed result a (%d bytes), b %v; want the long value and its length", len(toJSON(t, a)), b)
	}
}
