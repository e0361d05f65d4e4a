package serve

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/proselang/prose/world/graph"
)

// An edit asks for a drain of its own, once: folded into a drain that is
// pending, written as a line of its own otherwise, kept across a
// restart, and delivering nothing.
func TestQueueEdit(t *testing.T) {
	dir := t.TempDir()
	q, err := OpenQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, queued, err := q.EnqueueEdit()
	if err != nil || d != 1 || !queued {
		t.Fatalf("first edit: drain %d queued %v err %v, want drain 1 queued", d, queued, err)
	}
	if d, queued, _ := q.EnqueueEdit(); d != 1 || queued {
		t.Fatalf("second edit before the drain: drain %d queued %v, want 1 folded in", d, queued)
	}
	if d, _, _ := q.Enqueue("gw", []byte(`{"id":1}`)); d != 1 {
		t.Fatalf("a trigger after the edit joins drain %d, want 1", d)
	}
	q.Close()
	if q, err = OpenQueue(dir); err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	id, es := q.Take()
	if id != 1 || len(es) != 2 || !es[0].Edit || es[0].Node != "" || es[1].Node != "gw" {
		t.Fatalf("reopened: drain %d entries %+v, want drain 1 with the edit and the trigger", id, es)
	}
	// While drain 1 runs, an edit asks for drain 2.
	if d, queued, _ := q.EnqueueEdit(); d != 2 || !queued {
		t.Fatalf("edit during drain 1: drain %d queued %v, want 2 queued", d, queued)
	}
	g := &graph.Graph{}
	o, events, ticks, err := Deliver(g, id, es[:1], nil)
	if err != nil || !o.Edited || len(o.Triggers) != 0 || len(events) != 0 || len(ticks) != 0 {
		t.Fatalf("Deliver(edit) = %+v %v %v %v, want an edited drain that delivers nothing", o, events, ticks, err)
	}
	if gone := goneNodes(g, es[:1]); len(gone) != 0 {
		t.Errorf("an edit names no gone node, got %v", gone)
	}
}

// A contract edited while serve runs renders its node without a trigger:
// the edit wakes Run, which queues a drain that loads the graph again.
// A file beside the specs that is not one wakes nothing.
func TestEditIsATrigger(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("elsewhere the look waits for Run's timer")
	}
	r := newReloadServer(t)
	if o := r.wake(); o.Rendered != 1 {
		t.Fatalf("first drain rendered %d, want 1", o.Rendered)
	}
	before, _ := r.st.Last("note")
	drained := make(chan *Outcome, 8)
	r.s.o.Drained = func(o *Outcome) { drained <- o }
	r.s.o.EditSettle = -1
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- r.s.Run(ctx) }()
	if err := os.WriteFile(filepath.Join(r.dir, "notes.txt"), []byte("not a spec"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Written whole, then renamed in: one event (a look between a
	// truncate and a write would read half a file, which is another test).
	tmp := filepath.Join(r.dir, "note.tmp")
	if err := os.WriteFile(tmp, []byte(noteSpec+"- `items`: what was reviewed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(r.dir, "note.prose.md")); err != nil {
		t.Fatal(err)
	}
	var o *Outcome
	select {
	case o = <-drained:
	case <-time.After(time.Minute): // a guard against a hang, not a measure
		t.Fatal("no drain after the edit")
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if !o.Edited || o.Reload != "reloaded" || o.Rendered != 1 || len(o.Triggers) != 0 || o.Error != "" {
		t.Fatalf("the edit's drain: %+v, want an edited drain that reloaded and rendered note", o)
	}
	after, _ := r.st.Last("note")
	if after.Contract == before.Contract || after.Drain != before.Drain+1 {
		t.Errorf("note's receipt after the edit: contract %s drain %d (before %s, drain %d)", after.Contract, after.Drain, before.Contract, before.Drain)
	}
	close(drained)
	for o := range drained {
		t.Errorf("a second drain %+v: the edit was acted on twice, or the other file woke one", o)
	}
}

// An edit made between the graph's load and the server's start is one
// no watch reports: Run queues its drain as it starts.
func TestEditBeforeRunIsATrigger(t *testing.T) {
	r := newReloadServerAfter(t, func(dir string) {
		put(t, dir, "note.prose.md", noteSpec+"- `items`: what was reviewed\n")
	})
	drained := make(chan *Outcome, 8)
	r.s.o.Drained = func(o *Outcome) { drained <- o }
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- r.s.Run(ctx) }()
	var o *Outcome
	select {
	case o = <-drained:
	case <-time.After(time.Minute): // a guard against a hang, not a measure
		t.Fatal("no drain for the edit made before the start")
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if !o.Edited || o.Reload != "reloaded" || o.Rendered != 1 {
		t.Fatalf("the first drain: %+v, want an edited drain that reloaded and rendered note", o)
	}
}
