package run_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/specgraph"
)

// countingFS counts the opens of each file name.
type countingFS struct {
	fs.FS
	mu    sync.Mutex
	opens map[string]int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opens[filepath.Clean(name)]++
	c.mu.Unlock()
	return c.FS.Open(name)
}

func (c *countingFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.FS, name) }

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.FS, name) }

func writeFiles(t *testing.T, dir string, files map[string]string) {
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

// A function graph: main calls a sibling found by its stem, a sibling
// found by its front matter name (so every sibling's front matter is
// looked at), a NAME/index.prose.md and an inline node; the sibling calls
// a sibling of its own. Files nothing calls sit beside them.
var functionGraph = map[string]string{
	"main.prose.md": "---\nname: main\nkind: function\n---\n\n### Parameters\n\n- `topic`: in\n\n### Returns\n\n- `out`: value\n\n" +
		"### Execution\n\n```prose\nlet a = call fetcher\n  topic: topic\nlet b = call tidy\n  text: a\nlet c = call shout\n  text: b\nlet d = call local\n  text: c\nreturn d\n```\n\n" +
		"## local\n\n### Parameters\n\n- `text`: in\n\n### Returns\n\n- `v`: out\n\n### Execution\n\n```prose\nreturn text\n```\n",
	"fetcher.prose.md": "---\nname: fetcher\nkind: function\n---\n\n### Parameters\n\n- `topic`: in\n\n### Returns\n\n- `found`: value\n\n" +
		"### Execution\n\n```prose\nlet x = call helper\n  topic: topic\nreturn x\n```\n",
	"helper.prose.md": "---\nname: helper\nkind: function\n---\n\n### Parameters\n\n- `topic`: in\n\n### Returns\n\n- `h`: value\n\n" +
		"### Execution\n\n```prose\nreturn topic\n```\n",
	"cleanup.prose.md": "---\nname: tidy\nkind: function\n---\n\n### Parameters\n\n- `text`: in\n\n### Returns\n\n- `t`: value\n\n" +
		"### Execution\n\n```prose\nreturn text\n```\n",
	"shout/index.prose.md": "---\nname: shout\nkind: function\n---\n\n### Parameters\n\n- `text`: in\n\n### Returns\n\n- `s`: value\n\n" +
		"### Execution\n\n```prose\nreturn text\n```\n",
	"unused.prose.md": "---\nname: unused\nkind: function\n---\n\n### Returns\n\n- `u`: value\n",
	"other.prose.md":  "---\nname: other\nkind: function\n---\n\n### Returns\n\n- `o`: value\n",
}

// A run of a function graph reads each spec file once: the loader, the
// pre-run checks, call resolution (sibling names) and the services built
// for the callees share one read.
func TestRunReadsEachSpecOnce(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, functionGraph)
	files := &countingFS{FS: specgraph.OSIn(dir), opens: map[string]int{}}
	req := run.Request{Spec: "main.prose.md", Dir: dir,
		Bindings: bind.Settings{Inputs: []bind.Assignment{{Name: "topic", Value: "tides"}}}}
	res, err := run.Local{}.Run(context.Background(), req, run.Options{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if got := toJSON(t, res.Value); !strings.Contains(got, "tides") {
		t.Errorf("value %s, want the topic carried through", got)
	}
	for _, name := range []string{"main.prose.md", "fetcher.prose.md", "helper.prose.md", "cleanup.prose.md", "shout/index.prose.md"} {
		if n := files.opens[name]; n != 1 {
			t.Errorf("%s opened %d times, want once", name, n)
		}
	}
	for name, n := range files.opens {
		if n > 1 {
			t.Errorf("%s opened %d times", name, n)
		}
	}
}

// A function graph runs, replays and resumes from a directory other than
// the one it was started in: its callees are found beside the spec in
// the request's directory, not in the working directory (issue 18, item
// 13).
func TestFunctionGraphFromAnotherDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, functionGraph)
	req := run.Request{Spec: "main.prose.md", Dir: dir,
		Bindings: bind.Settings{Inputs: []bind.Assignment{{Name: "topic", Value: "tides"}}}}
	o := run.Options{RunDir: filepath.Join(t.TempDir(), "runs")}
	res, err := run.Local{}.Run(context.Background(), req, o)
	if err != nil {
		t.Fatal(err)
	}
	want := toJSON(t, res.Value)
	for name, again := range map[string]func(context.Context, string, run.Options) (*run.Result, error){"replay": run.Replay, "resume": run.Resume} {
		got, err := again(context.Background(), res.RunID, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if v := toJSON(t, got.Value); v != want {
			t.Errorf("%s gave %s, the run %s", name, v, want)
		}
	}
}
