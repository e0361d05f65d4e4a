package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadQueue: the view counts what the queue file holds (accepted,
// duplicated, pending, finished), leaves a torn last line out without
// truncating it, and reads no file as an empty queue.
func TestReadQueue(t *testing.T) {
	dir := t.TempDir()
	if v, err := ReadQueue(dir); err != nil || v.Accepted != 0 || v.Depth() != 0 {
		t.Fatalf("no queue file: %+v, %v; want an empty queue", v, err)
	}
	lines := `{"op":"enq","drain":1,"node":"poll","fp":"a"}
{"op":"enq","drain":1,"node":"poll","fp":"a","dup":true}
{"op":"done","drain":1,"outcome":{"drain":1,"store_drain":1,"triggers":[],"receipts":[{"node":"poll"}],"rendered":1,"skipped":0,"failed":0,"tokens":0,"tokens_in":0,"tokens_out":0,"start":"2026-12-01T10:00:00Z","duration_ms":3}}
{"op":"enq","drain":2,"node":"poll","fp":"b"}
{"op":"enq","drain":2,"node":"tick","self":true}
{"op":"enq","drain":3,"node":"po`
	p := QueuePath(dir)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := ReadQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v.Accepted != 3 || v.Duplicates != 1 || v.Depth() != 2 || v.Drains != 1 || v.Last == nil || v.Last.Rendered != 1 {
		t.Errorf("view %+v: want 3 accepted, 1 duplicate, 2 pending, 1 drain done", v)
	}
	if v.Fired["poll"].IsZero() {
		t.Errorf("poll fired at %v, want drain 1's start", v.Fired["poll"])
	}
	if b, _ := os.ReadFile(p); string(b) != lines {
		t.Errorf("reading the queue changed its file")
	}
}

// FuzzReadQueue: any queue file is read into a view or refused with an
// error naming the file, never a panic, and never changed.
func FuzzReadQueue(f *testing.F) {
	for _, s := range []string{
		"", "\n", `{"op":"enq","drain":1,"node":"a","fp":"x"}` + "\n", `{"op":"done","drain":1,"outcome":null}` + "\n",
		`{"op":"done","drain":3,"outcome":{"drain":3,"receipts":[{"node":"a"}],"triggers":[{"node":"a","self":true}],"start":"2026-12-01T10:00:00Z"}}` + "\n",
		`{"op":"hold","drain":2,"node":"g"}` + "\n" + `{"op":"unhold","drain":2,"node":"g"}` + "\n",
		`{"op":"hold","drain":2,"node":"g","event":{"a":1},"fp":"sha256:aa"}` + "\n" + `{"op":"aside","drain":0,"node":"g","event":{"a":1},"fp":"sha256:aa","why":"w"}` + "\n", "{\"op\":", "[1,2]\n", "\xff\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		p := QueuePath(dir)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		v, err := ReadQueue(dir)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error %v does not name the file", err)
			}
			return
		}
		if v.Duplicates > v.Accepted || v.Depth() < 0 {
			t.Fatalf("view %+v", v)
		}
		if got, _ := os.ReadFile(p); string(got) != string(b) {
			t.Fatal("reading the queue changed its file")
		}
	})
}

// A line of the queue file that does not read is named by its line
// number (FILE:LINE, as every position prose gives), with the fix, both
// by serve's reader and by the view.
func TestQueueLineThatDoesNotReadIsNamedByLine(t *testing.T) {
	dir := t.TempDir()
	p := QueuePath(dir)
	os.MkdirAll(filepath.Dir(p), 0o700)
	lines := `{"op":"enq","drain":1,"node":"poll","fp":"a"}
{"op":"enq","drain":1,"node":"poll" "fp":"b"}
{"op":"enq","drain":1,"node":"poll","fp":"c"}
`
	if err := os.WriteFile(p, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	_, verr := ReadQueue(dir)
	_, qerr := OpenQueue(dir)
	for _, err := range []error{verr, qerr} {
		if err == nil || !strings.HasPrefix(err.Error(), p+":2: ") || !strings.Contains(err.Error(), "move it aside") {
			t.Errorf("got %v, want an error at %s:2 saying to move it aside", err, p)
		}
	}
}
