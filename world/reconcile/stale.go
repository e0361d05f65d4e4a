package reconcile

import (
	"fmt"
	"sort"

	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// Staleness is a node whose published truth is not what its sources give
// now, and why.
type Staleness struct {
	Node string `json:"node"`
	Why  string `json:"why"`
	// New says the node has no receipt yet.
	New bool `json:"new,omitempty"`
}

// Stale is the stale scan a drain of o begins with, without the drain:
// the nodes, in graph order, that a drain delivering no event and waking
// no node would render because something moved since their last receipt
// (their contract, their wiring, a caller input, what a producer
// publishes; a node with no receipt yet). It renders, commits, repairs
// and records nothing; o.Events and o.Ticks are not read. A node whose
// last render failed with the very key it has now is not stale: nothing
// moved since, and the next drain retries it all the same. A gateway is
// never stale, as a drain renders it only on an event. Nodes downstream
// of a stale one are listed only when their own sources moved: they
// render, if they do, in the drain that renders it.
//
// Its cost is that of the stale scan: a node whose scan record
// (store.Scan) holds costs what it costs the drain. It reads the store
// as a drain does: a caller holding the state directory's lock
// (Store.Held) has the ledgers checked as a drain's start checks them
// (Store.Extend, which may pin the signing key in FORMAT as the drain
// would); any other reader has the store read as it is (Store.Look).
func Stale(o Options) ([]Staleness, error) {
	if err := callersGiven(o, o.Graph.Nodes); err != nil {
		return nil, err
	}
	o.Events, o.Ticks, o.Kept = nil, nil, nil
	d := newDrainer(o)
	d.dry = true
	if err := d.load(); err != nil {
		return nil, err
	}
	var out []Staleness
	for _, n := range d.g.Nodes {
		if d.settled(n) {
			continue
		}
		p, err := d.plan(n)
		if err != nil {
			return nil, err
		}
		if p == nil || !p.render {
			continue
		}
		s := d.st[n.ID]
		if s.last != nil && s.last.Status == receipt.Failed && s.last.Memo == p.key {
			continue // a retry of the failed render: nothing moved
		}
		out = append(out, Staleness{Node: n.ID, Why: d.staleWhy(n, s), New: s.last == nil})
	}
	return out, nil
}

// staleWhy says what moved since n's last receipt (its last non-failed
// one when it has one).
func (d *drainer) staleWhy(n *graph.Node, s *state) string {
	r := s.lastOK
	if r == nil {
		r = s.last
	}
	switch {
	case r == nil:
		return "it has no receipt: it is new to the project, or was never drained"
	case r.Contract != d.contract[n.ID]:
		return fmt.Sprintf("its contract (or what renders it) changed since its last render (drain %d)", r.Drain)
	case !sameEdges(d.g, n, r):
		return fmt.Sprintf("its wiring changed since its last render (drain %d): it reads other inputs", r.Drain)
	}
	return fmt.Sprintf("what it reads moved since its last render (drain %d)", r.Drain)
}

// SourcesMoved is what a reader not given the bindings (prose world
// show, prose receipts) can tell of the nodes of g whose published truth
// does not follow from the project's files now, read-only (st.Look): a
// node with no receipt (new; a gateway only once it has an event), a
// spec whose contract moved since the last receipt's (by the stale
// scan's record, store.Scan.Spec), wiring that moved (the inputs the
// last receipt read, or the record's shape), and each node st holds that
// g lacks. A node whose record is missing or older than its last receipt
// is judged by its wiring alone; a change of binding or of a program a
// binding runs is not seen (Stale, given the bindings, sees them). A
// gateway's moved contract is named, though a drain renders it only at
// its next event. Nodes are in graph order, then the removed ones by id.
func SourcesMoved(g *graph.Graph, st *store.Store) ([]Staleness, error) {
	if err := st.Look(); err != nil {
		return nil, err
	}
	var out []Staleness
	for _, n := range g.Nodes {
		sd, err := st.Standing(n.ID)
		if err != nil {
			return nil, err
		}
		if !sd.Exists {
			if n.Kind != spec.KindGateway {
				out = append(out, Staleness{Node: n.ID, Why: "it has no receipt: it is new to the project, or was never drained", New: true})
			}
			continue
		}
		why := ""
		now, _ := memoContract(n, "")
		if sc := sd.Scan; sc != nil && sc.Last == sd.Hash && sc.Spec != "" {
			switch {
			case sc.Spec != now:
				why = fmt.Sprintf("its contract changed since its last receipt (drain %d)", sd.Drain)
			case sc.Shape != shape(g, n):
				why = fmt.Sprintf("its wiring changed since its last receipt (drain %d)", sd.Drain)
			}
		} else {
			last, lastOK, err := sd.Receipts()
			if err != nil {
				return nil, fmt.Errorf("node %s: %v", n.ID, err)
			}
			r := lastOK
			if r == nil {
				r = last
			}
			if r != nil && !sameEdges(g, n, r) {
				why = fmt.Sprintf("its wiring changed since its last render (drain %d): it reads other inputs", r.Drain)
			}
		}
		if why == "" {
			continue
		}
		if n.Kind == spec.KindGateway {
			why += "; a gateway renders again at its next event"
		}
		out = append(out, Staleness{Node: n.ID, Why: why})
	}
	stored, err := st.Nodes()
	if err != nil {
		return nil, err
	}
	for i, name := range stored {
		stored[i] = store.NodeID(name)
	}
	sort.Strings(stored)
	for _, id := range stored {
		if m := g.Node(id); m == nil || m.ID != id {
			out = append(out, Staleness{Node: id, Why: "it is not in the project any more: its truth is the last one it had"})
		}
	}
	return out, nil
}
