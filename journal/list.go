package journal

import (
	"errors"
	"fmt"
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
	Torn   bool
}

// Duration is the time from the run's start to its last record.
func (s *Summary) Duration() time.Duration {
	if s.End.Before(s.Start) {
		return 0
	}
	return s.End.Sub(s.Start)
}

// List returns the runs under base, newest first. A directory whose
// journal cannot be read is listed with Status "unreadable" and Err set.
// A missing base is no runs.
func List(base string) ([]*Summary, error) {
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
			continue
		}
		path := filepath.Join(base, e.Name(), FileName)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		out = append(out, Summarize(path))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}

// Summarize reads the journal at path into a Summary.
func Summarize(path string) *Summary {
	dir := filepath.Dir(path)
	s := &Summary{ID: filepath.Base(dir), Dir: dir}
	l, err := ReadFile(path)
	if err != nil {
		s.Status, s.Err = "unreadable", err.Error()
		return s
	}
	s.Spec, s.Start, s.End, s.Torn = l.Header.Spec, l.Header.Time, l.Header.Time, l.Torn
	seen := map[callKey]bool{}
	for _, r := range l.Records {
		if r.completed() && !seen[callKey{r.ID, r.Attempt}] {
			seen[callKey{r.ID, r.Attempt}] = true
			s.Calls++
		}
		if r.Time.After(s.End) {
			s.End = r.Time
		}
	}
	switch fin := l.Final(); {
	case fin != nil:
		s.Status, s.Err = fin.Status, fin.Err
	case locked(path):
		s.Status = StatusRunning
	default:
		s.Status = StatusIncomplete
	}
	return s
}

// Remove deletes the directory of run id under base. It refuses a run that
// a process is still writing.
func Remove(base, id string) error {
	if err := checkRunID(id); err != nil {
		return err
	}
	dir := filepath.Join(base, id)
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no run %q in %s", id, base)
	}
	if locked(path) {
		return fmt.Errorf("run %s is still running", id)
	}
	return os.RemoveAll(dir)
}
