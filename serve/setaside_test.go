package serve

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/proselang/prose/world/canon"
)

// An event set aside is held no more, by this queue and by one that reads
// the file again; the others stay held in their order; the file keeps the
// event and why; an event not held is refused, naming those held.
func TestSetAsideEndsOneHold(t *testing.T) {
	dir := t.TempDir()
	q, err := OpenQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { q.Close() }()
	// The fingerprints of events 1 and 3 begin with the same 8 digits,
	// 67336258.
	events := []Entry{event(t, `{"id":15053}`), event(t, `{"id":2}`), event(t, `{"id":46796}`)}
	fp1, fp2, fp3 := events[0].FP, events[1].FP, events[2].FP
	if err := q.Hold(1, "gw", events); err != nil {
		t.Fatal(err)
	}
	if _, err := q.SetAside("gw", "67336258", "poison"); err == nil || !strings.Contains(err.Error(), "more than one") {
		t.Errorf("a prefix naming two events: %v, want refused", err)
	}
	if _, err := q.SetAside("gw", "sha256:cccccccc", "poison"); !errors.Is(err, ErrNotHeld) || !strings.Contains(err.Error(), fp2) {
		t.Errorf("an event not held: %v, want ErrNotHeld naming those held", err)
	}
	if _, err := q.SetAside("other", fp1, "poison"); !errors.Is(err, ErrNotHeld) {
		t.Errorf("a node holding nothing: %v, want ErrNotHeld", err)
	}
	ev, err := q.SetAside("gw", strings.TrimPrefix(fp2, "sha256:")[:8], "the feed sent a poisoned event")
	if err != nil || string(ev.Event) != `{"id":2}` {
		t.Fatalf("set aside: %+v %v", ev, err)
	}
	check := func(q *Queue, when string) {
		t.Helper()
		h := q.Held("gw")
		if len(h) != 2 || h[0].FP != fp1 || h[1].FP != fp3 {
			t.Errorf("%s: held %+v, want events 1 and 3 in order", when, h)
		}
	}
	check(q, "after set-aside")
	q.Close()
	if q, err = OpenQueue(dir); err != nil {
		t.Fatal(err)
	}
	check(q, "read again")
	b, _ := os.ReadFile(QueuePath(dir))
	if !strings.Contains(string(b), `{"op":"aside","drain":0,"node":"gw","event":{"id":2},"fp":"`+fp2+`","why":"the feed sent a poisoned event"}`) {
		t.Errorf("the queue file does not record the event set aside and why:\n%s", b)
	}
}

// event is the queue entry of the event JSON ev, its fingerprint as
// Enqueue takes it.
func event(t *testing.T, ev string) Entry {
	t.Helper()
	v, err := canon.Decode([]byte(ev))
	if err != nil {
		t.Fatal(err)
	}
	fp, err := canon.Fingerprint(v, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Entry{Event: []byte(ev), FP: fp}
}

// A held event edited in place in the queue file (another plausible
// value, the line still JSON, its fingerprint left) is refused by every
// reader of the file, naming its line, rather than delivered again or
// listed as the event the fingerprint names.
func TestEditedHeldEventIsRefused(t *testing.T) {
	dir := t.TempDir()
	q, err := OpenQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := q.Enqueue("gw", []byte(`{"price":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := q.Hold(1, "gw", []Entry{event(t, `{"price":2}`)}); err != nil {
		t.Fatal(err)
	}
	q.Close()
	p := QueuePath(dir)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range []struct{ from, to, line string }{
		{`{"price":1}`, `{"price":9}`, ":1: the enq event"},
		{`{"price":2}`, `{"price":9}`, ":2: the hold event"},
	} {
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), edit.from, edit.to, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		if q, err := OpenQueue(dir); err == nil || !strings.Contains(err.Error(), p+edit.line) {
			if q != nil {
				q.Close()
			}
			t.Errorf("queue with %s edited to %s: %v, want refused naming %s%s", edit.from, edit.to, err, p, edit.line)
		}
		if v, err := ReadQueue(dir); err == nil || !strings.Contains(err.Error(), p+edit.line) {
			t.Errorf("view of a queue with %s edited to %s: %+v %v, want refused", edit.from, edit.to, v, err)
		}
	}
}
