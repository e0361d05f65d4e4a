//go:build unix

package keyfile

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/proselang/prose/internal/filekind"
)

// A named pipe or a device in the key's place is refused at once, naming
// it: before, the open of a pipe waited for a writer (and prose ignored
// Ctrl-C and SIGTERM meanwhile), and a device such as /dev/zero was read
// without end.
func TestLoadRefusesWhatIsNoFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "journal.key")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for _, p := range []string{fifo, "/dev/zero"} {
		_, err := Load(p, 16, 64)
		var nr *filekind.NotRegularError
		if !errors.As(err, &nr) || nr.Path != p {
			t.Errorf("Load(%s): %v, want refused as no regular file", p, err)
		}
	}
}
