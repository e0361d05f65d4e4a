package ui

import (
	"io/fs"
	"net/http"
)

// routes registers every page: each group of pages registers its own,
// in its own file.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /ui/static/", http.StripPrefix("/ui/static/", staticFiles(http.FileServerFS(static))))
	mux.HandleFunc("GET /ui/events", s.events)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ui/", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /ui", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ui/", http.StatusSeeOther)
	})
	s.runRoutes(mux)
	s.gateRoutes(mux)
	s.serveRoutes(mux)
	s.worldRoutes(mux)
	return mux
}

// staticFiles serves the embedded assets, cached for a while (they
// change only with the binary).
func staticFiles(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		next.ServeHTTP(w, r)
	})
}
