//go:build unix

package journal

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f so that two processes
// never append to the same journal. It fails at once when another holds it.
func lockFile(f *os.File) (func(), error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, fmt.Errorf("journal %s is in use by another prose process (the run is still going, or being resumed): wait for it to end, or stop it first", f.Name())
	}
	if err != nil {
		return nil, fmt.Errorf("journal: locking %s: %w", f.Name(), err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}

// locked reports whether another process holds the journal at path.
func locked(path string) bool {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return false // no journal (opening a FIFO would block): nothing holds it
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
