package lint_test

import (
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/proselang/prose/lint"
)

// heapAtLast is a file system that, when its last file is opened,
// collects the garbage and records the live heap: what lint holds of the
// files it checked before.
type heapAtLast struct {
	fstest.MapFS
	last string
	heap uint64
}

func (h *heapAtLast) Open(name string) (fs.File, error) {
	if name == h.last {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		h.heap = m.HeapAlloc
	}
	return h.MapFS.Open(name)
}

// Lint lets each file go once it is checked: with 150 files of 128 KiB
// (19 MiB of sources), the heap when the last one is read holds about
// one file's worth, not every file read so far.
func TestLintReleasesCheckedFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("lints 19 MiB of specs")
	}
	const files, size = 150, 128 << 10
	para := strings.Repeat("The worker reads the brief and writes the draft. ", size/50)
	fsys := &heapAtLast{MapFS: fstest.MapFS{}}
	for i := range files {
		name := fmt.Sprintf("f%03d.prose.md", i)
		text := specText(fmt.Sprintf("f%03d", i), "let r = call w\nreturn { result: r }")
		text = strings.Replace(text, "A test pattern.", para, 1)
		fsys.MapFS[name] = &fstest.MapFile{Data: []byte(text)}
		fsys.last = name
	}
	var sources uint64
	for _, f := range fsys.MapFS {
		sources += uint64(len(f.Data))
	}
	res, err := lint.Paths([]string{"."}, lint.Options{Workers: 1, Resolve: func(string) (fs.FS, string) { return fsys, "." }})
	if err != nil || res.Files != files {
		t.Fatalf("%v; %d files", err, res.Files)
	}
	if fsys.heap == 0 {
		t.Fatal("the last file was never opened")
	}
	// the test's own sources are live throughout; lint may hold a few
	// files' worth beyond them (about one, 0.9 MiB, when this was
	// written), not the 149 it read before (20 MiB)
	held := int64(fsys.heap) - int64(sources)
	t.Logf("held beyond the sources: %d KiB", held>>10)
	if held > 32*size {
		t.Errorf("heap at the last file: %d MiB beyond the sources' %d MiB: lint holds the files it checked", held>>20, sources>>20)
	}
}
