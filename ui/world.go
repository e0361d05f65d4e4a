package ui

import "net/http"

// This is the world model pages' file: the graph, a node's truth,
// versions and receipts, a drain step by step. worldRoutes registers
// them; their templates are templates/world*.tmpl.

// worldRoutes registers the world model pages.
func (s *Server) worldRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /ui/world", s.worldPage)
}

// worldData is the world page's data.
type worldData struct {
	Graph   bool
	Nodes   int
	Problem string
}

func (s *Server) worldPage(w http.ResponseWriter, r *http.Request) {
	d := worldData{Graph: s.o.Graph != nil}
	if s.o.Graph != nil {
		d.Nodes = len(s.o.Graph.Nodes)
	} else if s.o.GraphErr != nil {
		d.Problem = s.o.GraphErr.Error()
	}
	s.render(w, http.StatusOK, "world.tmpl", "world", "world", d)
}
