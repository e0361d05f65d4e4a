package journal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two runs' journals swapped (or one copied over another) still check
// record by record; the run id in each header is what tells them apart.
// Every reader of a run directory refuses the journal of another run,
// naming the file, instead of answering for the run it is not.
func TestSwappedJournalsAreRefused(t *testing.T) {
	base := t.TempDir()
	ids := make([]string, 2)
	for i, steps := range []int64{3, 5} {
		h := newHeader(ratchetCode)
		h.RunID = []string{"20261201T120000-aaaaaa", "20261201T120001-bbbbbb"}[i]
		r, err := Create(base, h, Options{})
		if err != nil {
			t.Fatal(err)
		}
		w := newRatchetWorld()
		if _, err := runWith(t, r, mustParse(t, ratchetCode), w.globals(steps), context.Background()); err != nil {
			t.Fatal(err)
		}
		r.Close()
		ids[i] = r.ID()
	}
	a, b := filepath.Join(base, ids[0], FileName), filepath.Join(base, ids[1], FileName)
	tmp := filepath.Join(base, "tmp")
	for _, mv := range [][2]string{{a, tmp}, {b, a}, {tmp, b}} {
		if err := os.Rename(mv[0], mv[1]); err != nil {
			t.Fatal(err)
		}
	}
	want := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), "is of run "+ids[1]) {
			t.Errorf("%s of a swapped journal: %v, want an error naming %s and the run it is of", what, err, a)
		}
	}
	_, err := Replay(base, ids[0], Options{})
	want("replay", err)
	_, err = Resume(base, ids[0], Options{})
	want("resume", err)
	_, err = ReadFile(a)
	want("read", err)
	s := Summarize(a)
	if s.Status != StatusUnreadable {
		t.Errorf("summary of a swapped journal: status %s, want %s", s.Status, StatusUnreadable)
	}
	want("summary", errorString(s.Err))
}

type errorString string

func (e errorString) Error() string { return string(e) }
