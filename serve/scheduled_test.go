package serve

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// pollProgram is poll's render: the items it prints are the due times
// of the events it is given (a feed polled at each firing).
const pollProgram = `exec:sed -n 's/.*"at": *"\([^"]*\)".*/{"items":["\1"]}/p'`

// schedServer serves testdata/continuity on a fake clock, poll bound to
// pollProgram; outcomes are its drains' outcomes.
type schedServer struct {
	t        *testing.T
	g        *graph.Graph
	st       *store.Store
	now      time.Time
	s        *Server
	outcomes []*Outcome
}

func (c *schedServer) open() {
	binding := func(n *graph.Node) string {
		if n.ID == "poll" {
			return pollProgram
		}
		return ""
	}
	s, err := New(Options{Graph: c.g, Store: c.st, Now: func() time.Time { return c.now },
		Drain: drain.Given(c.g, func(n *graph.Node) (reconcile.Renderer, error) {
			if n.ID == "poll" {
				return render.Parse(pollProgram)
			}
			return constant{}, nil
		}, binding),
		Drained: func(o *Outcome) { c.outcomes = append(c.outcomes, o) }})
	if err != nil {
		c.t.Fatal(err)
	}
	c.s = s
}

// at sets the clock and runs what is due, as Run would.
func (c *schedServer) at(t time.Time) {
	c.now = t
	if _, err := c.s.WakeDue(); err != nil {
		c.t.Fatal(err)
	}
	if err := c.s.DrainQueued(context.Background()); err != nil {
		c.t.Fatal(err)
	}
}

// polls is poll's receipts, each as its status and the items of the
// truth it left.
func (c *schedServer) polls() []string {
	rs, err := c.st.Ledger("poll")
	if err != nil {
		c.t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, string(r.Status))
	}
	if v, ok, err := c.st.CheckedTruth("poll"); err == nil && ok {
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out
}

// A gateway's ### Schedule delivers it an event at each due time, so its
// program runs (a self wake alone would leave it unwoken, as it has had
// no event, then skipped): once per firing, not again on a restart at
// the same time, and once for times missed while serve was down.
func TestScheduleWakesGatewayWithEvent(t *testing.T) {
	g, diags, err := graph.Load("testdata/continuity")
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %s", err, diags)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	day := func(h, m int) time.Time { return time.Date(2026, 12, 1, h, m, 0, 0, time.UTC) }
	c := &schedServer{t: t, g: g, st: st}
	c.now = day(8, 0)
	c.open()
	defer func() { c.s.Close() }()

	c.at(day(8, 0))
	c.at(day(9, 0))
	want := []string{"rendered", `{"items":["2026-12-01T09:00:00Z"]}`}
	if got := c.polls(); !slices.Equal(got, want) {
		t.Fatalf("at 09:00 poll's receipts and truth: %q, want %q", got, want)
	}
	o := c.outcomes[len(c.outcomes)-1]
	if len(o.Triggers) != 1 || !o.Triggers[0].Self || o.Triggers[0].FP == "" || o.Events["poll"] == "" || o.Unwoken != nil {
		t.Errorf("the 09:00 drain: triggers %+v, events %v, unwoken %v; want one self wake delivering an event", o.Triggers, o.Events, o.Unwoken)
	}

	// A new server over the same state at the same time fires nothing.
	c.s.Close()
	c.open()
	c.at(day(9, 0))
	c.at(day(9, 10))
	if got := c.polls(); !slices.Equal(got, want) {
		t.Fatalf("after a restart at 09:00, poll's receipts and truth: %q, want %q", got, want)
	}

	// The next due time fires once more.
	c.at(day(9, 30))
	c.at(day(9, 31))
	want = []string{"rendered", "rendered", `{"items":["2026-12-01T09:30:00Z"]}`}
	if got := c.polls(); !slices.Equal(got, want) {
		t.Fatalf("at 09:30 poll's receipts and truth: %q, want %q", got, want)
	}

	if rs, err := c.st.Ledger("poll"); err != nil || rs[len(rs)-1].Wake.Source != receipt.External {
		t.Errorf("the 09:30 render: %v, want an external wake", err)
	}

	// Down through 10:00 and 10:30: one firing when back, naming the
	// first time missed.
	c.s.Close()
	c.now = day(10, 45)
	c.open()
	c.at(day(10, 45))
	c.at(day(10, 50))
	want = []string{"rendered", "rendered", "rendered", `{"items":["2026-12-01T10:00:00Z"]}`}
	if got := c.polls(); !slices.Equal(got, want) {
		t.Fatalf("after 10:00 and 10:30 were missed, poll's receipts and truth: %q, want %q", got, want)
	}
	// And the cadence goes on: next at 09:00 the day after.
	if d, ok := c.s.due("poll", c.s.plansNow()["poll"]); !ok || !d.Equal(day(24+9, 0)) {
		t.Errorf("poll next due %s %v, want Dec 2 09:00", d, ok)
	}
	for _, o := range c.outcomes {
		for _, r := range o.Receipts {
			if r.Node == "poll" && r.Status != receipt.Rendered {
				t.Errorf("drain %d: poll %s", o.Drain, r.Status)
			}
		}
	}
}
