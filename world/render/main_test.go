package render_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/journal"
)

// The render journals of the tests are sealed with a key of their own,
// never the user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "prose-render-key-")
	if err != nil {
		panic(err)
	}
	os.Setenv(journal.KeyFileEnv, filepath.Join(dir, "journal.key"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
