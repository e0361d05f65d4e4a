package view

import (
	"fmt"
	"sort"

	"github.com/proselang/prose/world/receipt"
)

// Tally sums receipts: of one node in one drain, or of a drain.
type Tally struct {
	Receipts, Rendered, Skipped, Failed     int
	Requests, TokensIn, TokensOut, Programs int
}

func (t *Tally) add(r *receipt.Receipt) {
	t.Receipts++
	switch r.Status {
	case receipt.Rendered:
		t.Rendered++
	case receipt.Skipped:
		t.Skipped++
	default:
		t.Failed++
	}
	t.Requests += r.Cost.Requests
	t.TokensIn += r.Cost.TokensIn
	t.TokensOut += r.Cost.TokensOut
	t.Programs += r.Cost.Programs
}

func (t *Tally) plus(o *Tally) {
	t.Receipts += o.Receipts
	t.Rendered += o.Rendered
	t.Skipped += o.Skipped
	t.Failed += o.Failed
	t.Requests += o.Requests
	t.TokensIn += o.TokensIn
	t.TokensOut += o.TokensOut
	t.Programs += o.Programs
}

// DrainSummary is one drain of the store, summed.
type DrainSummary struct {
	Number int
	Tally
}

// Drains lists the store's drains, the latest first, as of the last
// Poll.
func (w *World) Drains() []DrainSummary {
	w.mu.Lock()
	defer w.mu.Unlock()
	by := map[int]*Tally{}
	for _, id := range w.ids() {
		for n, t := range w.nodes[id].drains {
			if by[n] == nil {
				by[n] = &Tally{}
			}
			by[n].plus(t)
		}
	}
	out := make([]DrainSummary, 0, len(by))
	for n, t := range by {
		out = append(out, DrainSummary{Number: n, Tally: *t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number > out[j].Number })
	return out
}

// DrainReplay is one drain taken step by step: each node's standing when
// it began, and each receipt it committed, in ledger order, with the
// standings that receipt moved.
type DrainReplay struct {
	Number int
	Tally
	// Before is each node's standing when the drain began (from the
	// receipts of the drains before it), in graph order.
	Before []NodeStatus
	Steps  []Step
}

// Step is one receipt of a drain.
type Step struct {
	N int // from 1
	R *receipt.Receipt
	// Check is "" when the receipt verifies on its own and links to the
	// node's receipt before it; else why not.
	Check string
	Wake  Wake
	// Changes are the standings this step moved: its node's, and its
	// subscribers' that an input moving made stale.
	Changes []NodeStatus
}

// At is each node's standing after step k of the replay (0: before the
// drain; past the last step: after it).
func (d *DrainReplay) At(k int) map[string]NodeStatus {
	out := map[string]NodeStatus{}
	for _, s := range d.Before {
		out[s.ID] = s
	}
	for _, st := range d.Steps {
		if st.N > k {
			break
		}
		for _, s := range st.Changes {
			out[s.ID] = s
		}
	}
	return out
}

// Drain is drain number n's replay, read from the ledgers; it is kept
// until a Poll finds a change, so stepping through a drain reads it once.
func (w *World) Drain(n int) (*DrainReplay, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.st == nil {
		return nil, fmt.Errorf("%s holds no world model yet: no drain to show", w.StateDir)
	}
	if w.replayed != w.version || w.replays == nil {
		w.replays, w.replayed = map[int]*DrainReplay{}, w.version
	}
	if d := w.replays[n]; d != nil {
		return d, nil
	}
	d, err := w.replay(n)
	if err != nil {
		return nil, err
	}
	w.replays[n] = d
	return d, nil
}

// replay reads drain n's replay from the ledgers.
func (w *World) replay(n int) (*DrainReplay, error) {
	ledgers := map[string][]*receipt.Receipt{}
	byHash := map[string]*receipt.Receipt{}
	type step struct {
		id string
		r  *receipt.Receipt
	}
	var steps []step
	for _, id := range w.ids() {
		// Checked as a drain checks it: a replay shows what the ledgers
		// vouch for, or says which does not check.
		rs, err := w.st.CheckedLedger(id)
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", id, err)
		}
		ledgers[id] = rs
		for _, r := range rs {
			byHash[r.Hash] = r
			if r.Drain == n {
				steps = append(steps, step{id, r})
			}
		}
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("%s has no receipt of drain %d (drains: 1 to %d)", w.StateDir, n, w.drain)
	}
	sort.SliceStable(steps, func(i, j int) bool {
		a, b := steps[i].r, steps[j].r
		return a.Drain < b.Drain || a.Drain == b.Drain && a.Seq < b.Seq
	})
	d := &DrainReplay{Number: n}
	type standing struct{ last, lastOK *receipt.Receipt }
	state := map[string]*standing{}
	for id, rs := range ledgers {
		s := &standing{}
		for _, r := range rs {
			if r.Drain >= n {
				break
			}
			s.last = r
			if r.Status != receipt.Failed {
				s.lastOK = r
			}
		}
		state[id] = s
	}
	at := func(id string) (last, lastOK *receipt.Receipt) {
		if s := state[id]; s != nil {
			return s.last, s.lastOK
		}
		return nil, nil
	}
	now := map[string]NodeStatus{}
	for _, id := range w.ids() {
		now[id] = w.standing(id, at)
		d.Before = append(d.Before, now[id])
	}
	for i, sp := range steps {
		id, r := sp.id, sp.r
		d.Tally.add(r)
		s := state[id]
		st := Step{N: i + 1, R: r, Wake: w.wake(id, r, s.lastOK, byHash)}
		prev := ""
		if s.last != nil {
			prev = s.last.Hash
		}
		if err := r.Check(w.Trusted); err != nil {
			st.Check = err.Error()
		} else if r.Prev != prev {
			st.Check = fmt.Sprintf("its prev %s is not the hash of the node's receipt before it (%s): the chain is torn here", orNone(r.Prev), orNone(prev))
		}
		s.last = r
		if r.Status != receipt.Failed {
			s.lastOK = r
		}
		for _, x := range append([]string{id}, w.subs[id]...) {
			if ns := w.standing(x, at); ns != now[x] {
				now[x] = ns
				st.Changes = append(st.Changes, ns)
			}
		}
		d.Steps = append(d.Steps, st)
	}
	return d, nil
}
