//go:build unix

package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/internal/flock"
)

// lockPoll is how often a waiting Lock tries again.
const lockPoll = 20 * time.Millisecond

// holderOf reads the holder's record of lock file p (open as f). A
// holder that has just taken the lock writes it a moment later, and one
// that is letting go has erased it: an empty record is read again, a few
// times, each after trying the lock again (free: it is taken, how).
func holderOf(ctx context.Context, f *os.File, p string, how flock.Mode) (h Holder, free bool) {
	for range 50 {
		if h = readHolder(p); h.PID != 0 || ctx.Err() != nil {
			return h, false
		}
		time.Sleep(10 * time.Millisecond)
		if ok, _ := flock.Try(f, how); ok {
			return Holder{}, true
		}
	}
	return h, false
}

// Lock takes dir's writer lock (creating dir, mode 0700, when absent)
// and returns the func that releases it. Held by another process, it is
// a *HeldError, or with o.Wait a wait until the holder lets go or ctx
// ends (ctx's error).
func Lock(ctx context.Context, dir string, o LockOptions) (func(), error) {
	p := LockPath(dir)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, notLock(p, err)
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, notLock(p, err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = &filekind.NotRegularError{Path: p, Mode: st.Mode()}
		}
		return nil, notLock(p, err)
	}
	how := flock.Exclusive
	if o.Shared {
		how = flock.Shared
	}
	if o.Wait {
		err = flock.Wait(ctx, f, how, lockPoll)
	} else if ok, terr := flock.Try(f, how); terr != nil {
		err = terr
	} else if !ok {
		if h, free := holderOf(ctx, f, p, how); !free {
			err = &HeldError{Dir: dir, File: p, Holder: h}
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	rec := holderRecord(o.Command, time.Now())
	if o.Shared {
		// Shared holders leave the record of the first: truncating it
		// would erase a holder that is still there.
		if st, err := f.Stat(); err == nil && st.Size() == 0 {
			f.WriteAt(rec, 0)
		}
	} else {
		f.Truncate(0)
		f.WriteAt(rec, 0)
	}
	return func() {
		if !o.Shared {
			f.Truncate(0)
		}
		flock.Unlock(f)
		f.Close()
	}, nil
}

// notLock is the error of a lock file that cannot be one (a directory,
// a named pipe or a link in its place, or a .serve that is not a
// directory), with the fix: the file holds only the name of its
// holder, so what is in its way is removed.
func notLock(lock string, err error) error {
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EROFS) {
		return err
	}
	return fmt.Errorf("%w (the writers' lock, %s, must be a regular file in a directory: remove what is in its place and run again)", err, lock)
}
