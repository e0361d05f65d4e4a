package journal

import (
	"os"
	"path/filepath"
	"testing"
)

// The tests seal their journals with a key of their own, never the
// user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "prose-journal-key-")
	if err != nil {
		panic(err)
	}
	os.Setenv(KeyFileEnv, filepath.Join(dir, "journal.key"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
