//go:build unix

package store

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
)

// A durations file that cannot take a line (a directory, a named pipe
// with no reader) loses that render's duration and nothing else: the
// receipt appended before it stays committed, Append reports no error
// (so the drain goes on to publish), and the open never waits on the
// pipe.
func TestDurationsFileThatCannotBeWrittenFailsNoCommit(t *testing.T) {
	for _, kind := range []string{"directory", "named pipe"} {
		t.Run(kind, func(t *testing.T) {
			s, _ := Open(t.TempDir())
			if err := drain(t, s, nil, 1); err != nil {
				t.Fatal(err)
			}
			p := s.DurationsPath("alpha")
			os.Remove(p)
			if kind == "directory" {
				if err := os.Mkdir(p, 0o700); err != nil {
					t.Fatal(err)
				}
			} else if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			last, err := s.Last("alpha")
			if err != nil {
				t.Fatal(err)
			}
			truth, _ := canon.Decode([]byte(`{"f": 2, "g": "alpha"}`))
			v, err := s.PutVersion("alpha", truth)
			if err != nil {
				t.Fatal(err)
			}
			r := &receipt.Receipt{Node: "alpha", Drain: 2, Seq: 1, Status: receipt.Rendered, Version: v,
				Facets: map[string]string{"@atomic": "x", "f": "y"}, Prev: last.Hash, Cost: receipt.Cost{DurationMS: 7}}
			if err := r.Seal(nil); err != nil {
				t.Fatal(err)
			}
			if err := s.Append("alpha", r); err != nil {
				t.Fatalf("append with the durations file a %s: %v", kind, err)
			}
			if err := s.Publish("alpha", truth, []string{"f"}); err != nil {
				t.Fatal(err)
			}
			if got, err := s.Last("alpha"); err != nil || got.Hash != r.Hash {
				t.Fatalf("last receipt after the append: %v %v", got, err)
			}
			if ps, err := s.Verify(nil, nil); err != nil || len(ps) != 0 {
				t.Errorf("verify: %v %v", ps, err)
			}
		})
	}
}

// An index that cannot be written (a directory or a named pipe in its
// place) fails the save with what to do: the receipts are committed, the
// index is derived, and it is moved aside.
func TestIndexThatCannotBeWrittenSaysWhatToDo(t *testing.T) {
	for _, kind := range []string{"directory", "named pipe"} {
		t.Run(kind, func(t *testing.T) {
			s, _ := Open(t.TempDir())
			p := s.IndexPath()
			if kind == "directory" {
				os.Mkdir(p, 0o700)
			} else {
				syscall.Mkfifo(p, 0o600)
			}
			if err := drain(t, s, nil, 1); err != nil {
				t.Fatal(err)
			}
			for _, n := range nodes {
				if _, err := s.Standing(n); err != nil {
					t.Fatal(err)
				}
			}
			if err := drain(t, s, nil, 2); err != nil {
				t.Fatal(err)
			}
			err := s.SaveIndex()
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "move it aside") {
				t.Fatalf("save with the index a %s: %v, want an error naming %s and what to do", kind, err, p)
			}
			if ps, err := s.Verify(nil, nil); err != nil || len(ps) != 0 {
				t.Errorf("verify: %v %v", ps, err)
			}
		})
	}
}
