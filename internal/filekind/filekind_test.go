package filekind

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestDescribe(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		fs.ModeDir:                        "a directory",
		fs.ModeNamedPipe:                  "a named pipe",
		fs.ModeSocket:                     "a socket",
		fs.ModeDevice | fs.ModeCharDevice: "a device",
		fs.ModeSymlink:                    "a symbolic link that cannot be followed",
		fs.ModeIrregular:                  "a special file",
	} {
		if got := Describe(m); got != want {
			t.Errorf("Describe(%v) = %q, want %q", m, got, want)
		}
	}
}

// A named pipe is refused at once, not waited on; regular files and
// directories open.
func TestOpenRefusesAPipeWithoutWaiting(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.prose.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	_, err := Open(fifo)
	var nr *NotRegularError
	if !errors.As(err, &nr) || nr.Mode&fs.ModeNamedPipe == 0 || err.Error() != fifo+": a named pipe, not a regular file" {
		t.Errorf("Open(fifo) = %v", err)
	}
	if _, err := ReadFile(fifo); !errors.As(err, &nr) {
		t.Errorf("ReadFile(fifo) = %v", err)
	}
	reg := filepath.Join(dir, "a.prose.md")
	if err := os.WriteFile(reg, []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(reg); err != nil || string(b) != "hi" {
		t.Errorf("ReadFile(regular) = %q, %v", b, err)
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(dir): %v", err)
	}
	f.Close()
	_, osErr := os.ReadFile(dir)
	if _, err := ReadFile(dir); err == nil || osErr == nil || err.Error() != osErr.Error() {
		t.Errorf("ReadFile(dir) = %v, want os.ReadFile's %v", err, osErr)
	}
	big := filepath.Join(dir, "big")
	want := make([]byte, 100_000)
	for i := range want {
		want[i] = byte(i)
	}
	if err := os.WriteFile(big, want, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(big); err != nil || string(b) != string(want) {
		t.Errorf("ReadFile(100 kB) = %d bytes, %v", len(b), err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want not exist", err)
	}
}

// Listed takes regular files and links to them, never a named pipe or
// a link to one.
func TestListed(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"pipe", "to-pipe"}, {"file", "to-file"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]bool{"pipe": false, "to-pipe": false, "file": true, "to-file": true}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if got := Listed(nil, p, e); got != want[e.Name()] {
			t.Errorf("Listed(%s) = %v", e.Name(), got)
		}
		if got := Listed(os.DirFS(dir), e.Name(), e); got != want[e.Name()] {
			t.Errorf("Listed(DirFS, %s) = %v", e.Name(), got)
		}
	}
}
