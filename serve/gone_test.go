package serve

import (
	"context"
	"strings"
	"testing"
)

// A trigger queued for a node the served graph no longer has (its file
// removed while serve was down, and the queue kept) is not dropped in
// silence: the drain that answers it says so in its outcome's error,
// and still delivers the other triggers it holds.
func TestQueuedTriggerOfAGoneNode(t *testing.T) {
	s, outcomes := feedServer(t, "")
	// As the queue file of a serve that acknowledged them holds them.
	if _, _, err := s.q.Enqueue("gone", []byte(`{"id":"g1"}`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Trigger("feed", []byte(`{"id":"a"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.DrainQueued(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(*outcomes) != 1 {
		t.Fatalf("%d outcomes, want 1", len(*outcomes))
	}
	o := (*outcomes)[0]
	if !strings.Contains(o.Error, "gone") || !strings.Contains(o.Error, "not in the project") {
		t.Errorf("outcome error %q, want it to name the node gone", o.Error)
	}
	if _, ok := o.Events["gone"]; ok {
		t.Errorf("outcome events %v name the gone node", o.Events)
	}
	rendered := map[string]bool{}
	for _, r := range o.Receipts {
		rendered[r.Node] = true
	}
	if !rendered["feed"] {
		t.Errorf("receipts %+v: the feed's event was not delivered beside it", o.Receipts)
	}
	if st, _ := s.Drain(o.Drain); st != "done" {
		t.Errorf("drain %d %s, want done", o.Drain, st)
	}
}
