// Package flock takes advisory locks on open files with flock(2): the one
// lock helper of prose, behind a journal's lock (one process appends to a
// run), a state directory's writer lock and a Temporal worker's node
// lock. The kernel drops a lock when its process dies, so a kill -9
// leaves nothing stale.
//
// Where flock(2) does not exist, every lock is taken at once (one process
// at a time is then the user's to ensure).
//
// Entry points: Try, Wait, Unlock.
package flock

import (
	"context"
	"os"
	"time"
)

// Mode is how a lock is held.
type Mode int

const (
	// Exclusive excludes every other holder.
	Exclusive Mode = iota
	// Shared admits other shared holders and excludes an exclusive one.
	Shared
)

// Try takes the lock on f in mode m without waiting: false (and no error)
// when another holder has it.
func Try(f *os.File, m Mode) (bool, error) { return try(f, m) }

// Unlock lets go of the lock on f (closing f does too).
func Unlock(f *os.File) { unlock(f) }

// Wait takes the lock on f in mode m, trying again every poll until it is
// free or ctx ends (ctx's error).
func Wait(ctx context.Context, f *os.File, m Mode, poll time.Duration) error {
	for {
		ok, err := Try(f, m)
		if ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}
