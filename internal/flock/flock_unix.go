//go:build unix

package flock

import (
	"errors"
	"os"
	"syscall"
)

func try(f *os.File, m Mode) (bool, error) {
	how := syscall.LOCK_EX
	if m == Shared {
		how = syscall.LOCK_SH
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, &os.PathError{Op: "flock", Path: f.Name(), Err: err}
	}
}

func unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
