// A drain taken one node at a time, each step possibly in another
// process.

package reconcile

import (
	"context"
	"fmt"

	"github.com/proselang/prose/world/receipt"
)

// Steps is a drain taken one node at a time by a caller that keeps the
// drain's progress itself and may run each step in another process (the
// Temporal variant of prose serve runs each as an activity). Every step
// reloads the store, so what it plans and renders is what Drain would at
// that point of the same drain: the levels before it committed, the
// nodes of its own level not feeding it.
//
// Decided: a step knows a commit of its own drain by the store drain
// number in the node's last receipt. A drain's number is fixed by its
// first step (Number) and kept by the caller, and no later drain shares
// it, so Fire finding a receipt of its drain on the node returns it
// without rendering: a step retried after its commit landed renders
// nothing again.
type Steps struct {
	d *drainer
}

// Number is the store drain number the next drain of o.Store takes (one
// more than any receipt's). Like Drain, it first repairs published files
// from their last receipts.
func Number(o Options) (int, error) {
	d := newDrainer(o)
	if err := d.load(); err != nil {
		return 0, err
	}
	return d.res.Drain, nil
}

// Resume loads o.Store for a step of the drain numbered drain (o.Events
// and o.Ticks are that drain's): the receipts of that number count as
// what the drain fired so far.
func Resume(o Options, drain int) (*Steps, error) {
	if err := callersGiven(o, o.Graph.Nodes); err != nil {
		return nil, err
	}
	d := newDrainer(o)
	if err := d.load(); err != nil {
		return nil, err
	}
	d.res.Drain = drain
	for id, s := range d.st {
		if !s.sd.Exists || s.sd.Drain != drain {
			continue
		}
		if err := s.receipts(); err != nil {
			return nil, fmt.Errorf("node %s: %v", id, err)
		}
		d.fired[id] = s.last
	}
	return &Steps{d: d}, nil
}

// Plan lists, of the nodes ids (one height of the graph), those that
// fire in this drain, in id order, with whether each renders.
func (s *Steps) Plan(ids []string) (fire []string, render []bool, err error) {
	for _, id := range ids {
		n := s.d.g.Node(id)
		if n == nil {
			return nil, nil, fmt.Errorf("the graph has no node %q", id)
		}
		if r := s.d.fired[id]; r != nil {
			fire, render = append(fire, id), append(render, r.Status != receipt.Skipped)
			continue
		}
		p, err := s.d.plan(n)
		if err != nil {
			return nil, nil, err
		}
		if p != nil {
			fire, render = append(fire, id), append(render, p.render)
		}
	}
	return fire, render, nil
}

// Fire renders node id when its key moved and commits its receipt as
// number seq of the drain; done says the store already held this drain's
// receipt of id, which is returned without rendering. A node that does
// not fire returns a nil receipt. When ctx ends during the render nothing
// is committed.
func (s *Steps) Fire(ctx context.Context, id string, seq int) (r *receipt.Receipt, done bool, err error) {
	d := s.d
	if r := d.fired[id]; r != nil {
		return r, true, nil
	}
	n := d.g.Node(id)
	if n == nil {
		return nil, false, fmt.Errorf("the graph has no node %q", id)
	}
	p, err := d.plan(n)
	if err != nil || p == nil {
		return nil, false, err
	}
	if p.render {
		p.ans, p.err = d.render(ctx, p)
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
	}
	d.seq = seq - 1
	if err := d.commit(p); err != nil {
		return nil, false, err
	}
	return d.fired[id], false, nil
}
