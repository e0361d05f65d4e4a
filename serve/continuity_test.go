package serve

import (
	"context"
	"testing"
	"time"

	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// constant renders every node as the same truth.
type constant struct{}

func (constant) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	return &reconcile.Answer{Truth: map[string]any{"reviewed": true, "items": []any{}}}, nil
}

// clockServer serves testdata/continuity on a fake clock; selfWakes
// collects the times each node woke itself.
type clockServer struct {
	t         *testing.T
	g         *graph.Graph
	st        *store.Store
	now       time.Time
	s         *Server
	selfWakes map[string][]time.Time
}

func newClockServer(t *testing.T, start time.Time) *clockServer {
	g, diags, err := graph.Load("testdata/continuity")
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %s", err, diags)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &clockServer{t: t, g: g, st: st, now: start, selfWakes: map[string][]time.Time{}}
	c.open()
	return c
}

func (c *clockServer) open() {
	s, err := New(Options{Graph: c.g, Store: c.st, Now: func() time.Time { return c.now },
		Drain: drain.Given(c.g, func(*graph.Node) (reconcile.Renderer, error) { return constant{}, nil }, nil),
		Drained: func(o *Outcome) {
			for _, tr := range o.Triggers {
				if tr.Self {
					c.selfWakes[tr.Node] = append(c.selfWakes[tr.Node], o.Start)
				}
			}
		}})
	if err != nil {
		c.t.Fatal(err)
	}
	c.s = s
}

// step advances the clock by d and runs what is due, as Run would.
func (c *clockServer) step(d time.Duration) {
	c.now = c.now.Add(d)
	if _, err := c.s.WakeDue(); err != nil {
		c.t.Fatal(err)
	}
	if err := c.s.DrainQueued(context.Background()); err != nil {
		c.t.Fatal(err)
	}
}

func (c *clockServer) restart() {
	c.s.Close()
	c.open()
}

func times(ts []time.Time) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Format("Jan 2 15:04"))
	}
	return out
}

// A weekly self-driven node fires once per simulated week, across a
// restart that neither resets its cadence nor fires it again.
func TestWeeklyAcrossRestart(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	c := newClockServer(t, t0)
	defer func() { c.s.Close() }()
	c.step(0)
	for h := 6; h <= 5*7*24; h += 6 {
		if h == 10*24 || h == 10*24+6 {
			c.restart()
		}
		c.step(6 * time.Hour)
	}
	got := c.selfWakes["review"]
	var want []time.Time
	for w := 0; w <= 5; w++ {
		want = append(want, t0.AddDate(0, 0, 7*w))
	}
	if len(got) != len(want) {
		t.Fatalf("review woke at %v, want %v", times(got), times(want))
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Errorf("wake %d at %s, want %s", i, got[i], want[i])
		}
	}
	// Each wake is a receipt of its own.
	rs, err := c.st.Ledger("review")
	if err != nil || len(rs) != len(want) {
		t.Errorf("review's ledger: %d receipts, %v; want %d", len(rs), err, len(want))
	}
}

// A ### Schedule cron node fires on its minutes, and only on them,
// across a restart.
func TestCronMinutes(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	c := newClockServer(t, t0)
	defer func() { c.s.Close() }()
	for m := 5; m <= 2*24*60; m += 5 {
		if m == 20*60 {
			c.restart()
		}
		c.step(5 * time.Minute)
	}
	got := times(c.selfWakes["poll"])
	want := []string{"Dec 1 09:00", "Dec 1 09:30", "Dec 1 10:00", "Dec 1 10:30", "Dec 2 09:00", "Dec 2 09:30", "Dec 2 10:00", "Dec 2 10:30"}
	if len(got) != len(want) {
		t.Fatalf("poll woke at %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("wake %d at %s, want %s", i, got[i], want[i])
		}
	}
}

// Missed minutes collapse: a serve down for a morning fires once when it
// is back, then keeps to its minutes.
func TestCronCatchUpOnce(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	c := newClockServer(t, t0)
	defer func() { c.s.Close() }()
	c.step(61 * time.Minute) // 09:01: the 09:00 wake
	c.s.Close()
	c.now = c.now.Add(3 * time.Hour) // down through 09:30, 10:00, 10:30
	c.open()
	c.step(0)
	c.step(time.Hour)
	if got := times(c.selfWakes["poll"]); len(got) != 2 || got[0] != "Dec 1 09:01" || got[1] != "Dec 1 12:01" {
		t.Errorf("poll woke at %v, want [Dec 1 09:01 Dec 1 12:01]", got)
	}
}
