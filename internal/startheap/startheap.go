// Package startheap gives a short command room to work before its first
// garbage collection, the way the Go compiler starts: the collector's
// first goal is raised from the runtime's 4 MiB to a few tens of MiB, and
// put back to the default pace (GOGC=100) as soon as one collection has
// run. A `prose run DIR` of a thousand nodes peaks near 15 MiB of heap and
// spent about a tenth of its CPU in six collections on the way there; with
// the room it runs none. A process that grows past the room collects as
// it would have from then on, so memory stays within the room or twice
// what is live, whichever is more.
package startheap

import (
	"runtime"
	"runtime/debug"
)

// firstGoal is the runtime's first heap goal at GOGC=100.
const firstGoal = 4 << 20

// sentinel is collected by the first collection after Room; its
// finalizer puts the pace back. It holds a pointer so that it is not
// placed in a tiny-object block, whose finalizers may wait for the
// block's other objects.
type sentinel struct{ _ *int }

// Room makes the first collection wait until the heap holds about size
// bytes, unless the environment sets GOGC (getenv reads it), in which
// case the setting is left as the user made it. After that first
// collection the collector runs at its default pace.
func Room(size uint64, getenv func(string) string) {
	if getenv("GOGC") != "" || size <= firstGoal {
		return
	}
	debug.SetGCPercent(int(size / firstGoal * 100))
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) { debug.SetGCPercent(100) })
}
