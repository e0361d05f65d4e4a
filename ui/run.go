package ui

import (
	"bufio"
	"bytes"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/journal"
)

// runData is a run page's data.
type runData struct {
	ID    string
	Sum   *journal.Summary
	Log   *journal.Log
	Steps []*step
	Final *journal.Record
	// Source is the spec's text around the line of the error that ended
	// the run (nil without one).
	Source *source
	Gates  []gateView
	// Resumable: the run can go on (resume button); Resuming: a resume
	// from this page runs it now; Resumed what the last one ended with.
	Resumable bool
	Resuming  bool
	Resumed   string
	// Replayable: the run ended, and a replay can check it; Replay is
	// what the last replay from the page found.
	Replayable bool
	Replay     *replayView
	// Notice is what the last action on the page did; Problem why it was
	// refused.
	Notice, Problem string
	CSRF            string
}

// LiveID makes the page follow the changes of its own run only.
func (d *runData) LiveID() string { return d.ID }

// readRun reads the journal of run id (a NoRunError when there is none).
func (s *Server) readRun(id string) (*journal.Log, error) {
	if id == "" || id == "." || id == ".." || filepath.Base(id) != id || strings.ContainsAny(id, `/\`) {
		return nil, &journal.NoRunError{ID: id, Base: s.o.RunDir}
	}
	l, err := journal.ReadFile(filepath.Join(s.o.RunDir, id, journal.FileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, &journal.NoRunError{ID: id, Base: s.o.RunDir}
	}
	return l, err
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.showRun(w, http.StatusOK, r.PathValue("id"), q.Get("notice"), "")
}

// showRun renders run id's page with a notice or a problem.
func (s *Server) showRun(w http.ResponseWriter, code int, id, notice, problem string) {
	d, err := s.runData(id)
	if err != nil {
		code := http.StatusInternalServerError
		if errors.As(err, new(*journal.NoRunError)) {
			code = http.StatusNotFound
		}
		s.fail(w, code, "Run "+id, err.Error())
		return
	}
	d.Notice, d.Problem, d.CSRF = notice, problem, s.csrf
	s.render(w, code, "run.tmpl", "runs", "runs", d)
}

func (s *Server) runData(id string) (*runData, error) {
	l, err := s.readRun(id)
	if err != nil {
		return nil, err
	}
	d := &runData{ID: id, Log: l, Sum: journal.Summarize(l.Path), Steps: timeline(l), Final: l.Final()}
	if d.Final != nil && d.Final.Err != "" {
		d.Source = s.sourceAt(l, d.Final.Pos, d.Final.Err)
	}
	d.Gates = gateViews(l.Path, id, s.o.RunDir, s.o.Now())
	d.Resuming, d.Resumed = s.resumeState(id)
	s.mu.Lock()
	d.Replay = s.replays[id]
	s.mu.Unlock()
	if d.Replay != nil && d.Replay.ID != "" {
		markDiverged(d.Steps, d.Replay.ID)
	}
	switch d.Sum.Status {
	case journal.StatusWaiting, journal.StatusInterrupted, journal.StatusIncomplete, journal.StatusError:
		d.Resumable = !d.Resuming
	}
	d.Replayable = d.Final != nil && d.Sum.Status != journal.StatusWaiting && !d.Resuming
	return d, nil
}

// source is some lines of a spec file, one of them the line of an error.
type source struct {
	File  string
	Kept  bool // read from the copy the run kept, not the file as it is now
	Lines []sourceLine
	Err   string
}

type sourceLine struct {
	N    int
	Text string
	Hit  bool
}

// sourceAt reads the lines around pos (FILE:LINE:COL) from the source the
// run kept of FILE, else from the file as it is now; nil when there is
// neither.
func (s *Server) sourceAt(l *journal.Log, pos, msg string) *source {
	file, line, ok := splitPos(pos)
	if !ok {
		return nil
	}
	src := &source{File: file, Err: msg}
	b, kept := keptSource(l, file)
	if b == nil {
		path := file
		if !filepath.IsAbs(path) && l.Header.Dir != "" {
			path = filepath.Join(l.Header.Dir, path)
		}
		var err error
		if b, err = filekind.ReadFile(path); err != nil {
			return nil
		}
	}
	src.Kept = kept
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if n >= line-4 && n <= line+3 {
			src.Lines = append(src.Lines, sourceLine{N: n, Text: sc.Text(), Hit: n == line})
		}
	}
	return src
}

// keptSource is the copy the run kept of the spec it loaded as file.
func keptSource(l *journal.Log, file string) ([]byte, bool) {
	dir := filepath.Dir(l.Path)
	var digest string
	for _, r := range l.Records {
		if r.Type != journal.TypeSource || r.Path == "" {
			continue
		}
		p := r.Path
		if !filepath.IsAbs(p) && l.Header.Dir != "" {
			p = filepath.Join(l.Header.Dir, p)
		}
		if r.Path == file || p == file || filepath.Base(r.Path) == file {
			digest = r.SpecDigest
			if r.Withheld {
				digest = ""
			}
		}
	}
	if digest == "" || strings.ContainsAny(digest, `/\.`) {
		return nil, false
	}
	b, err := filekind.ReadFile(filepath.Join(dir, journal.SourcesDir, digest+".prose.md")) // a named pipe is refused, not waited on
	if err != nil || journal.Digest(b) != digest {
		return nil, false
	}
	return b, true
}

// splitPos splits FILE:LINE:COL (or FILE:LINE).
func splitPos(pos string) (file string, line int, ok bool) {
	parts := strings.Split(pos, ":")
	if len(parts) >= 3 {
		if n, err := strconv.Atoi(parts[len(parts)-2]); err == nil {
			if _, err := strconv.Atoi(parts[len(parts)-1]); err == nil {
				return strings.Join(parts[:len(parts)-2], ":"), n, true
			}
		}
	}
	if len(parts) >= 2 {
		if n, err := strconv.Atoi(parts[len(parts)-1]); err == nil {
			return strings.Join(parts[:len(parts)-1], ":"), n, true
		}
	}
	return "", 0, false
}
