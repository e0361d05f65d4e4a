package wholefile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Read gives what os.ReadFile and os.Stat give for a regular file, at most
// max bytes of it; the directory comes back open, unread; a missing file
// is os.Open's error. readOS, the fallback elsewhere, agrees.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "a.prose.md")
	big := filepath.Join(dir, "big.md")
	empty := filepath.Join(dir, "empty.md")
	for name, text := range map[string]string{small: "---\nname: a\n---\n", big: strings.Repeat("x", 3000), empty: ""} {
		if err := os.WriteFile(name, []byte(text), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	for _, impl := range []struct {
		name string
		read func(string, int64) ([]byte, fs.FileInfo, *os.File, error)
	}{{"Read", Read}, {"readOS", readOS}} {
		for _, c := range []struct {
			name string
			max  int64
			want int
		}{{small, 1 << 20, -1}, {big, 1 << 20, -1}, {big, 1001, 1001}, {empty, 1 << 20, -1}} {
			want, _ := os.ReadFile(c.name)
			if c.want >= 0 {
				want = want[:c.want]
			}
			data, info, other, err := impl.read(c.name, c.max)
			if err != nil || other != nil {
				t.Fatalf("%s %s: %v, %v", impl.name, c.name, other, err)
			}
			if !bytes.Equal(data, want) {
				t.Errorf("%s %s: %d bytes, want %d", impl.name, c.name, len(data), len(want))
			}
			st, _ := os.Stat(c.name)
			if info.Name() != st.Name() || info.Size() != st.Size() || info.Mode() != st.Mode() || !info.ModTime().Equal(st.ModTime()) || info.IsDir() {
				t.Errorf("%s %s: info %v %d %v %v, os.Stat %v %d %v %v", impl.name, c.name, info.Name(), info.Size(), info.Mode(), info.ModTime(), st.Name(), st.Size(), st.Mode(), st.ModTime())
			}
		}
		data, info, other, err := impl.read(dir, 1<<20)
		if err != nil || other == nil || data != nil || info != nil {
			t.Fatalf("%s of a directory: %v %v %v %v", impl.name, data, info, other, err)
		}
		if st, err := other.Stat(); err != nil || !st.IsDir() {
			t.Errorf("%s: the directory came back as %v (%v)", impl.name, st, err)
		}
		other.Close()
		missing := filepath.Join(dir, "nope.md")
		_, _, _, err = impl.read(missing, 1<<20)
		_, want := os.Open(missing)
		var pe *fs.PathError
		if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || err.Error() != want.Error() {
			t.Errorf("%s of a missing file: %v, want %v", impl.name, err, want)
		}
	}
}

// readAll stops at a short read at the size the stat gave, without the
// zero-length read that would confirm the end; a file that grew past its
// stat, or one that reports no size (as /proc's do), is read to its end.
func TestReadAllCalls(t *testing.T) {
	for _, c := range []struct {
		name       string
		size, real int64
		calls      int
	}{
		{"as stat'ed", 1000, 1000, 1},
		{"grown by a little", 1000, 1200, 2},
		{"grown past the room", 1000, 5000, -1},
		{"no size", 0, 700, 2},
		{"shrunk", 1000, 400, 2},
	} {
		src := bytes.NewReader(bytes.Repeat([]byte("y"), int(c.real)))
		calls := 0
		data, err := readAll(func(b []byte) (int, error) {
			calls++
			n, err := src.Read(b)
			if err != nil {
				return n, err
			}
			return n, nil
		}, c.size, 1<<20)
		if err != nil || int64(len(data)) != c.real {
			t.Errorf("%s: %d bytes, %v; want %d", c.name, len(data), err, c.real)
		}
		if c.calls < 0 && calls < 2 {
			t.Errorf("%s: %d reads, want the end confirmed", c.name, calls)
		} else if c.calls > 0 && calls != c.calls {
			t.Errorf("%s: %d reads, want %d", c.name, calls, c.calls)
		}
	}
}
