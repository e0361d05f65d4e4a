package specgraph_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/std"
)

// countingFS counts the opens of each file name.
type countingFS struct {
	fs.FS
	mu    sync.Mutex
	opens map[string]int
}

func newCounting(fsys fs.FS) *countingFS { return &countingFS{FS: fsys, opens: map[string]int{}} }

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opens[filepath.Clean(name)]++
	c.mu.Unlock()
	return c.FS.Open(name)
}

func (c *countingFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(c.FS, name) }
func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.FS, name) }

func (c *countingFS) specOpens() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.opens {
		if filepath.Ext(k) == ".md" {
			out[k] = v
		}
	}
	return out
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func fn(name, params, execution string) string {
	s := "---\nname: " + name + "\nkind: function\n---\n\n"
	if params != "" {
		s += "### Parameters\n\n- `" + params + "`: in\n\n"
	}
	s += "### Returns\n\n- `out`: value\n"
	if execution != "" {
		s += "\n### Execution\n\n```prose\n" + execution + "\n```\n"
	}
	return s
}

func test(name, subject, fixture string) string {
	return "---\nname: " + name + "\nkind: test\nsubject: " + subject + "\n---\n\n### Fixtures\n\n- `" + fixture + "`: \"x\"\n\n### Expects\n\n- `out`: is a string\n"
}

// A directory of functions calling each other (by stem, by front matter
// name, as NAME/index.prose.md) and of tests naming them as subjects (by
// path and by name). prose lint lets each file go once it is checked, so
// a file is read once for its own check, at most twice more for each file
// checked after it that reaches it (its name, then its parse), and at most
// once for the front matter names of the siblings (kept); never once per
// call or sibling lookup.
var project = map[string]string{
	"main.prose.md":        fn("main", "topic", "let a = call fetcher\n  topic: topic\nlet b = call tidy\n  text: a\nlet c = call shout\n  text: b\nreturn c"),
	"fetcher.prose.md":     fn("fetcher", "topic", "return call helper\n  topic: topic"),
	"helper.prose.md":      fn("helper", "topic", "return topic"),
	"cleanup.prose.md":     fn("tidy", "text", "return call helper\n  topic: text"),
	"shout/index.prose.md": fn("shout", "text", "return text"),
	"main.test.prose.md":   test("main-works", "main.prose.md", "topic"),
	"tidy.test.prose.md":   test("tidy-works", "tidy", "text"),
	"fetch.test.prose.md":  test("fetch-works", "fetcher", "topic"),
}

func TestLintReadsEachSpecOnce(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, project)
	files := newCounting(os.DirFS(dir))
	// One worker: with several, two may read one file at once before
	// either has kept it, a count that depends on the machine's timing.
	res, err := lint.Paths([]string{"."}, lint.Options{Workers: 1, Resolve: func(arg string) (fs.FS, string) { return files, arg }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != len(project) {
		t.Errorf("%d files linted, want %d", res.Files, len(project))
	}
	if res.HasErrors() {
		t.Fatalf("findings: %s", res.Diags)
	}
	opens := files.specOpens()
	var names []string
	for name := range project {
		names = append(names, name)
	}
	sort.Strings(names)
	// the files that reach each file (calls, instances, test subjects)
	reachedBy := map[string]int{
		"helper.prose.md":      2, // fetcher, cleanup
		"fetcher.prose.md":     2, // main, fetch.test
		"cleanup.prose.md":     2, // main, tidy.test
		"shout/index.prose.md": 1, // main
		"main.prose.md":        1, // main.test
	}
	for _, name := range names {
		n := opens[filepath.Clean(name)]
		// A released file a later file reaches may be read twice for it:
		// once to find the name it declares, once to load it.
		if most := 2 + 2*reachedBy[name]; n < 1 || n > most {
			t.Errorf("%s opened %d times, want 1 to %d", name, n, most)
		}
	}
}

// Release lets a file go: the graph no longer lists it, a Load after it
// reads the file again and keeps nothing, and the other files stay.
func TestRelease(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, project)
	files := newCounting(os.DirFS(dir))
	g := specgraph.New(specgraph.Options{FS: files})
	main1, _, err := g.Load("main.prose.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := g.Load("helper.prose.md"); err != nil {
		t.Fatal(err)
	}
	g.Release("./main.prose.md")
	for _, f := range g.Files() {
		if f.Path == "main.prose.md" {
			t.Errorf("released file still listed")
		}
	}
	if len(g.Files()) != 1 {
		t.Errorf("%d files listed, want helper.prose.md alone", len(g.Files()))
	}
	main2, _, err := g.Load("main.prose.md")
	if err != nil || main2 == nil {
		t.Fatal(err)
	}
	if main2 == main1 {
		t.Errorf("Load after Release gave the released spec")
	}
	main3, _, _ := g.Load("main.prose.md")
	if main3 == main2 {
		t.Errorf("a released file's new parse was kept")
	}
	if n := files.specOpens()["main.prose.md"]; n != 3 {
		t.Errorf("main.prose.md opened %d times, want 3 (once a Load)", n)
	}
	if n := files.specOpens()["helper.prose.md"]; n != 1 {
		t.Errorf("helper.prose.md opened %d times: releasing another file let it go", n)
	}
	h1, _, _ := g.Load("helper.prose.md")
	h2, _, _ := g.Load("helper.prose.md")
	if h1 != h2 {
		t.Errorf("a kept file was parsed again")
	}
}

// The graph memoizes by path: two loads under spellings that clean to one
// path are one read and the same spec; a sibling looked at through the
// graph (front matter name) is not read again when it is loaded.
func TestLoadOnce(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, project)
	files := newCounting(os.DirFS(dir))
	g := specgraph.New(specgraph.Options{FS: files})
	a, _, err := g.Load("main.prose.md")
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := g.Load("./main.prose.md")
	if a != b {
		t.Error("two loads of one path gave two specs")
	}
	calls := g.Calls(a)
	var got []string
	for _, c := range calls {
		if c.Callee == nil {
			t.Errorf("call %s resolved to nothing", c.Name)
			continue
		}
		got = append(got, c.Name+"="+c.Callee.Kind+":"+c.Callee.Path)
		if _, _, err := g.Callee(c.Callee); err != nil {
			t.Errorf("callee %s: %v", c.Name, err)
		}
	}
	want := []string{"fetcher=" + spec.CalleeSibling + ":fetcher.prose.md", "tidy=" + spec.CalleeSibling + ":cleanup.prose.md", "shout=" + spec.CalleeSibling + ":shout/index.prose.md"}
	if len(got) != len(want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call %d: %s, want %s", i, got[i], want[i])
		}
	}
	if &g.Calls(a)[0] != &calls[0] {
		t.Error("Calls resolved the node again")
	}
	for name, n := range files.specOpens() {
		if n != 1 {
			t.Errorf("%s opened %d times", name, n)
		}
	}
	if len(g.Files()) != 4 {
		t.Errorf("%d files loaded, want main and its three callees", len(g.Files()))
	}
}

// A std/... path the file system does not hold is the embedded library's.
func TestLoadStd(t *testing.T) {
	g := specgraph.New(specgraph.Options{FS: os.DirFS(t.TempDir())})
	sp, _, err := g.Load("std/patterns/ratchet.prose.md")
	if err != nil || sp.Name != "ratchet" {
		t.Fatalf("%v, %v", sp, err)
	}
	if _, _, err := g.Load("nope.prose.md"); err == nil {
		t.Error("a missing file loaded")
	}
}

// Twin finds a loaded file by its bytes and base name: the spec a lint of
// std/ itself has read already serves a test whose subject is the same
// library spec, and the test's findings are those it gets from the
// library's own parse.
func TestTwin(t *testing.T) {
	src, err := std.ReadFile("std/roles/writer.prose.md")
	if err != nil {
		t.Fatal(err)
	}
	test := "---\nname: writer-works\nkind: test\nsubject: std/roles/writer.prose.md\n---\n\n### Fixtures\n\n- `nope`: \"x\"\n\n### Expects\n\n- `missing`: is a string\n"
	alone, withCopy := t.TempDir(), t.TempDir()
	writeFiles(t, alone, map[string]string{"tests/w.test.prose.md": test})
	writeFiles(t, withCopy, map[string]string{"tests/w.test.prose.md": test, "a/writer.prose.md": string(src)})

	g := specgraph.New(specgraph.Options{FS: os.DirFS(withCopy)})
	if g.Twin(src, "writer.prose.md") != nil {
		t.Error("a twin before anything was loaded")
	}
	sp, _, err := g.Load("a/writer.prose.md")
	if err != nil {
		t.Fatal(err)
	}
	if g.Twin(src, "writer.prose.md") != sp {
		t.Error("the loaded copy is not the twin of its bytes")
	}
	if g.Twin(src, "other.prose.md") != nil || g.Twin(append(slices.Clone(src), '\n'), "writer.prose.md") != nil {
		t.Error("a twin under another base name or of other bytes")
	}

	findings := func(dir string) []string {
		g := specgraph.New(specgraph.Options{FS: os.DirFS(dir)})
		if _, _, err := g.Load("a/writer.prose.md"); err != nil && dir == withCopy {
			t.Fatal(err)
		}
		d, err := lint.File(g, "tests/w.test.prose.md")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range d {
			out = append(out, x.String())
		}
		return out
	}
	a, b := findings(alone), findings(withCopy)
	if len(a) < 2 || !slices.Equal(a, b) {
		t.Errorf("the test's findings:\nfrom the library %q\nwith a twin      %q", a, b)
	}
}

// statCounting counts the stats made of its file system.
type statCounting struct {
	fs.FS
	mu    sync.Mutex
	stats map[string]int
}

func (c *statCounting) Stat(name string) (fs.FileInfo, error) {
	c.mu.Lock()
	c.stats[filepath.Clean(name)]++
	c.mu.Unlock()
	return fs.Stat(c.FS, name)
}

// A file the graph has read is stat'ed from what the read saw: a test's
// subject, already loaded, is found without asking the file system.
func TestStatOfAReadFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, project)
	files := &statCounting{FS: os.DirFS(dir), stats: map[string]int{}}
	g := specgraph.New(specgraph.Options{FS: files})
	if _, _, err := g.Load("helper.prose.md"); err != nil {
		t.Fatal(err)
	}
	before := files.stats["helper.prose.md"]
	st, err := g.Stat("helper.prose.md")
	if err != nil || st.Name() != "helper.prose.md" || st.Size() != int64(len(project["helper.prose.md"])) || !st.Mode().IsRegular() {
		t.Fatalf("stat of a read file: %v, %v", st, err)
	}
	if n := files.stats["helper.prose.md"]; n != before {
		t.Errorf("the file system was stat'ed %d times more for a file the graph read", n-before)
	}
	if _, err := g.Stat("nope.prose.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat of a missing file: %v", err)
	}
}
