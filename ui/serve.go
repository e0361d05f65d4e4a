package ui

import "net/http"

// serveRoutes registers the serve page and its trigger form.
func (s *Server) serveRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /ui/serve", s.servePage)
}

// serveData is the serve page's data.
type serveData struct {
	Served bool
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	s.render(w, http.StatusOK, "serve.tmpl", "serve", "serve", serveData{Served: s.o.Backend != nil})
}
