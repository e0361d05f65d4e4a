package ui

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"

	"github.com/proselang/prose/journal"
)

// runData is a run page's data.
type runData struct {
	ID      string
	Sum     *journal.Summary
	Log     *journal.Log
	Gates   []gateView
	Served  bool // a resume from the page is running
	Message string
}

// readRun reads the journal of run id (a NoRunError when there is none).
func (s *Server) readRun(id string) (*journal.Log, error) {
	if id == "" || id == "." || id == ".." || filepath.Base(id) != id {
		return nil, &journal.NoRunError{ID: id, Base: s.o.RunDir}
	}
	l, err := journal.ReadFile(filepath.Join(s.o.RunDir, id, journal.FileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, &journal.NoRunError{ID: id, Base: s.o.RunDir}
	}
	return l, err
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	l, err := s.readRun(id)
	if err != nil {
		code := http.StatusInternalServerError
		if errors.As(err, new(*journal.NoRunError)) {
			code = http.StatusNotFound
		}
		s.fail(w, code, "Run "+id, err.Error())
		return
	}
	d := runData{ID: id, Log: l, Sum: journal.Summarize(l.Path), Message: r.URL.Query().Get("msg")}
	d.Gates = s.gateViews(id, l)
	d.Served = s.isResuming(id)
	s.render(w, http.StatusOK, "run.tmpl", "runs", "runs", d)
}
