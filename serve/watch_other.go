//go:build !linux

package serve

import "github.com/proselang/prose/world/graph"

// Where the system offers no watcher the serve package uses, every look
// walks the project (StampsOf).

// watcher is none: newWatcher gives nil.
type watcher struct {
	pending bool
	touched map[string]bool
}

func newWatcher(g *graph.Graph) (*watcher, Stamps) { return nil, StampsOf(g) }

func (w *watcher) close() {}

func (w *watcher) ready() (<-chan struct{}, func()) { return nil, func() {} }

func (w *watcher) look(Stamps) (bool, error) { return false, errNoWatcher }

func (w *watcher) inRegion(string) bool { return false }

func (w *watcher) follow(string, Stamps) {}

func (w *watcher) followed(string) bool { return false }

func (w *watcher) unchanged(string) bool { return false }

var errNoWatcher = errNoWatch{}

type errNoWatch struct{}

func (errNoWatch) Error() string { return "no watcher on this system" }
