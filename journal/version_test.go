package journal

import (
	"testing"

	"github.com/proselang/prose/version"
)

// The header, and each resume's session record, say which prose wrote
// them.
func TestJournalRecordsProseVersion(t *testing.T) {
	base := t.TempDir()
	r, err := Create(base, Header{Spec: "s.prose.md"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := r.ID()
	r.Close()
	r, err = Resume(base, id, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	l, err := ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	want := version.String()
	if want == "" || l.Header.Prose != want {
		t.Errorf("header prose = %q, want %q", l.Header.Prose, want)
	}
	var sessions int
	for _, rec := range l.Records {
		if rec.Type == TypeSession {
			sessions++
			if rec.Prose != want {
				t.Errorf("session prose = %q, want %q", rec.Prose, want)
			}
		}
	}
	if sessions != 1 {
		t.Errorf("%d session records, want 1", sessions)
	}
}
