package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Remove deletes only real run directories holding a journal.jsonl: never
// what a symbolic link points to, never a directory without a
// journal.jsonl, never a path outside base. A directory whose journal.jsonl
// is not a journal (List shows it as unreadable) is removed.
func TestRemoveIsSafe(t *testing.T) {
	base := filepath.Join(t.TempDir(), "runs")
	outside := t.TempDir()
	keep := filepath.Join(outside, "keep.txt")
	os.WriteFile(keep, []byte("x"), 0o644)
	// A directory elsewhere that looks like a run, linked into base.
	os.WriteFile(filepath.Join(outside, FileName), []byte(`{"t":"header","v":1}`+"\n"), 0o644)
	os.MkdirAll(base, 0o755)
	if err := os.Symlink(outside, filepath.Join(base, "20260101T000000-linked")); err != nil {
		t.Skip(err)
	}
	// A directory in base with no journal.jsonl.
	notj := filepath.Join(base, "20260101T000000-nojrnl")
	os.MkdirAll(notj, 0o755)
	os.WriteFile(filepath.Join(notj, "notes.txt"), []byte("precious data\n"), 0o644)

	for _, tc := range []struct{ id, want string }{
		{"20260101T000000-linked", "not a run directory"},
		{"20260101T000000-nojrnl", "holds no journal.jsonl"},
		{"..", "invalid run id"},
		{"../" + filepath.Base(outside), "invalid run id"},
		{`a\b`, "invalid run id"},
		{"", "invalid run id"},
	} {
		if _, err := Remove(base, tc.id); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Remove(%q) = %v, want an error saying %q", tc.id, err, tc.want)
		}
	}
	for _, p := range []string{keep, filepath.Join(outside, FileName), filepath.Join(notj, "notes.txt")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}
}

// A journal from a newer prose and one damaged in the middle are refused
// with messages that say so; List shows them as unreadable.
func TestReadRefusesNewerAndDamagedJournals(t *testing.T) {
	base := t.TempDir()
	write := func(id, text string) {
		os.MkdirAll(filepath.Join(base, id), 0o755)
		os.WriteFile(filepath.Join(base, id, FileName), []byte(text), 0o644)
	}
	write("20260101T000000-newer1", `{"t":"header","v":99,"run":"20260101T000000-newer1"}`+"\n")
	// A newer format may seal its records another way: its header is
	// refused for its version, not reported as edited.
	newer := strconv.Itoa(FormatVersion + 1)
	write("20260101T000000-newer2", `{"t":"header","v":`+newer+`,"prose":"v9.1.0","run":"20260101T000000-newer2","sum":"`+strings.Repeat("0", 64)+`"}`+"\n")
	write("20260101T000000-broken", `{"t":"header","v":1}`+"\n"+`{"t":"start","id":"L1"}`+"\n{oops\n"+`{"t":"end","id":"L1"}`+"\n")
	for id, want := range map[string]string{
		"20260101T000000-newer1": "newer prose",
		"20260101T000000-newer2": "journal format version " + newer + " was written by prose v9.1.0",
		"20260101T000000-broken": "line 3: invalid journal record, and not the last line",
	} {
		_, err := Resume(base, id, Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Resume(%s) = %v, want %q", id, err, want)
		}
	}
	runs, _ := List(base)
	for _, s := range runs {
		if s.Status != StatusUnreadable || s.Err == "" {
			t.Errorf("%s: status %s, err %q", s.ID, s.Status, s.Err)
		}
	}
}

// Runs started in the same second are listed by their exact start time,
// whatever their random id suffix.
func TestListOrdersRunsOfTheSameSecond(t *testing.T) {
	base := t.TempDir()
	t0 := time.Date(2026, 11, 30, 2, 15, 0, 0, time.UTC)
	for i, suffix := range []string{"ffffff", "000000", "888888"} {
		at := t0.Add(time.Duration(i) * time.Millisecond)
		r, err := Create(base, Header{RunID: "20261130T021500-" + suffix, Time: at}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	runs, _ := List(base)
	var got []string
	for _, r := range runs {
		got = append(got, r.ID[16:])
	}
	if strings.Join(got, " ") != "888888 000000 ffffff" {
		t.Errorf("order %v, want the latest start first", got)
	}
}

// A journal that cannot be written is refused by a resume with a message
// that points at replay, which only reads it.
func TestResumeOfReadOnlyJournal(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes read-only files")
	}
	base := t.TempDir()
	r, err := Create(base, Header{RunID: "20261130T021500-aaaaaa"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	os.Chmod(r.Path(), 0o400)
	if _, err := Resume(base, r.ID(), Options{}); err == nil || !strings.Contains(err.Error(), "prose replay reads it without writing") {
		t.Errorf("Resume of a read-only journal: %v", err)
	}
	if _, err := Replay(base, r.ID(), Options{}); err != nil {
		t.Errorf("Replay of a read-only journal: %v", err)
	}
}

// Every run directory List shows is removable: one killed while writing
// its header (an empty or torn journal), one whose journal.jsonl is not a
// journal or is a directory; List shows each as unreadable first.
func TestRemoveUnreadableRuns(t *testing.T) {
	base := t.TempDir()
	runs := map[string]string{
		"20260101T000000-empty1": "",
		"20260101T000000-torn01": `{"t":"hea`,
		"20260101T000000-torn02": `{"t":"header","v":1,"run":"2026`,
		"20260101T000000-other1": `{"t":"note"`,
		"20260101T000000-other2": "{\"t\":\"hea\nmore\n",
		"20260101T000000-garbag": "precious data\n",
		"20260101T000000-jisdir": "",
	}
	for id, content := range runs {
		os.MkdirAll(filepath.Join(base, id), 0o755)
		if id == "20260101T000000-jisdir" {
			os.MkdirAll(filepath.Join(base, id, FileName), 0o755)
			continue
		}
		os.WriteFile(filepath.Join(base, id, FileName), []byte(content), 0o644)
	}
	list, err := List(base)
	if err != nil || len(list) != len(runs) {
		t.Fatalf("List = %d runs, %v; want %d", len(list), err, len(runs))
	}
	for _, s := range list {
		if s.Status != StatusUnreadable {
			t.Errorf("%s: status %s, want unreadable", s.ID, s.Status)
		}
		dir, err := Remove(base, s.ID)
		if err != nil || dir != filepath.Join(base, s.ID) {
			t.Errorf("Remove(%s) = %q, %v", s.ID, dir, err)
		}
		if _, err := os.Stat(filepath.Join(base, s.ID)); !os.IsNotExist(err) {
			t.Errorf("%s still there: %v", s.ID, err)
		}
	}
}

// Listing stops at Ctrl-C: a canceled ListContext returns the context's
// error, not the runs it read as unreadable.
func TestListStopsWhenCanceled(t *testing.T) {
	base := t.TempDir()
	r, err := Create(base, newHeader("x"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Finish("done", nil)
	r.Close()
	if runs, err := ListContext(context.Background(), base); err != nil || len(runs) != 1 || runs[0].Status != StatusOK {
		t.Fatalf("list: %v, %+v", err, runs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if runs, err := ListContext(ctx, base); !errors.Is(err, context.Canceled) || runs != nil {
		t.Errorf("canceled list: %v, %d runs", err, len(runs))
	}
}
