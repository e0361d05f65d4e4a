package journal

import (
	"fmt"
	"os"

	"github.com/proselang/prose/internal/flock"
)

// lockFile takes an exclusive advisory lock on f so that two processes
// never append to the same journal. It fails at once when another holds it.
func lockFile(f *os.File) (func(), error) {
	ok, err := flock.Try(f, flock.Exclusive)
	if err != nil {
		return nil, fmt.Errorf("journal: locking %s: %w", f.Name(), err)
	}
	if !ok {
		return nil, fmt.Errorf("journal %s is in use by another prose process (the run is still going, or being resumed): wait for it to end, or stop it first", f.Name())
	}
	return func() { flock.Unlock(f) }, nil
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
	ok, err := flock.Try(f, flock.Shared)
	if ok {
		flock.Unlock(f)
	}
	return !ok && err == nil
}
