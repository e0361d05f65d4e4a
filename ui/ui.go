package ui

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/proselang/prose/redact"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/serve/httpapi"
	"github.com/proselang/prose/world/graph"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// DefaultPoll is how often the watcher looks at the files prose writes
// when Options.Poll is 0.
const DefaultPoll = 500 * time.Millisecond

// DefaultPageSize is how many runs a page of the list shows when
// Options.PageSize is 0.
const DefaultPageSize = 50

// Options configure a Server.
type Options struct {
	// RunDir is the directory of run journals (one subdirectory a run).
	RunDir string
	// StateDir is the world model's state directory ("" when there is
	// none); serve's queue lies under it.
	StateDir string
	// Graph is the project's wired graph, nil when PATH holds no world
	// model (GraphErr then says why, when it is an error).
	Graph    *graph.Graph
	GraphErr error
	// Backend is the served world of prose serve, nil for prose ui: the
	// serve page then reads the queue from StateDir and takes no trigger.
	Backend httpapi.Backend
	// Started is when the served world's serve started (Continuity
	// wakes of nodes that never fired count from it); zero for prose ui.
	Started time.Time
	// Token, when set, is required by every page and action.
	Token string
	// Rerun are the run options a resume from the page runs with
	// (RunDir is set from Options.RunDir); the CLI passes what prose
	// resume passes.
	Rerun run.Options
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Poll is the watcher's interval (default DefaultPoll).
	Poll time.Duration
	// Redactor removes secrets from every page (default: the
	// environment's secrets and the token, and credential-shaped text,
	// as journals are redacted).
	Redactor *redact.Redactor
	// PageSize is the number of runs a list page shows (default
	// DefaultPageSize).
	PageSize int
	// Trusted, when set, is the key every receipt of the world pages
	// must be signed by (--trusted-key), as for prose receipts verify;
	// without it a signed store is checked against the key it records.
	Trusted ed25519.PublicKey
}

// Server serves the pages. It is safe for concurrent use.
type Server struct {
	o     Options
	pages map[string]*template.Template
	csrf  string
	hub   *hub
	red   *redact.Redactor
	runs  runCache
	// ctx ends with Close: resumes started from the page end with it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// resuming holds the runs a resume from the page is running.
	mu       sync.Mutex
	resuming map[string]bool
	resumed  map[string]string
	replays  map[string]*replayView
}

// New makes a Server of o.
func New(o Options) (*Server, error) {
	if o.RunDir == "" {
		return nil, fmt.Errorf("ui: no run directory")
	}
	abs, err := filepath.Abs(o.RunDir)
	if err != nil {
		return nil, fmt.Errorf("ui: %w", err)
	}
	o.RunDir = abs
	if o.StateDir != "" {
		if o.StateDir, err = filepath.Abs(o.StateDir); err != nil {
			return nil, fmt.Errorf("ui: %w", err)
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("ui: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{o: o, pages: pages, csrf: hex.EncodeToString(b), ctx: ctx, cancel: cancel, resuming: map[string]bool{}, resumed: map[string]string{}, replays: map[string]*replayView{}}
	s.hub = newHub(s.watch)
	s.red = o.Redactor
	if s.red == nil {
		s.red = redact.ForEnv(nil, o.Token).WithShapes()
	}
	return s, nil
}

// Close stops the watcher and the resumes started from the page, and
// waits for them.
func (s *Server) Close() error {
	s.cancel()
	s.hub.close()
	s.wg.Wait()
	return nil
}

// Handler serves the pages under /ui/ (and / leads to /ui/), behind the
// token and the cross-site checks (see the package doc).
func (s *Server) Handler() http.Handler {
	return s.guard(s.routes())
}

// parsePages parses every page with the layout and the partials.
func parsePages() (map[string]*template.Template, error) {
	base, err := template.New("layout.tmpl").Funcs(funcs).ParseFS(templateFS, "templates/layout.tmpl", "templates/partials.tmpl")
	if err != nil {
		return nil, fmt.Errorf("ui: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("ui: %w", err)
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimPrefix(n, "templates/")
		if name == "layout.tmpl" || name == "partials.tmpl" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, fmt.Errorf("ui: %w", err)
		}
		pages[name] = t
	}
	return pages, nil
}

// page is what the layout is given: the page's own Data, and what every
// page needs.
type page struct {
	// Nav is the nav entry the page belongs to: runs, world or serve.
	Nav string
	// Live is the topics the page follows (data-live); LiveID, when
	// set, is the one id (a run's) whose changes it follows.
	Live   string
	LiveID string
	CSRF   string
	Data   any
}

// render writes the page of file name (templates/NAME) with data.
func (s *Server) render(w http.ResponseWriter, code int, name, nav, live string, data any) {
	t := s.pages[name]
	if t == nil {
		http.Error(w, "ui: no page "+name, http.StatusInternalServerError)
		return
	}
	p := page{Nav: nav, Live: live, CSRF: s.csrf, Data: data}
	if l, ok := data.(interface{ LiveID() string }); ok {
		p.LiveID = l.LiveID()
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		http.Error(w, "ui: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	io.WriteString(w, s.red.String(buf.String()))
}

// problem is the page that says what went wrong and what to do.
type problem struct {
	Title, Msg string
}

// fail renders the problem page with code.
func (s *Server) fail(w http.ResponseWriter, code int, title, msg string) {
	s.render(w, code, "problem.tmpl", "", "", problem{Title: title, Msg: msg})
}
