package reconcile

import (
	"fmt"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
)

// Events checks the events a gateway n is about to render on against
// its ### Receives as it is now (decided): each was checked where it
// arrived, but one held since (its render failed) or queued before an
// edit of the Receives (a key made required, a type given) is delivered
// by a later drain, and the render would fold the key it lacks as null
// with exit 0. Such an event fails the render, naming it and what it
// lacks: the gateway keeps its events, as on any failure, until the
// Receives or the event's hold (prose receipts set-aside) changes. An
// event prose makes for a gateway's schedule, {"schedule", "at"}, is not
// checked, as where it is made.
func Events(n *graph.Node, events []any) error {
	if n.Events == nil {
		return nil
	}
	for _, ev := range events {
		if scheduled(ev) {
			continue
		}
		if err := n.CheckEvent(ev); err != nil {
			fp, _ := canon.Fingerprint(ev, nil)
			return fmt.Errorf("%v; the event (%s) arrived before its gateway's ### Receives said so: restore the key's declaration, or end the event's hold (prose receipts set-aside %s %s --why TEXT)", err, fp, n.ID, fp)
		}
	}
	return nil
}

// scheduled reports whether ev is the event of a gateway's schedule
// (serve.ScheduledEvent): exactly the string members schedule and at.
func scheduled(ev any) bool {
	m, ok := ev.(map[string]any)
	if !ok || len(m) != 2 {
		return false
	}
	_, s := m["schedule"].(string)
	_, a := m["at"].(string)
	return s && a
}
