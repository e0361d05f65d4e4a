package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/spec/cadence"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
)

// Reloaded is a graph loaded again from its files, with the drain and
// caller inputs it is served with (the same bindings and options as the
// one it replaces).
type Reloaded struct {
	Graph        *graph.Graph
	Drain        *drain.Prepared
	CallerInputs map[string]map[string]any
}

// stamp is what a file's stat says of it: a change to any part is a
// change of the file (its content is not read).
type stamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

// Stamps are the stamps of the files a graph was loaded from, by path:
// the *.prose.md files under its root (walked as graph.Load walks them,
// so an added or removed file shows), its wiring file, and every other
// spec file its loading read.
type Stamps map[string]stamp

// StampsOf stats the files g was loaded from. A file that cannot be
// stat'ed is absent from the set (its coming back is a change).
func StampsOf(g *graph.Graph) Stamps {
	out := Stamps{}
	add := func(p string) {
		fi, err := os.Stat(p)
		if err != nil {
			return
		}
		out[filepath.Clean(p)] = stamp{size: fi.Size(), mtime: fi.ModTime(), ino: inode(fi)}
	}
	filepath.WalkDir(g.Root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != g.Root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), spec.Suffix) {
			add(p)
		}
		return nil
	})
	add(filepath.Join(g.Root, graph.WiringFile))
	if g.Specs != nil {
		for _, f := range g.Specs.Files() {
			add(f.Path)
		}
	}
	return out
}

// Same says whether t stamps the same files as s, each unchanged.
func (s Stamps) Same(t Stamps) bool {
	if len(s) != len(t) {
		return false
	}
	for p, a := range s {
		if b, ok := t[p]; !ok || a.size != b.size || !a.mtime.Equal(b.mtime) || a.ino != b.ino {
			return false
		}
	}
	return true
}

// reload loads the graph again when a file it was loaded from changed
// since the last look, before a drain. It says what it did in the
// outcome's Reload ("" when nothing changed). A reload that fails keeps
// the graph served before: the failure is reported once, by the drain
// after the change, and not again until a file changes again; nothing
// queued is touched either way. A reload drops what the drains kept
// (reconcile.Kept), so the next drain checks every node again.
func (s *Server) reload(es []Entry) string {
	if s.o.Reload == nil {
		return ""
	}
	now := StampsOf(s.graph())
	if now.Same(s.stamps) {
		return ""
	}
	// The stamps are taken before the files are read: an edit made while
	// they are read is seen by the next drain.
	s.stamps = now
	r, err := s.o.Reload()
	if err == nil && (r == nil || r.Graph == nil || r.Drain == nil || r.Drain.Graph != r.Graph) {
		err = errNotADrain
	}
	var plans map[string]*cadence.Plan
	if err == nil {
		err = s.stillServed(r.Graph, es)
	}
	if err == nil {
		plans, err = plansOf(r.Graph)
	}
	if err != nil {
		return "kept the graph loaded before: " + err.Error()
	}
	// The new graph may have read files the old one did not.
	for p, st := range StampsOf(r.Graph) {
		if _, ok := now[p]; !ok {
			now[p] = st
		}
	}
	s.gmu.Lock()
	s.o.Graph, s.o.Drain, s.o.CallerInputs, s.plans = r.Graph, r.Drain, r.CallerInputs, plans
	s.gmu.Unlock()
	s.kept = reconcile.Kept{}
	return "reloaded"
}

var errNotADrain = errors.New("the reload gave no prepared drain of its graph")

// plansOf is the cadence plan of each node of g that has one.
func plansOf(g *graph.Graph) (map[string]*cadence.Plan, error) {
	plans := map[string]*cadence.Plan{}
	for _, n := range g.Nodes {
		p, err := cadence.Of(n.Spec)
		if err != nil {
			return nil, err
		}
		if !p.Empty() {
			plans[n.ID] = p
		}
	}
	return plans, nil
}

// graph is the graph served now.
func (s *Server) graph() *graph.Graph {
	s.gmu.RLock()
	defer s.gmu.RUnlock()
	return s.o.Graph
}

// stillServed is an error when g lacks a node that a queued trigger
// (es, the drain's) or a held event wakes: serving g would lose it.
func (s *Server) stillServed(g *graph.Graph, es []Entry) error {
	for _, e := range es {
		if g.Node(e.Node) == nil {
			return fmt.Errorf("node %s, woken by a queued trigger, is no longer in the project", e.Node)
		}
	}
	for _, n := range s.o.Graph.Nodes {
		if len(s.q.Held(n.ID)) > 0 && g.Node(n.ID) == nil {
			return fmt.Errorf("node %s, whose events are held for redelivery, is no longer in the project", n.ID)
		}
	}
	return nil
}
