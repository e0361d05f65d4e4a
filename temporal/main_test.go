package temporal

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMain(m *testing.M) {
	// The tests' payloads are encrypted with a key of their own, never
	// the user's (the workers they start inherit it).
	if os.Getenv(KeyFileEnv) == "" {
		if dir, err := os.MkdirTemp("", "prose-temporal-key-"); err == nil {
			os.Setenv(KeyFileEnv, filepath.Join(dir, "temporal.key"))
		}
	}
	os.Exit(m.Run())
}
