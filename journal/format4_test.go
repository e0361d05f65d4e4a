package journal

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
)

// testdata/format4/journal.jsonl was written by prose before format 5 (a
// start, a proc and an end record a call; a 3-step ratchet whose calls
// each reported a process group), sealed under fixtureKey.
const (
	fixtureRun    = "20261201T120000-f0f0f0"
	fixtureResult = `{"result":["step 1 (L4/1)","step 2 (L4/3)"]}`
)

var fixtureKey = []byte("format-4 fixture key, 32 bytes!!")

// fixtureBase copies the format 4 journal, its first n lines (all: n <=
// 0), into a run directory of a new base.
func fixtureBase(t *testing.T, n int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "format4", FileName))
	if err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		lines := bytes.SplitAfter(data, []byte("\n"))
		data = bytes.Join(lines[:n], nil)
	}
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, fixtureRun), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, fixtureRun, FileName), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return base
}

// A journal of format 4 still reads, replays to its result, and resumes:
// the resume answers the calls it holds (start, proc and end records),
// runs the rest live and continues the journal in format 4 (no large
// values beside it), which reads back whole.
func TestFormat4JournalReadsReplaysAndResumes(t *testing.T) {
	base := fixtureBase(t, 0)
	l, err := readFileKey(context.Background(), filepath.Join(base, fixtureRun, FileName), fixtureKey)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, r := range l.Records {
		counts[r.Type]++
	}
	if l.Header.Version != 4 || counts[TypeStart] != 6 || counts[TypeProc] != 6 || counts[TypeEnd] != 6 || l.Final() == nil {
		t.Fatalf("format 4 fixture read as version %d with %v", l.Header.Version, counts)
	}
	prog := mustParse(t, ratchetCode)
	rp, err := Replay(base, fixtureRun, Options{Key: fixtureKey})
	if err != nil {
		t.Fatal(err)
	}
	w := newRatchetWorld()
	v, err := runWith(t, rp, prog, w.globals(3), context.Background())
	if err != nil || toJSON(t, v) != fixtureResult || w.adv.calls.Load()+w.cert.calls.Load() != 0 {
		t.Fatalf("replay of the format 4 journal: %v, %v, %d calls run", v, err, w.adv.calls.Load()+w.cert.calls.Load())
	}

	// Cut after the second step's advancer (header and 10 records: its
	// certifier has a start and a proc, no end), and resume.
	base = fixtureBase(t, 11)
	rs, err := Resume(base, fixtureRun, Options{Key: fixtureKey, Now: func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	w = newRatchetWorld()
	cert := w.cert.fn
	big := strings.Repeat("a long note ", BlobThreshold/8)
	w.cert.fn = func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		v, err := cert(ctx, req)
		v.(*delegation.Object).Set("note", big)
		return v, err
	}
	v, err = runWith(t, rs, prog, w.globals(3), context.Background())
	if err != nil || toJSON(t, v) != fixtureResult {
		t.Fatalf("resume of the format 4 journal: %v, %v", v, err)
	}
	if a, c := w.adv.calls.Load(), w.cert.calls.Load(); a != 1 || c != 2 {
		t.Errorf("the resume ran %d advancer and %d certifier calls live, want 1 and 2 (the calls without an end)", a, c)
	}
	path := filepath.Join(base, fixtureRun, FileName)
	if _, err := os.Stat(filepath.Join(base, fixtureRun, BlobDir)); !os.IsNotExist(err) {
		t.Errorf("a resume of a format 4 journal kept values beside it (%v): a reader of format 4 would take their stubs for the values", err)
	}
	data, _ := os.ReadFile(path)
	if !bytes.Contains(data, []byte(big)) || bytes.Contains(data, []byte(blobsKey)) {
		t.Error("the long note is not in the format 4 journal's line")
	}
	if _, err := readFileKey(context.Background(), path, fixtureKey); err != nil {
		t.Fatalf("the resumed format 4 journal does not read back: %v", err)
	}
	rp, err = Replay(base, fixtureRun, Options{Key: fixtureKey})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := runWith(t, rp, prog, newRatchetWorld().globals(3), context.Background()); err != nil || toJSON(t, v) != fixtureResult {
		t.Fatalf("replay of the resumed format 4 journal: %v, %v", v, err)
	}
}
