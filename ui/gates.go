package ui

import (
	"net/http"

	"github.com/proselang/prose/journal"
)

// gateRoutes registers the actions on a run's gates: answer and resume.
func (s *Server) gateRoutes(mux *http.ServeMux) {
}

// gateView is a waiting gate as its form shows it.
type gateView struct {
	journal.GateState
	Key string
}

// gateViews are the gates run id waits at.
func (s *Server) gateViews(id string, l *journal.Log) []gateView {
	gs, err := journal.Waiting(s.o.RunDir, id)
	if err != nil {
		return nil
	}
	var out []gateView
	for _, g := range gs {
		out = append(out, gateView{GateState: g, Key: g.Path.Key()})
	}
	return out
}

// isResuming reports whether a resume from the page runs run id.
func (s *Server) isResuming(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resuming[id]
}
