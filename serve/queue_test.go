package serve

import (
	"os"
	"testing"
	"time"

	"github.com/proselang/prose/spec/cadence"
)

// Triggers during a running drain join the next one; a reopened queue
// keeps what is pending, knows its duplicates, and drops a torn line.
func TestQueue(t *testing.T) {
	dir := t.TempDir()
	q, err := OpenQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	d1, _, _ := q.Enqueue("gw", []byte(`{"id":1}`))
	d1b, _, _ := q.Enqueue("gw", []byte(`{ "id" : 1 }`))
	if d1 != 1 || d1b != 1 {
		t.Fatalf("drains %d %d, want both 1", d1, d1b)
	}
	id, es := q.Take()
	if id != 1 || len(es) != 2 || es[0].Dup || !es[1].Dup {
		t.Fatalf("take: %d %+v (want drain 1, the second a duplicate)", id, es)
	}
	d2, dup, _ := q.Enqueue("gw", []byte(`{"id":2}`))
	if d2 != 2 || dup {
		t.Fatalf("during drain 1: drain %d dup %v, want 2 false", d2, dup)
	}
	if err := q.Finish(1, &Outcome{Drain: 1}); err != nil {
		t.Fatal(err)
	}
	q.Close()
	// A kill while a line was half written.
	f, _ := os.OpenFile(QueuePath(dir), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"op":"enq","drain":2,"node":"gw","ev`)
	f.Close()

	q, err = OpenQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if st, _ := q.State(1); st != "done" {
		t.Errorf("drain 1 %s after reopen, want done", st)
	}
	id, es = q.Take()
	if id != 2 || len(es) != 1 || string(es[0].Event) != `{"id":2}` {
		t.Fatalf("pending after reopen: %d %+v", id, es)
	}
	if _, dup, _ := q.Enqueue("gw", []byte(`{"id":1}`)); !dup {
		t.Error("an event given before the reopen is not a duplicate after it")
	}
	if _, dup, _ := q.Enqueue("other", []byte(`{"id":1}`)); dup {
		t.Error("the same event for another node counted as a duplicate")
	}
	if d := q.Depth(); d != 3 {
		t.Errorf("depth %d, want 3", d)
	}
}

// No drain is numbered 0 (nor below): while none runs, State says so of
// them, not "running" (q.running is 0 then).
func TestQueueStateOfNoDrain(t *testing.T) {
	q, err := OpenQueue(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for _, id := range []int{0, -1, 1} {
		if st, o := q.State(id); st != "unknown" || o != nil {
			t.Errorf("State(%d) of an idle empty queue: %s %v, want unknown", id, st, o)
		}
	}
	q.Enqueue("gw", []byte(`{"id":1}`))
	if st, _ := q.State(0); st != "unknown" {
		t.Errorf("State(0) with drain 1 queued: %s, want unknown", st)
	}
	if st, _ := q.State(1); st != "queued" {
		t.Errorf("State(1) queued: %s", st)
	}
	q.Take()
	if st, _ := q.State(1); st != "running" {
		t.Errorf("State(1) taken: %s, want running", st)
	}
	if st, _ := q.State(0); st != "unknown" {
		t.Errorf("State(0) while drain 1 runs: %s, want unknown", st)
	}
}

// A gateway's scheduled firing is a self wake with an event: queued
// again while its drain is pending (a restart) it is not queued twice,
// queued again once answered it is a duplicate, and the drain that
// answered it moves the self wake time its schedule counts from.
func TestQueueScheduledFiring(t *testing.T) {
	dir := t.TempDir()
	q, err := OpenQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ev := ScheduledEvent(cadenceOf(t, "0,30 9-10 * * *"), due)
	if string(ev) != `{"at":"2026-12-01T09:00:00Z","schedule":"0,30 9-10 * * *"}` {
		t.Fatalf("event %s", ev)
	}
	if d, queued, err := q.EnqueueSelf("poll", ev); err != nil || d != 1 || !queued {
		t.Fatalf("first: drain %d queued %v %v", d, queued, err)
	}
	q.Close()
	if q, err = OpenQueue(dir); err != nil {
		t.Fatal(err)
	}
	if d, queued, err := q.EnqueueSelf("poll", ev); err != nil || d != 1 || queued {
		t.Fatalf("again while pending: drain %d queued %v %v, want drain 1 not queued", d, queued, err)
	}
	id, es := q.Take()
	if id != 1 || len(es) != 1 || !es[0].Self || es[0].Dup || es[0].FP == "" {
		t.Fatalf("take: %d %+v", id, es)
	}
	start := due.Add(time.Second)
	if err := q.Finish(1, &Outcome{Drain: 1, Start: start, Triggers: []Trigger{{Node: "poll", FP: es[0].FP, Self: true}}}); err != nil {
		t.Fatal(err)
	}
	q.Close()
	if q, err = OpenQueue(dir); err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if _, self := q.Fired("poll"); !self.Equal(start) {
		t.Errorf("self wake at %s, want %s", self, start)
	}
	if _, queued, err := q.EnqueueSelf("poll", ev); err != nil || !queued {
		t.Fatalf("after its drain: queued %v %v", queued, err)
	}
	if _, es := q.Take(); len(es) != 1 || !es[0].Dup {
		t.Errorf("the same firing again: %+v, want a duplicate", es)
	}
}

func cadenceOf(t *testing.T, text string) cadence.Schedule {
	s, _, err := cadence.Parse(text)
	if err != nil || s == nil {
		t.Fatalf("%q: %v", text, err)
	}
	return s
}
