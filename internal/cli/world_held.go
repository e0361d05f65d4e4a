package cli

import (
	"fmt"
	"io"
	"sort"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
)

// heldEvents keeps, for `prose run DIR --event`, the events of a gateway
// whose render failed for the next drain, as prose serve does: in the
// hold lines of the state directory's serve queue (serve.Queue), so that
// a drain by either command delivers them again, before any new event,
// until the gateway renders or skips. Nothing is dropped.
type heldEvents struct {
	dir     string
	q       *serve.Queue // nil until a hold is read or written
	held    map[string][]serve.Entry
	entries []serve.Entry // this drain's --event values
}

// openHeld reads the events held for g's gateways in state dir dir. The
// queue file is opened only when it exists (a drain that holds nothing
// writes none).
func openHeld(dir string, g *graph.Graph) (*heldEvents, error) {
	h := &heldEvents{dir: dir, held: map[string][]serve.Entry{}}
	if !serve.HasQueue(dir) {
		return h, nil
	}
	q, err := serve.OpenQueue(dir)
	if err != nil {
		return nil, err
	}
	h.q = q
	for _, n := range g.Nodes {
		h.held[n.ID] = q.Held(n.ID)
	}
	return h, nil
}

// deliver is the events of the drain: each gateway's held ones, then
// those given (an event given again that is held is delivered once).
func (h *heldEvents) deliver(g *graph.Graph, given map[string][]any) (map[string][]any, int, error) {
	for _, n := range g.Nodes {
		for _, v := range given[n.ID] {
			raw, err := canon.Marshal(v)
			if err != nil {
				return nil, 0, err
			}
			fp, err := canon.Fingerprint(v, nil)
			if err != nil {
				return nil, 0, err
			}
			h.entries = append(h.entries, serve.Entry{Op: "enq", Node: n.ID, Event: raw, FP: fp})
		}
	}
	o, events, _, err := serve.Deliver(g, 0, h.entries, h.held)
	if err != nil {
		return nil, 0, err
	}
	return events, o.Redelivered, nil
}

// settle records what the drain did with the gateways' events: a failed
// gateway holds those it does not hold yet, one that rendered or skipped
// releases its held ones. When the drain stopped early (stopped), a
// gateway it did not reach holds its events as a failed one does.
func (h *heldEvents) settle(g *graph.Graph, res *reconcile.Result, stopped bool) error {
	o := &serve.Outcome{Drain: res.Drain}
	reached := map[string]bool{}
	for _, r := range res.Receipts {
		o.Receipts = append(o.Receipts, serve.Ref{Node: r.Node, Status: r.Status, Hash: r.Hash})
		reached[r.Node] = true
	}
	if stopped {
		for _, e := range h.entries {
			if !reached[e.Node] {
				o.Receipts = append(o.Receipts, serve.Ref{Node: e.Node, Status: receipt.Failed})
				reached[e.Node] = true
			}
		}
	}
	for _, hd := range serve.Holds(g, h.entries, o, h.held) {
		if len(hd.Keep) == 0 && !hd.Release {
			continue
		}
		if h.q == nil {
			q, err := serve.OpenQueue(h.dir)
			if err != nil {
				return err
			}
			h.q = q
		}
		var err error
		if hd.Release {
			err = h.q.Unhold(res.Drain, hd.Node)
		} else {
			err = h.q.Hold(res.Drain, hd.Node, hd.Keep)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// blocked says, for each gateway that failed in res and holds events
// now, how to see and end the holds: a held event the gateway never
// accepts fails every later drain, and the drain's failure alone does
// not say that an event is why.
func (h *heldEvents) blocked(w io.Writer, g *graph.Graph, res *reconcile.Result) {
	if h.q == nil {
		return
	}
	for _, r := range res.Receipts {
		if r.Status != receipt.Failed {
			continue
		}
		held := h.q.Held(r.Node)
		if len(held) == 0 {
			continue
		}
		fmt.Fprintf(w, "prose: %s holds %d event(s) its render failed on, delivered again by every drain until it renders (the oldest %s); `prose receipts held --state %s` lists them, `prose receipts set-aside %s FP --why TEXT` ends one's hold\n",
			nodeLabel(g, r.Node), len(held), held[0].FP, h.dir, r.Node)
	}
}

// gone warns of the events held for each gateway g lacks (its file
// removed while they were held): no drain delivers them. Said at each
// run, as each is a drain of its own (prose serve says it once).
func (h *heldEvents) gone(w io.Writer, g *graph.Graph) {
	if h.q == nil {
		return
	}
	gone := serve.HeldGone(g, h.q.HeldAll())
	var nodes []string
	for n := range gone {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	for _, n := range nodes {
		fmt.Fprintln(w, heldGoneText(n, gone[n], h.dir))
	}
}

// heldGoneText is the warning of count events held for node, which the
// project no longer has, in state directory dir.
func heldGoneText(node string, count int, dir string) string {
	return fmt.Sprintf("prose: warning: %d event(s) are held for gateway %s, which is not in the project (its file is gone), and no drain delivers them; restore its file, or end each hold: `prose receipts held --state %s` lists them, `prose receipts set-aside %s FP --why TEXT`",
		count, node, dir, node)
}

// close closes the queue file, when one was opened.
func (h *heldEvents) close() {
	if h.q != nil {
		h.q.Close()
	}
}
