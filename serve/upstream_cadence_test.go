package serve

import (
	"testing"
	"time"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// Upstream's Continuity and Schedule forms drive serve: a `cron` item read
// in its `timezone` item's zone, "every Monday morning" (09:00), and a
// cadence prose cannot read, which sets no timer and does not stop serve.
func TestUpstreamCadenceForms(t *testing.T) {
	g, diags, err := graph.Load("testdata/upstream-cadence")
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %s", err, diags)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) // a Tuesday
	c := &clockServer{t: t, g: g, st: st, now: t0, selfWakes: map[string][]time.Time{}}
	c.open()
	defer func() { c.s.Close() }()
	c.step(0)
	for h := 1; h <= 14*24; h++ {
		c.step(time.Hour)
	}
	// 09:00 in Los Angeles (PST) is 17:00 UTC.
	if got := times(c.selfWakes["weekly"]); len(got) != 2 || got[0] != "Dec 7 17:00" || got[1] != "Dec 14 17:00" {
		t.Errorf("weekly woke at %v, want [Dec 7 17:00 Dec 14 17:00]", got)
	}
	if got := times(c.selfWakes["monday"]); len(got) != 2 || got[0] != "Dec 7 09:00" || got[1] != "Dec 14 09:00" {
		t.Errorf("monday woke at %v, want [Dec 7 09:00 Dec 14 09:00]", got)
	}
	if got := c.selfWakes["vague"]; len(got) != 0 {
		t.Errorf("vague woke at %v, want never", times(got))
	}
}
