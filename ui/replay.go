package ui

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
)

// replayView is what a replay of a run from its page found: the run's
// journal answered every call and the outcome was the same (Same), or
// where it diverged and why.
type replayView struct {
	Same bool
	Msg  string
	// ID and Pos are the diverging call's (or judgment's), when the
	// replay names one.
	ID, Pos string
}

// replay replays the run from its journal alone (run.Replay, as prose
// replay: nothing runs live, nothing is written) and shows what it found
// on the run's page.
func (s *Server) replay(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("id")
	if _, err := s.readRun(runID); err != nil {
		s.fail(w, http.StatusNotFound, "Run "+runID, err.Error())
		return
	}
	o := s.o.Rerun
	o.RunDir = s.o.RunDir
	_, err := run.Replay(r.Context(), runID, o)
	v := &replayView{Same: err == nil, Msg: "the replay answered every call from the journal and ended as the run did"}
	if err != nil {
		v.Msg = err.Error()
		var de *journal.DivergenceError
		if errors.As(err, &de) {
			v.ID, v.Pos = de.ID.Key(), de.Pos.String()
		}
	}
	s.mu.Lock()
	s.replays[runID] = v
	s.mu.Unlock()
	http.Redirect(w, r, "/ui/runs/"+runID+"?notice="+url.QueryEscape("replayed")+"#replay", http.StatusSeeOther)
}

// markDiverged marks the call steps of runID.
func markDiverged(steps []*step, runID string) {
	for _, st := range steps {
		if st.Call != nil && st.Call.ID == runID {
			st.Call.Diverged = true
		}
		for _, l := range st.Lanes {
			markDiverged(l.Steps, runID)
		}
	}
}
