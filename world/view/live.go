package view

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// This file is the live side of the World: Poll rereads what changed in
// the state directory, Since tells a page what moved after the version
// it shows.

// Update is what changed since the last Poll.
type Update struct {
	// Receipts are the receipts that landed, in ledger order (by drain,
	// then seq).
	Receipts []*receipt.Receipt `json:"receipts"`
	// Nodes are the nodes whose status, reason or verification moved,
	// with their new standing, in graph order.
	Nodes []NodeStatus `json:"nodes"`
	// Drain is the highest drain number the store holds.
	Drain int `json:"drain"`
}

// Empty reports whether nothing changed.
func (u *Update) Empty() bool { return len(u.Receipts) == 0 && len(u.Nodes) == 0 }

// Poll rereads the nodes whose files changed since the last Poll and
// returns what changed.
func (w *World) Poll() (*Update, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	u := &Update{Receipts: []*receipt.Receipt{}, Nodes: []NodeStatus{}}
	changed, err := w.reread(u)
	if err != nil {
		return nil, err
	}
	w.restatus(u, changed)
	u.Drain = w.drain
	w.polled = true
	if !u.Empty() {
		w.version++
		for _, s := range u.Nodes {
			w.nodes[s.ID].changed = w.version
		}
		for _, r := range u.Receipts {
			w.landed = append(w.landed, Landed{Version: w.version, Node: r.Node, Status: string(r.Status), Drain: r.Drain, Seq: r.Seq, Wake: r.Wake.Source, Hash: r.Hash})
		}
		if n := len(w.landed) - keepLanded; n > 0 {
			w.landed = append(w.landed[:0:0], w.landed[n:]...)
		}
	}
	return u, nil
}

// reread opens the store once it exists and rereads the nodes whose
// files changed, adding the receipts that landed to u; changed is true
// when anything of a node changed (always before the store exists, so
// that the first Poll gives every node its status).
func (w *World) reread(u *Update) (changed bool, err error) {
	if w.st != nil {
		if _, err := os.Stat(filepath.Join(w.StateDir, "FORMAT")); errors.Is(err, fs.ErrNotExist) {
			// The state directory went (removed, or replaced by one not
			// yet written): forget it rather than let the store's
			// reader create it again.
			w.forget()
		}
	}
	if w.st == nil {
		if _, err := os.Stat(filepath.Join(w.StateDir, "FORMAT")); err != nil {
			return true, nil
		}
		st, err := store.Open(w.StateDir)
		if err != nil {
			return false, err
		}
		st.Trusted = w.Trusted
		w.st = st
	}
	if err := w.addStored(); err != nil {
		return false, err
	}
	for _, id := range w.ids() {
		landed, moved, err := w.rereadNode(id)
		if err != nil {
			return false, err
		}
		u.Receipts = append(u.Receipts, landed...)
		changed = changed || moved
	}
	sortLedger(u.Receipts)
	return changed, nil
}

// forget drops what the World knew of the store.
func (w *World) forget() {
	w.st = nil
	for _, id := range w.extra {
		delete(w.nodes, id)
	}
	w.extra = nil
	for id, m := range w.nodes {
		w.nodes[id] = &mirror{status: m.status, changed: m.changed}
	}
	w.drain = 0
}

// addStored adds the store's nodes the graph does not have: the store
// lists them when the state directory holds a directory the World does
// not know.
func (w *World) addStored() error {
	es, err := os.ReadDir(w.StateDir)
	if err != nil {
		return err
	}
	unknown := false
	for _, e := range es {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && w.nodes[store.NodeOfDir(e.Name())] == nil {
			unknown = true
			break
		}
	}
	if !unknown {
		return nil
	}
	names, err := w.st.Nodes()
	if err != nil {
		return err
	}
	for _, name := range names {
		id := store.NodeOfDir(name)
		if _, ok := w.nodes[id]; !ok {
			w.nodes[id] = &mirror{}
			w.extra = append(w.extra, id)
		}
	}
	return nil
}

// rereadNode rereads node id when its directory changed: the receipts that
// landed (those after the ones it had, when the ledger still begins with
// them), and whether anything of the node changed.
func (w *World) rereadNode(id string) ([]*receipt.Receipt, bool, error) {
	m := w.nodes[id]
	n := w.node(id)
	var facets []string
	if n != nil {
		facets = n.Facets
	}
	stamp := stampOf(filepath.Dir(w.st.LedgerPath(id)), n == nil || len(facets) > 0)
	if stamp == m.stamp {
		return nil, false, nil
	}
	m.stamp = stamp
	ps, rs, err := w.st.VerifyNodeLedger(id, facets)
	if err != nil {
		return nil, false, err
	}
	for _, p := range ps {
		if p.File == w.st.LedgerPath(id) || p.File == w.st.HeadPath(id) {
			// A ledger that does not check (decided): its receipts are
			// no standing, no drain's tally and nothing that landed; the
			// view keeps what it had, and the node is failing, its page
			// showing each receipt with its check.
			m.readErr = p.String()
			m.problems = ps
			return nil, true, nil
		}
	}
	if rs == nil {
		rs, err = w.st.Ledger(id)
	}
	if err != nil {
		// A ledger that does not read is a verification problem of the
		// node (VerifyNode names it); the view keeps what it had.
		m.readErr = err.Error()
		return nil, true, nil
	}
	m.readErr = ""
	var landed []*receipt.Receipt
	if m.count <= len(rs) && (m.count == 0 || m.last != nil && rs[m.count-1].Hash == m.last.Hash) {
		landed = rs[m.count:]
	}
	if len(landed) > 0 && w.polled && w.publishedOnly(id, facets, ps) {
		// A drain writes the published files just after the receipt
		// (the commit point): seen in between, they are not yet the new
		// version. Look again at the next Poll rather than call that an
		// edit; a real one is still there then. (Not at the first read
		// of a ledger: what a page first shows is what verify says.)
		m.stamp = ""
	} else {
		m.problems = ps
	}
	m.count = len(rs)
	m.last, m.lastOK = lastOf(rs)
	costs, byWake := receipt.Costs(rs)
	m.cost = receipt.CostRow{Key: id}
	if len(costs) > 0 {
		m.cost = costs[0]
	}
	m.byWake = map[string]receipt.CostRow{}
	for _, c := range byWake {
		m.byWake[c.Key] = c
	}
	m.drains = map[int]*Tally{}
	for _, r := range rs {
		t := m.drains[r.Drain]
		if t == nil {
			t = &Tally{}
			m.drains[r.Drain] = t
		}
		t.add(r)
		w.drain = max(w.drain, r.Drain)
	}
	return landed, true, nil
}

// publishedOnly reports whether every problem of ps is with node id's
// published truth or facet files (and there is one).
func (w *World) publishedOnly(id string, facets []string, ps []store.Problem) bool {
	files := map[string]bool{w.st.TruthPath(id): true}
	for _, f := range facets {
		files[w.st.FacetPath(id, f)] = true
	}
	for _, p := range ps {
		if !files[p.File] {
			return false
		}
	}
	return len(ps) > 0
}

// stampOf sums up what a node directory holds: the size and
// modification time of its ledger, head record and published truth, of
// each file of its facets (when facets), and the modification time of
// its versions directory, which moves when a version is added or
// removed. (A version is never rewritten; one edited in place is seen by
// the node's page, which verifies afresh, not by Poll: reading every
// version's size at each Poll would cost a node's whole history.)
// A node without a ledger is summed up by the drain index too: the index
// may record receipts of it, whose directory was then removed (the store
// names that), and a node page shows what the store's check says.
func stampOf(dir string, facets bool) string {
	var b strings.Builder
	for _, name := range []string{"receipts.jsonl", "head.json", "truth.json", "versions"} {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil {
			fmt.Fprintf(&b, "%s:%d:%d;", name, info.Size(), info.ModTime().UnixNano())
		} else if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(&b, "%s:%v;", name, err)
		} else if name == "receipts.jsonl" {
			if info, err := os.Stat(filepath.Join(filepath.Dir(dir), "index.jsonl")); err == nil {
				fmt.Fprintf(&b, "index.jsonl:%d:%d;", info.Size(), info.ModTime().UnixNano())
			}
		}
	}
	if !facets {
		return b.String()
	}
	es, err := os.ReadDir(filepath.Join(dir, "facets"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(&b, "facets:%v;", err)
	}
	for _, e := range es {
		if info, err := e.Info(); err == nil && !e.IsDir() {
			fmt.Fprintf(&b, "facets/%s:%d:%d;", e.Name(), info.Size(), info.ModTime().UnixNano())
		}
	}
	return b.String()
}

// keepLanded is how many landed receipts Since can tell of.
const keepLanded = 200

// Landed is a receipt that landed, as a live page lists it.
type Landed struct {
	Version int    `json:"-"`
	Node    string `json:"node"`
	Status  string `json:"status"`
	Drain   int    `json:"drain"`
	Seq     int    `json:"seq"`
	Wake    string `json:"wake"`
	Hash    string `json:"hash"`
}

// Changes are what moved after a version of the World: a page that
// showed version V asks for Since(V) and applies the answer, so it never
// falls behind however many Polls it missed.
type Changes struct {
	// Version is the version the answer brings the page to.
	Version int `json:"version"`
	// Drain is the highest drain number the store holds.
	Drain int `json:"drain"`
	// Nodes are the standings that moved, in graph order.
	Nodes []NodeStatus `json:"nodes"`
	// Counts are the project's nodes by status, in legend order.
	Counts []Count `json:"counts"`
	// Receipts are the receipts that landed, oldest first: the last 200
	// at most, Truncated when older ones of them are no longer kept.
	Receipts  []Landed `json:"receipts"`
	Truncated bool     `json:"truncated,omitempty"`
}

// Version is the World's version: it moves with each Poll that found a
// change.
func (w *World) Version() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.version
}

// Since is what moved after version v, as of the last Poll.
func (w *World) Since(v int) *Changes {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := &Changes{Version: w.version, Drain: w.drain, Nodes: []NodeStatus{}, Receipts: []Landed{}, Counts: w.counts()}
	for _, id := range w.ids() {
		if m := w.nodes[id]; m.changed > v {
			c.Nodes = append(c.Nodes, m.status)
		}
	}
	for _, l := range w.landed {
		if l.Version > v {
			c.Receipts = append(c.Receipts, l)
		}
	}
	if len(w.landed) == keepLanded && w.landed[0].Version > v {
		c.Truncated = true
	}
	return c
}
