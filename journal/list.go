package journal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Summary describes one run directory for `prose runs`.
type Summary struct {
	ID     string
	Dir    string
	Spec   string
	Start  time.Time
	End    time.Time // time of the last record
	Status string    // a Status* constant
	Calls  int       // completed call attempts journaled
	Err    string    // the final error, if any
	// Tokens is the model tokens (in and out) the journal's judgments
	// report; Gates the gates a waiting run waits at.
	Tokens int
	Gates  int
	// Running is the time spent running: from the start to the last
	// record of the run and of each resume, without the pauses between
	// them (a killed run resumed a day later did not run for a day).
	Running time.Duration
}

// Duration is the time the run spent running (Running), or, for a
// Summary built by hand, the time from its start to its last record.
func (s *Summary) Duration() time.Duration {
	if s.Running > 0 {
		return s.Running
	}
	if s.End.Before(s.Start) {
		return 0
	}
	return s.End.Sub(s.Start)
}

// List returns the runs under base, newest first (by the start time in
// the header, to the nanosecond). A directory whose
// journal cannot be read is listed with Status "unreadable" and Err set.
// A missing base is no runs.
func List(base string) ([]*Summary, error) {
	return ListContext(context.Background(), base)
}

// ListContext is List that stops with ctx's error once ctx is canceled:
// reading every journal of a run directory that holds large runs takes a
// while, and Ctrl-C stops it.
func ListContext(ctx context.Context, base string) ([]*Summary, error) {
	ents, err := os.ReadDir(base)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Summary
	for _, e := range ents {
		if !e.IsDir() {
			// A link to a run directory is listed as resume and replay
			// read it by its id: else "latest" would pass over it for
			// an older run (prose runs rm still refuses a link).
			st, err := os.Stat(filepath.Join(base, e.Name()))
			if e.Type()&fs.ModeSymlink == 0 || err != nil || !st.IsDir() {
				continue
			}
		}
		// Lstat: a journal.jsonl that is a link loop or a dangling link
		// is a run whose journal cannot be read (listed as unreadable,
		// removable), not a directory without a run.
		path := filepath.Join(base, e.Name(), FileName)
		if _, err := os.Lstat(path); err != nil {
			continue
		}
		sum := summarize(ctx, path)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out = append(out, sum)
	}
	SortNewestFirst(out)
	return out, nil
}

// SortNewestFirst sorts runs as List returns them: newest first (by
// Started), the greater id first among runs started at one time.
func SortNewestFirst(runs []*Summary) {
	sort.SliceStable(runs, func(i, j int) bool {
		ti, tj := runs[i].Started(), runs[j].Started()
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		return runs[i].ID > runs[j].ID
	})
}

// Started is when the run started: the header's time (runs started in
// the same second differ there), else the time in its id (an unreadable
// journal), else the time its directory was last changed.
func (s *Summary) Started() time.Time {
	if !s.Start.IsZero() {
		return s.Start
	}
	if len(s.ID) >= 15 {
		if t, err := time.Parse("20060102T150405", s.ID[:15]); err == nil {
			return t
		}
	}
	if st, err := os.Stat(s.Dir); err == nil {
		return st.ModTime()
	}
	return time.Time{}
}

// Summarize reads the journal at path into a Summary.
func Summarize(path string) *Summary { return summarize(context.Background(), path) }

func summarize(ctx context.Context, path string) *Summary {
	dir := filepath.Dir(path)
	s := &Summary{ID: filepath.Base(dir), Dir: dir}
	l, err := readFile(ctx, path)
	if err != nil {
		s.Status, s.Err = StatusUnreadable, err.Error()
		return s
	}
	s.Spec, s.Start, s.End = l.Header.Spec, l.Header.Time, l.Header.Time
	seen := map[callKey]bool{}
	segStart, segEnd := s.Start, s.Start
	for _, r := range l.Records {
		if r.completed() && !seen[callKey{r.ID, r.Attempt}] {
			seen[callKey{r.ID, r.Attempt}] = true
			s.Calls++
		}
		if r.Type == TypeJudge {
			s.Tokens += r.TokensIn + r.TokensOut
		}
		if r.Type == TypeSession && !r.Time.IsZero() {
			s.Running += segEnd.Sub(segStart)
			segStart, segEnd = r.Time, r.Time
		}
		if segStart.IsZero() && !r.Time.IsZero() {
			segStart, segEnd = r.Time, r.Time // a header without a time
		}
		if r.Time.After(segEnd) {
			segEnd = r.Time
		}
		if r.Time.After(s.End) {
			s.End = r.Time
		}
	}
	s.Running += segEnd.Sub(segStart)
	switch fin := l.Final(); {
	case fin != nil:
		s.Status, s.Err = fin.Status, fin.Err
		s.Gates = len(waiting(l))
	case locked(path):
		s.Status = StatusRunning
	default:
		s.Status = StatusIncomplete
	}
	return s
}

// NoRunError is Remove's answer for a run id that names no directory
// under the run directory: the caller gave a wrong id, which the CLI
// reports as bad usage, as it does for every other command given one.
type NoRunError struct{ ID, Base string }

func (e *NoRunError) Error() string { return fmt.Sprintf("no run %q in %s", e.ID, e.Base) }

// Remove deletes the directory of run id under base: a directory (not a
// symbolic link) directly under base that holds a journal.jsonl, as List
// lists it, whether its journal can be read or not (an unreadable run is
// removed like any other). It refuses a directory with no journal.jsonl at
// all (not something prose made), and a run that a process is still
// writing. It holds the journal's lock while it deletes, so no resume
// starts on a run half gone. It returns the directory it removed.
func Remove(base, id string) (string, error) {
	return remove(base, id, nil)
}

// remove is Remove; during, when set, runs with the lock held, just
// before the deletion (tests).
func remove(base, id string, during func()) (string, error) {
	if err := checkRunID(id); err != nil {
		return "", err
	}
	dir := filepath.Join(base, id)
	path := filepath.Join(dir, FileName)
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		if err == nil { // a symlink or a file: not a run directory prose made
			return "", fmt.Errorf("%s is not a run directory", dir)
		}
		return "", &NoRunError{ID: id, Base: base}
	}
	st, err := os.Lstat(path)
	if err != nil {
		return "", fmt.Errorf("%s holds no %s, so it is not a run directory; not removing it: if the directory is yours, delete it yourself", dir, FileName)
	}
	if st.Mode().IsRegular() {
		// Only a regular file is opened: opening a FIFO would block,
		// and nothing locks what is not a journal.
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("run %s: %w", id, err)
		}
		defer f.Close()
		unlock, err := lockFile(f)
		if err != nil {
			return "", fmt.Errorf("run %s is still running", id)
		}
		defer unlock()
	}
	if during != nil {
		during()
	}
	return dir, os.RemoveAll(dir)
}
