//go:build linux

package serve

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/world/graph"
)

// nodeSpec is a responsibility named name maintaining field.
func nodeSpec(name, field string) string {
	return "---\nname: " + name + "\nkind: responsibility\n---\n\n# " + name + "\n\n### Maintains\n\n- `" + field + "`: a value\n"
}

func (r *reloadServer) put(rel, src string) {
	r.t.Helper()
	put(r.t, r.dir, rel, src)
}

// expect wakes note: the drain must have reloaded (or not), and serve
// the nodes ids; the drain after, with nothing changed, must not reload.
func (r *reloadServer) expect(what string, reload bool, ids string) {
	r.t.Helper()
	o := r.wake()
	if got := o.Reload == "reloaded"; got != reload {
		r.t.Fatalf("%s: the next drain's reload is %q, want reloaded %v", what, o.Reload, reload)
	}
	if got := r.ids(); got != ids {
		r.t.Fatalf("%s: the served nodes are %q, want %q", what, got, ids)
	}
	if o := r.wake(); o.Reload != "" {
		r.t.Fatalf("%s: the drain after reloads again: %q", what, o.Reload)
	}
}

// Each change of the project is seen by the next drain through the
// watches alone: no drain walks the project.
func TestWatchSeesEachChange(t *testing.T) {
	r := newReloadServer(t)
	r.expect("nothing changed", false, "note")
	r.put("a.prose.md", nodeSpec("a", "x"))
	r.expect("a file added", true, "a note")
	r.put("a.prose.md", nodeSpec("a", "y"))
	r.expect("a file edited", true, "a note")
	r.put("sub/b.prose.md", nodeSpec("b", "x"))
	r.expect("a new directory with a spec", true, "a b note")
	r.put("sub/deep/er/c.prose.md", nodeSpec("c", "x"))
	r.expect("new directories made at once, a spec in the deepest", true, "a b c note")
	r.put("sub/deep/er/c.prose.md", nodeSpec("c", "z"))
	r.expect("an edit in a directory made while serving", true, "a b c note")
	if err := os.Rename(filepath.Join(r.dir, "sub"), filepath.Join(r.dir, "moved")); err != nil {
		t.Fatal(err)
	}
	r.expect("a directory renamed", true, "a b c note")
	if n := r.s.Graph().Node("c"); n == nil || !strings.Contains(filepath.ToSlash(n.Path), "moved/deep/er/") {
		t.Fatalf("after the rename c is read from %v", n)
	}
	r.put("moved/deep/er/c.prose.md", nodeSpec("c", "w"))
	r.expect("an edit in the renamed directory", true, "a b c note")
	if err := os.RemoveAll(filepath.Join(r.dir, "moved", "deep")); err != nil {
		t.Fatal(err)
	}
	r.expect("a directory removed", true, "a b note")
	if err := os.Rename(filepath.Join(r.dir, "a.prose.md"), filepath.Join(r.dir, "moved", "a2.prose.md")); err != nil {
		t.Fatal(err)
	}
	r.expect("a file renamed", true, "a b note")
	if err := os.Remove(filepath.Join(r.dir, "moved", "a2.prose.md")); err != nil {
		t.Fatal(err)
	}
	r.expect("a file removed", true, "b note")
	r.put(graph.WiringFile, "# wiring\n")
	r.expect("a wiring file added", true, "b note")
	r.put(graph.WiringFile, "# wiring, edited\n")
	r.expect("the wiring file edited", true, "b note")
	r.put(".hidden/d.prose.md", nodeSpec("d", "x"))
	r.put("node_modules/e.prose.md", nodeSpec("e", "x"))
	r.put("notes.txt", "not a spec\n")
	r.put("empty/dir/x.md", "not a spec\n")
	r.expect("files the project does not read", false, "b note")
	if r.s.walks != 0 {
		t.Errorf("%d drains walked the project, want none", r.s.walks)
	}
}

// An edit that leaves the file's size, time and inode as they were (a
// write within the clock's grain) is still seen: the watch reports the
// write, where stamps alone show nothing.
func TestWatchSeesAnEditItsStampHides(t *testing.T) {
	r := newReloadServer(t)
	r.wake()
	p := filepath.Join(r.dir, "note.prose.md")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(noteSpec, "once the review has run", "once the review had run", 1)
	if len(edited) != len(noteSpec) || edited == noteSpec {
		t.Fatal("the edit must keep the size")
	}
	r.write(edited)
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	o := r.wake()
	if o.Reload != "reloaded" || o.Rendered != 1 {
		t.Fatalf("after an edit its stamp hides: reload %q rendered %d, want reloaded and a render", o.Reload, o.Rendered)
	}
	if src := r.s.Graph().Node("note").Spec.File.Source(); !bytes.Equal(src, []byte(edited)) {
		t.Errorf("the served spec is not the edited file")
	}
}

// A watcher that lost events (its queue overflowed) is not trusted: the
// drain walks the project, sees what changed, and watches anew; the
// drains after need no walk.
func TestWatchLostFallsBackToTheWalk(t *testing.T) {
	r := newReloadServer(t)
	r.wake()
	r.put("a.prose.md", nodeSpec("a", "x"))
	r.s.watch.lose = true // what is queued is dropped, as by an overflow
	r.expect("a file added, its event lost", true, "a note")
	if r.s.walks != 1 {
		t.Fatalf("%d drains walked, want the one whose events were lost", r.s.walks)
	}
	if r.s.watch == nil || r.s.watch.fd < 0 {
		t.Fatal("no watcher after the fallback")
	}
	r.s.watch.lose = true
	r.expect("nothing changed, events lost", false, "a note")
	r.put("a.prose.md", nodeSpec("a", "y"))
	r.expect("an edit after the fallback", true, "a note")
	if r.s.walks != 2 {
		t.Errorf("%d drains walked, want 2 (the two that lost events)", r.s.walks)
	}
	// A watch that cannot be added breaks the watcher: every look walks
	// until one builds the watches whole.
	r.s.watch.broken = os.ErrPermission
	r.put("b.prose.md", nodeSpec("b", "x"))
	r.expect("a file added while a watch was missing", true, "a b note")
	if r.s.walks != 3 {
		t.Errorf("%d drains walked, want 3", r.s.walks)
	}
}

// A spec file read from outside the walked directories (a sibling a
// call reached, in a dot directory) is watched once read: reading it
// is no change, editing it is.
func TestWatchFollowsFilesReadFromOutside(t *testing.T) {
	r := newReloadServer(t)
	r.put(".lib/helper.prose.md", "---\nname: helper\nkind: function\n---\n\n# helper\n")
	r.wake()
	if _, _, err := r.s.Graph().Specs.Load(filepath.Join(r.dir, ".lib", "helper.prose.md")); err != nil {
		t.Fatal(err)
	}
	r.expect("a file read by a render", false, "note")
	r.put(".lib/helper.prose.md", "---\nname: helper\nkind: function\n---\n\n# helper, edited\n")
	r.expect("the file read, edited", true, "note")
	if r.s.walks != 0 {
		t.Errorf("%d drains walked, want none", r.s.walks)
	}
}

// The watcher's descriptor is closed with the server, and a fallback
// replaces it rather than adding one.
func TestWatchClosedWithTheServer(t *testing.T) {
	before := inotifyFDs(t)
	r := newReloadServer(t)
	if n := inotifyFDs(t); n != before+1 {
		t.Fatalf("%d inotify descriptors while serving, want %d", n, before+1)
	}
	r.s.watch.lose = true
	r.wake()
	if n := inotifyFDs(t); n != before+1 {
		t.Fatalf("%d inotify descriptors after a fallback, want %d", n, before+1)
	}
	r.s.Close()
	if n := inotifyFDs(t); n != before {
		t.Errorf("%d inotify descriptors after Close, want %d", n, before)
	}
}

// inotifyFDs counts this process's open inotify instances.
func inotifyFDs(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	n := 0
	for _, e := range es {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// A reload reads only the files that changed: the parse of each file no
// event named is taken from the graph served, and the graph so loaded
// is the graph a fresh load of the same files gives, after a rename, a
// removal, an addition, an edit and an edited wiring file together.
func TestReloadEqualsAFreshLoad(t *testing.T) {
	r := newReloadServer(t)
	feed := "---\nname: feed\nkind: gateway\n---\n\n# feed\n\n### Maintains\n\n- `counts`: tallies\n"
	sum := "---\nname: sum\nkind: responsibility\n---\n\n# sum\n\n### Requires\n\n- `money`: the amount\n\n### Maintains\n\n- `total`: n\n\n### Continuity\n\n- input-driven\n"
	r.put("feed.prose.md", feed)
	r.put("sum.prose.md", sum)
	r.put(graph.WiringFile, "sum.money: feed.counts\n")
	r.put("b.prose.md", nodeSpec("b", "x"))
	r.put("c.prose.md", nodeSpec("c", "x"))
	// The graph served at first was read before the watches: its first
	// reload reads every file, and is read under them.
	r.expect("the first reload", true, "b c feed note sum")
	specOf := func(id string) any { return r.s.Graph().Node(id).Spec }
	note, feedSpec := specOf("note"), specOf("feed")

	if err := os.Rename(filepath.Join(r.dir, "b.prose.md"), filepath.Join(r.dir, "b2.prose.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(r.dir, "c.prose.md")); err != nil {
		t.Fatal(err)
	}
	r.put("sub/d.prose.md", nodeSpec("d", "x"))
	r.put("feed.prose.md", strings.Replace(feed, "- `counts`: tallies", "- `counts`: tallies\n- `sums`: more", 1))
	r.put(graph.WiringFile, "sum.money: feed.sums\n")
	r.expect("a rename, a removal, an addition, an edit, the wiring edited", true, "b d feed note sum")

	fresh, diags, err := graph.Load(r.dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	got, err := r.s.Graph().Format("json")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := fresh.Format("json")
	if !bytes.Equal(got, want) {
		t.Fatalf("the reloaded graph is not the fresh load's:\n%s\nwant\n%s", got, want)
	}
	if n := r.s.Graph().In("sum"); len(n) != 1 || n[0].Facet != "sums" || n[0].Rule != "wiring" {
		t.Fatalf("sum.money is wired to %+v, want feed.sums by the wiring file", n)
	}
	for _, n := range fresh.Nodes {
		m := r.s.Graph().Node(n.ID)
		if m == nil || m.Path != n.Path || !bytes.Equal(m.Spec.File.Source(), n.Spec.File.Source()) || m.Height != n.Height {
			t.Errorf("node %s is served from %v, a fresh load reads %s", n.ID, m, n.Path)
		}
	}
	if specOf("note") != note {
		t.Error("note, unchanged, was parsed again")
	}
	if specOf("feed") == feedSpec {
		t.Error("feed, edited, was not read again")
	}
}

// After events were lost no parse is taken from the graph served: what
// changed is not known file by file, so the reload reads every file.
func TestReloadAfterALossReadsEveryFile(t *testing.T) {
	r := newReloadServer(t)
	r.put("a.prose.md", nodeSpec("a", "x"))
	r.expect("the first reload", true, "a note")
	note := r.s.Graph().Node("note").Spec
	r.put("a.prose.md", nodeSpec("a", "y"))
	r.expect("an edit", true, "a note")
	if r.s.Graph().Node("note").Spec != note {
		t.Fatal("note, unchanged, was parsed again by a reload under the watches")
	}
	r.put("a.prose.md", nodeSpec("a", "z"))
	r.s.watch.lose = true
	r.expect("an edit whose event was lost", true, "a note")
	if r.s.Graph().Node("note").Spec == note {
		t.Error("after a loss note's parse was taken from the graph served")
	}
}

// A directory that cannot be watched (here: not readable) leaves the
// watcher broken: each drain walks the project, and sees what changed,
// until the watches can be built whole again.
func TestWatchThatCannotBeAddedFallsBack(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any directory")
	}
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	w, _ := newWatcher(&graph.Graph{Root: dir})
	defer w.close()
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	w2, _ := newWatcher(&graph.Graph{Root: dir})
	defer w2.close()
	if _, err := w2.look(Stamps{}); err == nil {
		t.Fatal("a watcher missing a directory's watch says it can tell")
	}

	r := newReloadServer(t)
	if err := os.Mkdir(filepath.Join(r.dir, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(r.dir, "locked"), 0o755)
	r.wake() // reads the directory's creation: its watch fails
	walks := r.s.walks
	if walks != 1 {
		t.Fatalf("%d drains walked, want the one that found the watch missing", walks)
	}
	r.put("a.prose.md", nodeSpec("a", "x"))
	// Seen by the walk; the load fails as graph.Load cannot read the
	// directory either.
	if o := r.wake(); !strings.Contains(o.Reload, "permission denied") || r.s.walks != walks+1 {
		t.Fatalf("a file added while a directory cannot be watched: reload %q after %d walks, want the load's failure after %d", o.Reload, r.s.walks, walks+1)
	}
	if err := os.Chmod(filepath.Join(r.dir, "locked"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.put("a.prose.md", nodeSpec("a", "y"))
	r.expect("an edit once the directory can be read", true, "a note")
	walks = r.s.walks
	r.put("a.prose.md", nodeSpec("a", "z"))
	r.expect("an edit once every directory is watched", true, "a note")
	if r.s.walks != walks {
		t.Errorf("%d drains walked once the watches were whole, want none", r.s.walks-walks)
	}
}

// inRegion is the walk's test of the directories it enters.
func TestInRegion(t *testing.T) {
	for _, tc := range []struct {
		root, p string
		want    bool
	}{
		{"/p", "/p/a.prose.md", true},
		{"/p", "/p/sub/deep/a.prose.md", true},
		{"/p", "/p/.lib/a.prose.md", false},
		{"/p", "/p/sub/node_modules/a.prose.md", false},
		{"/p", "/q/a.prose.md", false},
		{"/p", "/pq/a.prose.md", false},
		{"/p", "/p/../q/a.prose.md", false},
		{"/p", "/p/.hidden.prose.md", true},
		{".", "a.prose.md", true},
		{".", "sub/a.prose.md", true},
		{".", "../a.prose.md", false},
		{".", ".lib/a.prose.md", false},
		{"proj", "proj/a.prose.md", true},
		{"proj", "/abs/proj/a.prose.md", false},
		{"/", "/a/b.prose.md", true},
	} {
		w := &watcher{root: tc.root}
		if got := w.inRegion(tc.p); got != tc.want {
			t.Errorf("root %s: inRegion(%s) = %v, want %v", tc.root, tc.p, got, tc.want)
		}
	}
}
