package render_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// twoExecutions is a project of two responsibilities whose Executions
// run on the interpreter, one fed by the other, both calling a sibling
// function file, one reading its own prior truth.
var twoExecutions = map[string]string{
	"source.prose.md": `---
name: source
kind: responsibility
---

# Source

### Requires

- ` + "`batch`" + `: this round's names, a list

### Maintains

- ` + "`names`" + `: every name seen, oldest first

### Execution

` + "```prose" + `
let merged = call merge
  prior: names
  found: batch
return { names: merged }
` + "```" + `
`,
	"board.prose.md": `---
name: board
kind: responsibility
---

# Board

### Requires

- ` + "`names`" + `: the names the source keeps

### Maintains

- ` + "`shown`" + `: the names on the board

### Execution

` + "```prose" + `
let mine = read_world_model("self")
let shown = call merge
  prior: mine
  found: names
return { shown: shown }
` + "```" + `
`,
	"merge.prose.md": `---
name: merge
kind: function
---

# Merge

### Parameters

- ` + "`prior`" + `: a list, or null
- ` + "`found`" + `: new names

### Returns

- ` + "`merged`" + `: prior followed by each found name not in it

### Execution

` + "```prose" + `
let merged = []
if prior is not null:
  merged = prior
for f in found:
  let known = false
  for c in merged:
    if c == f:
      known = true
  if not known:
    merged = merged + [f]
return merged
` + "```" + `
`,
}

// opens counts the opens of each file of dir as the kernel reports them
// (inotify: every open by this process, through whatever package),
// until stop.
type opens struct{ fd int }

func watchOpens(t *testing.T, dir string) *opens {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	// Closes are watched too, so that two opens of one file in a row are
	// two events (inotify merges an event identical to the last queued).
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN|syscall.IN_CLOSE_NOWRITE|syscall.IN_CLOSE_WRITE); err != nil {
		t.Skipf("inotify: %v", err)
	}
	return &opens{fd: fd}
}

// count reads the events so far: the opens of each named file.
func (o *opens) count(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	buf := make([]byte, 64*1024)
	for {
		n, err := syscall.Read(o.fd, buf)
		if errors.Is(err, syscall.EAGAIN) || n == 0 {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			if ev.Mask&syscall.IN_OPEN != 0 && name != "" {
				out[name]++
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// A drain of two Execution nodes reads each spec file once: the node
// files, and the sibling both call; the renders' runs load from the
// drain's spec graph. Each render's run is journaled beside the store,
// named by its receipt, and replays from that journal (its
// read_world_model too).
func TestDrainReadsEachSpecOnce(t *testing.T) {
	dir := t.TempDir()
	for name, src := range twoExecutions {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	state := filepath.Join(t.TempDir(), "world")
	st, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	w := watchOpens(t, dir)
	g, diags, err := graph.LoadWith(dir, specgraph.New(specgraph.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	diags = g.Given(diags, func(node, input string) bool { return node == "source" && input == "batch" })
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	d := &render.Drain{Specs: g.Specs, State: state}
	res, err := reconcile.Drain(context.Background(), reconcile.Options{
		Graph: g, Store: st,
		Renderer:     func(*graph.Node) (reconcile.Renderer, error) { return &render.Execution{Drain: d}, nil },
		CallerInputs: map[string]map[string]any{"source": {"batch": []any{"a", "b", "a"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rendered != 2 {
		for _, r := range res.Receipts {
			t.Logf("%s %s %s", r.Node, r.Status, r.Reason)
		}
		t.Fatalf("rendered %d of 2", res.Rendered)
	}
	got := w.count(t)
	for name := range twoExecutions {
		if got[name] != 1 {
			t.Errorf("%s opened %d times in a drain, want once (all opens: %v)", name, got[name], got)
		}
	}

	for _, node := range []string{"source", "board"} {
		r, err := st.Last(node)
		if err != nil || r == nil || r.Status != receipt.Rendered {
			t.Fatalf("%s: %v %+v", node, err, r)
		}
		if r.Run != "drain-1" {
			t.Errorf("%s's receipt names the run %q, want drain-1", node, r.Run)
		}
		runs := store.RunsDir(state, node)
		if _, err := os.Stat(filepath.Join(runs, r.Run, "journal.jsonl")); err != nil {
			t.Errorf("%s: no journal of its render: %v", node, err)
		}
		// The journal keeps the sources the render's run reached (its
		// node and merge), not every file of the drain's graph.
		kept, err := os.ReadDir(filepath.Join(runs, r.Run, journal.SourcesDir))
		if err != nil || len(kept) != 2 {
			t.Errorf("%s's journal keeps %d sources, want 2 (%v)", node, len(kept), err)
		}
		rep, err := run.Replay(context.Background(), r.Run, run.Options{RunDir: runs})
		if err != nil {
			t.Fatalf("replay of %s's render: %v", node, err)
		}
		if rep.Answered == 0 || rep.Answered != rep.Calls {
			t.Errorf("replay of %s's render: %d of %d calls answered from the journal", node, rep.Answered, rep.Calls)
		}
		js, _ := rep.JSON()
		if want := map[string]string{"source": `"names":["a","b"]`, "board": `"shown":["a","b"]`}[node]; !strings.Contains(string(js), want) {
			t.Errorf("replay of %s's render gave %s, want %s", node, js, want)
		}
	}
}
