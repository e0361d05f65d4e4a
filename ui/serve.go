package ui

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/spec/cadence"
	"github.com/proselang/prose/world/store"
)

// serveRoutes registers the serve page and its trigger form.
func (s *Server) serveRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /ui/serve", s.servePage)
	mux.HandleFunc("POST /ui/serve/trigger", s.trigger)
}

// serveData is the serve page's data.
type serveData struct {
	// Served: the page is prose serve's, which takes triggers; else it
	// reads the queue file of the state directory.
	Served     bool
	StateDir   string
	Queue      *serve.QueueView
	Depth      int
	Connectors []connectorView
	Wakes      []wakeView
	Nodes      []nodeChoice
	// Node and Event are the form's last values (kept when refused).
	Node, Event     string
	Notice, Problem string
	CSRF            string
}

type connectorView struct {
	Gateway string
	serve.ConnectorState
}

// wakeView is a node's next Continuity wake.
type wakeView struct {
	Node string
	Due  time.Time
	// FromStart: the node never fired, so its first wake counts from
	// when serve starts (unknown to a page that is not serve's).
	FromStart bool
	// Now: it is due (serve wakes it at once, or did); Never: it never
	// fired.
	Now, Never bool
}

type nodeChoice struct {
	ID, Kind string
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.showServe(w, http.StatusOK, serveData{Notice: q.Get("notice")})
}

// showServe renders the serve page with d's form values and messages.
func (s *Server) showServe(w http.ResponseWriter, code int, d serveData) {
	d.Served, d.StateDir, d.CSRF = s.o.Backend != nil, s.o.StateDir, s.csrf
	if s.o.StateDir != "" {
		v, err := serve.ReadQueue(s.o.StateDir)
		if err != nil {
			d.Problem = strings.TrimSpace(d.Problem + " " + err.Error())
		}
		d.Queue = v
		if v != nil {
			d.Depth = v.Depth()
		}
	}
	if b := s.o.Backend; b != nil {
		d.Depth = b.Depth()
		for gw, st := range b.Connectors() {
			d.Connectors = append(d.Connectors, connectorView{gw, st})
		}
		sort.Slice(d.Connectors, func(i, j int) bool { return d.Connectors[i].Gateway < d.Connectors[j].Gateway })
	}
	if g := s.o.Graph; g != nil {
		for _, n := range g.Nodes {
			d.Nodes = append(d.Nodes, nodeChoice{n.ID, n.Kind})
		}
		d.Wakes = s.wakes(d.Queue)
	}
	s.render(w, code, "serve.tmpl", "serve", "serve", d)
}

// wakes are the nodes' next Continuity wakes, soonest first, as serve
// computes them (serve.Due) from the queue's last firings.
func (s *Server) wakes(q *serve.QueueView) []wakeView {
	st := s.store()
	var out []wakeView
	for _, n := range s.o.Graph.Nodes {
		p, err := cadence.Of(n.Spec)
		if err != nil || p.Empty() {
			continue
		}
		var fired, self time.Time
		if q != nil {
			fired, self = q.Fired[n.ID], q.Self[n.ID]
		}
		v := wakeView{Node: n.ID, FromStart: fired.IsZero() && self.IsZero()}
		if v.FromStart && s.o.Started.IsZero() {
			out = append(out, v)
			continue
		}
		due, ok := serve.Due(st, n.ID, p, fired, self, s.o.Started)
		if !ok {
			continue
		}
		v.Due, v.FromStart, v.Never = due, false, fired.IsZero() && self.IsZero()
		v.Now = !due.After(s.o.Now())
		out = append(out, v)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Due.IsZero() != out[j].Due.IsZero() {
			return !out[i].Due.IsZero()
		}
		return out[i].Due.Before(out[j].Due)
	})
	return out
}

// store is the world's store: serve's, or the state directory's when it
// holds one (never created by the page); nil when there is none.
func (s *Server) store() *store.Store {
	if s.o.Backend != nil {
		return s.o.Backend.Store()
	}
	if s.o.StateDir == "" {
		return nil
	}
	if _, err := os.Stat(filepath.Join(s.o.StateDir, "FORMAT")); err != nil {
		return nil
	}
	st, err := store.Open(s.o.StateDir)
	if err != nil {
		return nil
	}
	return st
}

// trigger queues the form's event for its node through serve, as POST
// /trigger/ID does (an empty event wakes the node by hand).
func (s *Server) trigger(w http.ResponseWriter, r *http.Request) {
	d := serveData{Node: r.PostForm.Get("node"), Event: r.PostForm.Get("event")}
	if s.o.Backend == nil {
		d.Problem = "this page is not prose serve's: nothing takes the trigger here (start prose serve PATH, whose page at /ui/serve takes it, or run prose trigger ID --data JSON)"
		s.showServe(w, http.StatusConflict, d)
		return
	}
	var event []byte
	if strings.TrimSpace(d.Event) != "" {
		event = []byte(d.Event)
	}
	drain, dup, err := s.o.Backend.Trigger(d.Node, event)
	if err != nil {
		code := http.StatusInternalServerError
		switch {
		case errors.Is(err, serve.ErrNoNode):
			code = http.StatusNotFound
		case errors.Is(err, serve.ErrNotGateway), errors.Is(err, serve.ErrBadEvent):
			code = http.StatusBadRequest
		}
		d.Problem = "trigger " + d.Node + ": " + err.Error()
		s.showServe(w, code, d)
		return
	}
	s.publish("serve", map[string]any{"drain": drain})
	msg := fmt.Sprintf("queued for drain %d", drain)
	if dup {
		msg += " (a duplicate: its gateway was given this event before, and skips it)"
	}
	http.Redirect(w, r, "/ui/serve?notice="+url.QueryEscape(d.Node+": "+msg)+"&drain="+strconv.Itoa(drain), http.StatusSeeOther)
}
