package filekind

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadFile reads a small file (a store's head record) whole.
func BenchmarkReadFile(b *testing.B) {
	p := filepath.Join(b.TempDir(), "head.json")
	if err := os.WriteFile(p, make([]byte, 400), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("ReadFile", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := ReadFile(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("OpenReadAll", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			f, err := Open(p)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadAll(f); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
}
