package temporalserve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"time"

	"github.com/proselang/prose/internal/flock"
)

// lockNode takes node's commit lock in the state directory
// (DIR/.serve/temporal/HASH.lock, named by the id's sha256 so any id
// makes a file name), waiting until ctx ends; the returned func releases
// it. The kernel releases it when its process dies.
func lockNode(ctx context.Context, stateDir, node string) (func(), error) {
	sum := sha256.Sum256([]byte(node))
	p := filepath.Join(stateDir, ".serve", "temporal", hex.EncodeToString(sum[:8])+".lock")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock.Wait(ctx, f, flock.Exclusive, 10*time.Millisecond); err != nil {
		f.Close()
		return nil, err
	}
	return func() { flock.Unlock(f); f.Close() }, nil
}
