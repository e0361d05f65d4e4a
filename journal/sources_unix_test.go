//go:build unix

package journal

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/fstest"
)

// A named pipe in a kept source's place is no kept source: SourceFS
// refuses it at once and reads the spec as it is now. Before, reading
// it waited for a writer, and prose replay hung (Ctrl-C and SIGTERM did
// not stop it).
func TestKeptSourceThatIsAPipeIsNotWaitedOn(t *testing.T) {
	dir := t.TempDir()
	src := []byte("# a spec\n")
	sum := Digest(src)
	if err := os.MkdirAll(filepath.Join(dir, SourcesDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, SourcesDir, sum+".prose.md"), 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	l := &Log{Records: []*Record{{Type: TypeSource, Path: "a.prose.md", SpecDigest: sum}}}
	now := fstest.MapFS{"a.prose.md": {Data: []byte("# the spec now\n")}}
	fsys := SourceFS(dir, l, now)
	if Kept(fsys, "a.prose.md") {
		t.Errorf("a named pipe was taken for the kept source")
	}
	b, err := fs.ReadFile(fsys, "a.prose.md")
	if err != nil || string(b) != "# the spec now\n" {
		t.Errorf("read %q %v, want the spec as it is now", b, err)
	}
}

// A named pipe where a large value is to be kept (a damaged run
// directory) is replaced by the value, not waited on: before, a resume
// that kept that value hung reading the pipe.
func TestBlobInPlaceOfAPipeIsWritten(t *testing.T) {
	dir := t.TempDir()
	s := newBlobStore(dir)
	lit := []byte(`"a long value"`)
	sum := Digest(lit)
	if err := os.MkdirAll(filepath.Join(dir, BlobDir), 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, BlobDir, sum)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	got, err := s.put(lit)
	if err != nil || got != sum {
		t.Fatalf("put: %s %v, want %s", got, err, sum)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != string(lit) {
		t.Errorf("kept %q %v, want the value", b, err)
	}
}
