package keyfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestLoadCreatesOneKeyForAll(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d", "k.key")
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := Load(path, 32, 32)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	for _, k := range keys {
		if len(k) != 32 || !bytes.Equal(k, keys[0]) {
			t.Fatalf("keys differ or have the wrong size: %x vs %x", k, keys[0])
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", st.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestLoadRefusesMalformedKeys(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"nothex": "zz\n", "short": "abcd\n", "long": string(bytes.Repeat([]byte("ab"), 40))} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path, 16, 32); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		}
	}
}

func TestPathPrefersTheEnvironment(t *testing.T) {
	t.Setenv("PROSE_TEST_KEY", "/x/y")
	if p, err := Path("PROSE_TEST_KEY", "k"); err != nil || p != "/x/y" {
		t.Fatalf("Path = %q, %v", p, err)
	}
	t.Setenv("PROSE_TEST_KEY", "")
	p, err := Path("PROSE_TEST_KEY", "k")
	if err == nil && filepath.Base(p) != "k" || err == nil && filepath.Base(filepath.Dir(p)) != "prose" {
		t.Fatalf("Path = %q", p)
	}
}
