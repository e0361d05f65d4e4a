//go:build unix

package journal

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A run directory linked into the run directory base (resume and replay
// read it by its id) is listed, in its place by time: "latest" is the
// newest run, never an older one passed over for the link. Remove still
// refuses the link.
func TestListShowsALinkedRunDirectory(t *testing.T) {
	base, elsewhere := t.TempDir(), t.TempDir()
	old, err := Create(base, Header{Spec: "/s/old.prose.md", RunID: "20000101T000000-aaaaaa", Time: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	nw, err := Create(elsewhere, Header{Spec: "/s/new.prose.md", RunID: "29990101T000000-bbbbbb", Time: time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	nw.Close()
	if err := os.Symlink(filepath.Join(elsewhere, nw.ID()), filepath.Join(base, nw.ID())); err != nil {
		t.Skip(err)
	}
	runs, err := List(base)
	if err != nil || len(runs) != 2 || runs[0].ID != nw.ID() {
		ids := []string{}
		for _, r := range runs {
			ids = append(ids, r.ID)
		}
		t.Fatalf("List: %v %v, want the linked run %s first of two", ids, err, nw.ID())
	}
	if _, err := Remove(base, nw.ID()); err == nil {
		t.Error("Remove of a linked run directory did not refuse")
	}
}
