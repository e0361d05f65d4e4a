package serve

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/spec/cadence"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/std"
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

// stampOf is the stamp of the file at p (false when it cannot be
// stat'ed).
func stampOf(p string) (stamp, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return stamp{}, false
	}
	return stamp{size: fi.Size(), mtime: fi.ModTime(), ino: inode(fi)}, true
}

// regular says p is a regular file itself (not a link to one): the
// walk's test of a node file.
func regular(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// same says a and b stamp the same file, unchanged.
func (a stamp) same(b stamp) bool {
	return a.size == b.size && a.mtime.Equal(b.mtime) && a.ino == b.ino
}

// setStamp records st as p's stamp (ok), or p as absent.
func setStamp(s Stamps, p string, st stamp, ok bool) {
	if ok {
		s[p] = st
	} else {
		delete(s, p)
	}
}

// StampsOf stats the files g was loaded from. A file that cannot be
// stat'ed is absent from the set (its coming back is a change).
func StampsOf(g *graph.Graph) Stamps {
	out := Stamps{}
	add := func(p string) {
		if st, ok := stampOf(p); ok {
			out[filepath.Clean(p)] = st
		}
	}
	filepath.WalkDir(g.Root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != g.Root && skipDir(d.Name()) {
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

// skipDir says graph.Load does not enter a directory so named.
func skipDir(name string) bool { return strings.HasPrefix(name, ".") || name == "node_modules" }

// Same says whether t stamps the same files as s, each unchanged.
func (s Stamps) Same(t Stamps) bool {
	if len(s) != len(t) {
		return false
	}
	for p, a := range s {
		if b, ok := t[p]; !ok || !a.same(b) {
			return false
		}
	}
	return true
}

// The change check.
//
// Before each drain a server with Options.Reload asks whether a file
// its graph was loaded from was added, removed or changed. A walk of the
// project (StampsOf: every directory read, every spec file stat'ed)
// costs what the project holds, on every drain; on Linux the server
// watches instead (watch_linux.go), so that a drain pays for what
// changed.
//
// What is watched (one inotify instance per server): the project's root
// and every directory graph.Load's walk enters (the same walk, skipping
// dot-directories and node_modules), each watched before its entries are
// read, so that a file made in it is either seen by the walk or reported
// by the watch; the wiring file, by name in the root; and, by name in
// their directories, the spec files the graph's spec graph read from
// outside those directories (a sibling a call reached, in a
// dot-directory or elsewhere), followed after every drain and reload as
// they are read. A file followed only after it was read is compared with
// what was read, so an edit made between the two is not lost. A file
// whose directory does not exist (a library path the program embeds) is
// stat'ed on each look instead.
//
// What matters: an event on a *.prose.md entry of a walked directory, on
// the wiring file or on a followed file; a directory made in (or renamed
// into) a walked directory, which is watched and walked at once (files
// made in it before its watch are found by that walk), and is a change
// when it holds a spec file; a directory removed (or renamed away),
// whose watches go and which is a change when the graph had a file under
// it. The stamps are brought up to date with each event. A file written,
// made or renamed into place is a change even when its stamp shows none
// (a write within the clock's grain, of the same size): the watch saw
// the write. Anything else (a file of another kind, a directory the walk
// skips, the state directory under .prose) costs its event and is
// skipped.
//
// Why the next drain sees a change: the kernel queues an event while the
// system call that made the change runs (a write, a close, a rename, a
// mkdir), before the call returns; a look reads the queue to its end
// without blocking. So a change whose call returned before a trigger was
// sent is read by the look of the drain that answers it. A change made
// while a graph is being loaded again queues its event after the look
// and is seen by the next drain.
//
// When the watches cannot tell: the queue overflowed (IN_Q_OVERFLOW), a
// read failed, a watch could not be added (the limit of watches, a
// directory that cannot be read), or the root or a directory outside
// the walk was removed or renamed. The look then says so, and the drain
// walks the project (StampsOf's walk, comparing every stamp, as without
// a watcher) and builds a new watcher from that walk, closing the old
// one. A watcher that could not add a watch falls back on every drain
// until one builds it whole. Other systems walk on every drain.
//
// The watcher is closed with the server (Close).

// reload loads the graph again when a file it was loaded from changed
// since the last look, before a drain. It says what it did in the
// outcome's Reload ("" when nothing changed). A reload that fails keeps
// the graph served before: the failure is the Reload of the drain after
// the change, and the Stale of that drain and of every later one until a
// reload succeeds (and what Stale answers, for /status and /health), so
// no drain serves the old graph in silence; nothing queued is touched
// either way. A reload drops what the drains kept
// (reconcile.Kept), so the next drain checks every node again.
func (s *Server) reload(es []Entry) string {
	if s.o.Reload == nil {
		return ""
	}
	if !s.changed() {
		return ""
	}
	// The stamps are taken, and the watches in place, before the files
	// are read: an edit made while they are read is seen by the next
	// drain.
	r, err := s.o.Reload(s.reuse())
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
		s.gmu.Lock()
		s.stale = "a change to the project's files failed to load, so the graph loaded before is served: " + err.Error()
		s.gmu.Unlock()
		return "kept the graph loaded before: " + err.Error()
	}
	s.gmu.Lock()
	s.o.Graph, s.o.Drain, s.o.CallerInputs, s.plans = r.Graph, r.Drain, r.CallerInputs, plans
	s.stale = ""
	s.gmu.Unlock()
	if s.watch != nil {
		// This graph was read with every file watched: what no event
		// names from here on is what it read.
		s.watch.touched = map[string]bool{}
		s.reusable = true
	}
	// The new graph may have read files the old one did not.
	s.followed = 0
	s.follow()
	s.kept = reconcile.Kept{}
	return "reloaded"
}

// changed brings the stamps up to date and says whether a file the
// served graph was loaded from was added, removed or changed since the
// last look. It asks the watcher; where there is none, or it can no
// longer tell, it walks the project (StampsOf) and builds the watches
// again from that walk.
func (s *Server) changed() bool {
	moved := s.movedBeforeWatch
	s.movedBeforeWatch = false
	if s.watch != nil {
		c, err := s.watch.look(s.stamps)
		if err == nil {
			return c || moved
		}
		moved = moved || c
		s.watch.close()
		s.watch = nil
	}
	s.walks++
	w, now := newWatcher(s.graph())
	s.watch = w
	// What changed between the served graph's load and these watches
	// is not known file by file: its next reload reads every file.
	s.reusable = false
	if g := s.graph(); g.Specs != nil {
		s.followed = g.Specs.Loads()
	}
	if moved || !now.Same(s.stamps) {
		s.stamps = now
		return true
	}
	return false
}

// follow watches the spec files the served graph read since the last
// look that the watches do not cover already (read from outside the
// project's walked directories: a sibling a call reached, a library).
// A file that differs from what was read (changed before its watch was
// put) is a change the next look reports. It costs a count when the
// graph read nothing new.
func (s *Server) follow() {
	g := s.graph()
	if s.watch == nil || g.Specs == nil {
		return
	}
	n := g.Specs.Loads()
	if n == s.followed {
		return
	}
	for _, f := range g.Specs.Files() {
		if s.watch.followed(f.Path) || s.watch.inRegion(f.Path) {
			continue
		}
		s.watch.follow(f.Path, s.stamps)
		if !sameSource(f) {
			s.watch.pending = true
			s.watch.touched[filepath.Clean(f.Path)] = true
		}
	}
	s.followed = n
}

// reuse is the spec graph a reload reads the project through: one that
// takes from the served graph's the parse of each file no event named
// since that graph was read, so only the files that changed are read
// and parsed again. It is nil (every file read) where the served graph
// was not read under the watches now in place: the graph loaded before
// New, or before the watches were built again after a loss.
func (s *Server) reuse() *specgraph.Graph {
	g := s.graph()
	if !s.reusable || s.watch == nil || g.Specs == nil {
		return nil
	}
	w := s.watch
	read := map[string]*specgraph.File{}
	for _, f := range g.Specs.Files() {
		if f.Err == nil && f.Spec != nil && w.unchanged(f.Path) {
			read[filepath.Clean(f.Path)] = f
		}
	}
	return specgraph.New(specgraph.Options{Reuse: func(p string) (*spec.Spec, diag.List, bool) {
		f := read[filepath.Clean(p)]
		if f == nil || !w.unchanged(p) {
			return nil, nil, false
		}
		return f.Spec, f.Diags, true
	}})
}

// movedSinceLoad says whether the project changed between g's load and
// the stamps now, taken with the watches (New): a spec file g read that
// holds something else or is gone, or a spec file now that g did not
// read. Neither the watches nor the stamps, both taken after the load,
// can see such an edit; it is read once, when serving starts.
func movedSinceLoad(g *graph.Graph, now Stamps) bool {
	if g.Specs == nil {
		return false
	}
	read := map[string]bool{}
	for _, f := range g.Specs.Files() {
		if !sameSource(f) {
			return true
		}
		read[filepath.Clean(f.Path)] = true
	}
	for p := range now {
		if strings.HasSuffix(p, spec.Suffix) && !read[p] {
			return true
		}
	}
	return false
}

// sameSource says the file f was read from holds what was read.
func sameSource(f *specgraph.File) bool {
	src, err := filekind.ReadFile(f.Path) // a file made a named pipe since is not waited on
	if err == nil && len(src) > spec.MaxSize {
		// read as too large, nothing of it kept
		return f.Spec != nil && f.Spec.File != nil && f.Spec.File.Size() == 0
	}
	if err != nil {
		// Not there: the same when it was not read from there either
		// (a library spec the program embeds).
		return f.Spec == nil || f.Spec.File == nil || std.IsStd(f.Path)
	}
	return f.Spec != nil && f.Spec.File != nil && bytes.Equal(src, f.Spec.File.Source())
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
		if !e.Edit && g.Node(e.Node) == nil {
			return fmt.Errorf("node %s, woken by a queued trigger, is no longer in the project", e.Node)
		}
	}
	held := s.q.HeldAll()
	ids := make([]string, 0, len(held))
	for id := range held {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if s.o.Graph.Node(id) != nil && g.Node(id) == nil {
			return fmt.Errorf("node %s, whose events are held for redelivery, is no longer in the project", id)
		}
	}
	return nil
}
