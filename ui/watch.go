package ui

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/serve"
)

// Decided: the watcher polls modification times and sizes (no file
// notification API is a dependency, and polling works on every file
// system a state directory may be copied to). A run's journal is only
// ever appended to, so its size moves with every record; a file of the
// state directory is replaced whole, so its time or size moves.

// stamp is what the watcher compares of a file.
type stamp struct {
	mod  time.Time
	size int64
}

// snapshot is the stamps of the files watched, by path.
type snapshot map[string]stamp

// watch polls the run and state directories every Options.Poll until
// stop is closed, publishing what changed (see the package doc).
func (s *Server) watch(stop <-chan struct{}) {
	runs, world := s.scanRuns(), s.scanState()
	t := time.NewTicker(s.o.Poll)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		r2, w2 := s.scanRuns(), s.scanState()
		if ids := changed(runs, r2); len(ids) > 0 {
			s.publish("runs", map[string]any{"ids": ids})
		}
		if files := changed(world, w2); len(files) > 0 {
			queue := false
			var rest []string
			for _, f := range files {
				if f == queueRel {
					queue = true
					continue
				}
				rest = append(rest, f)
			}
			if queue {
				s.publish("serve", map[string]any{})
			}
			if len(rest) > 0 {
				s.publish("world", map[string]any{"files": rest})
			}
		}
		runs, world = r2, w2
	}
}

// queueRel is serve's queue file relative to the state directory.
var queueRel = func() string {
	rel, _ := filepath.Rel("/s", serve.QueuePath("/s"))
	return filepath.ToSlash(rel)
}()

// scanRuns stamps the journal of every run, by run id.
func (s *Server) scanRuns() snapshot {
	out := snapshot{}
	ents, err := os.ReadDir(s.o.RunDir)
	if err != nil {
		return out
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if st, err := os.Stat(filepath.Join(s.o.RunDir, e.Name(), journal.FileName)); err == nil {
			out[e.Name()] = stamp{st.ModTime(), st.Size()}
		}
	}
	return out
}

// scanState stamps every file of the state directory, by its path
// relative to it (with /), lock files left out.
func (s *Server) scanState() snapshot {
	out := snapshot{}
	if s.o.StateDir == "" {
		return out
	}
	filepath.WalkDir(s.o.StateDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(s.o.StateDir, p)
		out[filepath.ToSlash(rel)] = stamp{info.ModTime(), info.Size()}
		return nil
	})
	return out
}

// changed lists the keys of b that are new or differ from a, and those
// of a that are gone, sorted.
func changed(a, b snapshot) []string {
	var out []string
	for k, v := range b {
		if old, ok := a[k]; !ok || old != v {
			out = append(out, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
