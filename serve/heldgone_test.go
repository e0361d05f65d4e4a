package serve

import (
	"context"
	"reflect"
	"testing"

	"github.com/proselang/prose/world/canon"
)

// Events held for a gateway the served graph lacks (its file removed
// while they were held) are not delivered, and not in silence: the
// first drain of the process names the gateway and how many it holds;
// the later ones do not repeat it.
func TestHeldEventsOfAGoneGatewayAreSaid(t *testing.T) {
	dir := t.TempDir()
	// As a serve of a project that still had gateway "gone" left it.
	q, err := OpenQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	var es []Entry
	for _, ev := range []string{`{"id":"g1"}`, `{"id":"g2"}`} {
		v, err := canon.Decode([]byte(ev))
		if err != nil {
			t.Fatal(err)
		}
		fp, err := canon.Fingerprint(v, nil)
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, Entry{Op: "enq", Node: "gone", Event: []byte(ev), FP: fp})
	}
	if err := q.Hold(1, "gone", es); err != nil {
		t.Fatal(err)
	}
	q.Close()
	s, outcomes := feedServer(t, dir)
	for _, ev := range []string{`{"id":"a"}`, `{"id":"b"}`} {
		if _, _, err := s.Trigger("feed", []byte(ev)); err != nil {
			t.Fatal(err)
		}
		if err := s.DrainQueued(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if len(*outcomes) != 2 {
		t.Fatalf("%d outcomes, want 2", len(*outcomes))
	}
	if want := map[string]int{"gone": 2}; !reflect.DeepEqual((*outcomes)[0].HeldGone, want) {
		t.Errorf("first drain: held_gone %v, want %v", (*outcomes)[0].HeldGone, want)
	}
	if (*outcomes)[1].HeldGone != nil {
		t.Errorf("second drain: held_gone %v, want it said once", (*outcomes)[1].HeldGone)
	}
	if got := s.q.Held("gone"); len(got) != 2 {
		t.Errorf("gone holds %d events, want them kept (2)", len(got))
	}
}
