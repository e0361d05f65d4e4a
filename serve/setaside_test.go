package serve

import (
	"errors"
	"os"
	"strings"
	"testing"
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
	events := []Entry{
		{Event: []byte(`{"id":1}`), FP: "sha256:aaaaaaaa11"},
		{Event: []byte(`{"id":2}`), FP: "sha256:bbbbbbbb22"},
		{Event: []byte(`{"id":3}`), FP: "sha256:aaaaaaaa33"},
	}
	if err := q.Hold(1, "gw", events); err != nil {
		t.Fatal(err)
	}
	if _, err := q.SetAside("gw", "aaaaaaaa", "poison"); err == nil || !strings.Contains(err.Error(), "more than one") {
		t.Errorf("a prefix naming two events: %v, want refused", err)
	}
	if _, err := q.SetAside("gw", "sha256:cccccccc", "poison"); !errors.Is(err, ErrNotHeld) || !strings.Contains(err.Error(), "sha256:bbbbbbbb22") {
		t.Errorf("an event not held: %v, want ErrNotHeld naming those held", err)
	}
	if _, err := q.SetAside("other", "sha256:aaaaaaaa11", "poison"); !errors.Is(err, ErrNotHeld) {
		t.Errorf("a node holding nothing: %v, want ErrNotHeld", err)
	}
	ev, err := q.SetAside("gw", "bbbbbbbb", "the feed sent a poisoned event")
	if err != nil || string(ev.Event) != `{"id":2}` {
		t.Fatalf("set aside: %+v %v", ev, err)
	}
	check := func(q *Queue, when string) {
		t.Helper()
		h := q.Held("gw")
		if len(h) != 2 || h[0].FP != "sha256:aaaaaaaa11" || h[1].FP != "sha256:aaaaaaaa33" {
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
	if !strings.Contains(string(b), `{"op":"aside","drain":0,"node":"gw","event":{"id":2},"fp":"sha256:bbbbbbbb22","why":"the feed sent a poisoned event"}`) {
		t.Errorf("the queue file does not record the event set aside and why:\n%s", b)
	}
}
