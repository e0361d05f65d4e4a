//go:build unix

package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Lock takes the state directory's serve lock (DIR/.serve/lock), so two
// servers never drain one graph at once; the returned func releases it.
func Lock(stateDir string) (func(), error) {
	p := filepath.Join(stateDir, ".serve", "lock")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s is served or drained by another process (%s is locked)", stateDir, p)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
