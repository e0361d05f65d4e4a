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
	id := r.PathValue("id")
	if _, err := s.readRun(id); err != nil {
		s.fail(w, http.StatusNotFound, "Run "+id, err.Error())
		return
	}
	o := s.o.Rerun
	o.RunDir = s.o.RunDir
	_, err := run.Replay(r.Context(), id, o)
	v := &replayView{Same: err == nil, Msg: "the replay answered every call from the journal and ended as the run did"}
	if err != nil {
		v.Msg = err.Error()
		var de *journal.DivergenceError
		if errors.As(err, &de) {
			v.ID, v.Pos = de.ID.Key(), de.Pos.String()
		}
	}
	s.mu.Lock()
	s.replays[id] = v
	s.mu.Unlock()
	http.Redirect(w, r, "/ui/runs/"+id+"?notice="+url.QueryEscape("replayed")+"#replay", http.StatusSeeOther)
}

// markDiverged marks the call steps of id.
func markDiverged(steps []*step, id string) {
	for _, st := range steps {
		if st.Call != nil && st.Call.ID == id {
			st.Call.Diverged = true
		}
		for _, l := range st.Lanes {
			markDiverged(l.Steps, id)
		}
	}
}
