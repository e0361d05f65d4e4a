package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The writer lock (decided): every process that writes a state
// directory (prose run DIR, prose serve, prose trigger without --server,
// a prose worker's step of a drain on Temporal) takes DIR/.serve/lock
// with flock(2) before it reads anything of the directory, and holds it
// until it is done. A local writer takes it exclusively; a worker's step
// takes it shared (the workers of one workflow commit different nodes,
// each under a node lock of its own), so a local drain excludes every
// worker and the workers exclude no one but a local drain. A second
// writer is refused at once with the holder named, or waits (--wait)
// until the holder is gone or its context ends. The kernel drops the
// lock of a process that dies, so a kill -9 leaves no stale lock.
//
// The holder writes who it is into the lock file (pid, command, since);
// the file's content is a message for the refused, never the lock.

// LockOptions say who takes a state directory's lock, and how.
type LockOptions struct {
	// Command is what takes it, as a refusal names it ("prose run").
	Command string
	// Wait waits for the holder to let go (until the context ends)
	// instead of refusing.
	Wait bool
	// Shared takes it shared with other shared holders (a worker's step
	// of a drain on Temporal); exclusive of every exclusive holder.
	Shared bool
}

// Holder is who holds a state directory's lock, as its lock file says.
type Holder struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

// HeldError is Lock's refusal: another process holds the lock.
type HeldError struct {
	Dir, File string
	// Holder is who holds it; zero when the holder has not written its
	// name yet (or wrote none).
	Holder Holder
}

func (e *HeldError) Error() string {
	who := "another process"
	if h := e.Holder; h.PID != 0 {
		who = fmt.Sprintf("pid %d (%s, since %s)", h.PID, h.Command, h.Since.UTC().Format(time.RFC3339))
	}
	if e.Holder.Command == "prose serve" {
		// A server holds the lock for as long as it runs: --wait would
		// wait for it to be stopped.
		return fmt.Sprintf("%s is being written by %s, which holds %s and keeps it while it runs: send triggers to that server (prose trigger ID --server URL), or stop it first", e.Dir, who, e.File)
	}
	return fmt.Sprintf("%s is being written by %s, which holds %s: wait for it to end, or give --wait to wait for it", e.Dir, who, e.File)
}

// LockPath is the lock file of a state directory.
func LockPath(dir string) string { return filepath.Join(dir, ".serve", "lock") }

func readHolder(p string) Holder {
	var h Holder
	if b, err := readFile(p); err == nil {
		json.Unmarshal(b, &h)
	}
	return h
}

func holderRecord(command string, now time.Time) []byte {
	b, _ := json.Marshal(Holder{PID: os.Getpid(), Command: command, Since: now.UTC()})
	return append(b, '\n')
}
