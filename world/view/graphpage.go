package view

import (
	"sort"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// GraphPage is what the world page shows: the laid-out graph with each
// node's standing, the counts by status, verification problems, and
// cost by node and by wake source.
type GraphPage struct {
	Layout      *Layout
	Status      map[string]NodeStatus
	Counts      []Count
	EntryPoints []string
	// Drain is the highest drain number of the store (0: none yet).
	Drain int
	// Stored is false while the state directory has no FORMAT file.
	Stored   bool
	StateDir string
	// Problems are every node's verification problems, by node order.
	Problems []store.Problem
	// Extra are the store's nodes the project does not have.
	Extra []NodeStatus
	// ByNode is the cost of each node that has receipts, the most
	// tokens first; ByWake the cost by wake source, by source.
	ByNode, ByWake []receipt.CostRow
	Diags          diag.List
	// Version is the World's version the page shows (Since from it).
	Version int
}

// Count is how many nodes have a status.
type Count struct {
	Status Status `json:"status"`
	N      int    `json:"n"`
}

// GraphPage is the world page's model, as of the last Poll.
func (w *World) GraphPage() *GraphPage {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := &GraphPage{Layout: w.layout, Status: map[string]NodeStatus{}, EntryPoints: w.Graph.EntryPoints(),
		Drain: w.drain, Stored: w.st != nil, StateDir: w.StateDir, Diags: w.Diags, Version: w.version}
	wake := map[string]*receipt.CostRow{}
	for _, id := range w.ids() {
		m := w.nodes[id]
		p.Status[id] = m.status
		if w.node(id) == nil {
			p.Extra = append(p.Extra, m.status)
		}
		p.Problems = append(p.Problems, m.problems...)
		if m.count > 0 {
			p.ByNode = append(p.ByNode, m.cost)
		}
		for k, c := range m.byWake {
			if wake[k] == nil {
				wake[k] = &receipt.CostRow{Key: k}
			}
			addCost(wake[k], c)
		}
	}
	p.Counts = w.counts()
	sort.SliceStable(p.ByNode, func(i, j int) bool {
		return p.ByNode[i].TokensIn+p.ByNode[i].TokensOut > p.ByNode[j].TokensIn+p.ByNode[j].TokensOut
	})
	for _, c := range wake {
		p.ByWake = append(p.ByWake, *c)
	}
	sort.Slice(p.ByWake, func(i, j int) bool { return p.ByWake[i].Key < p.ByWake[j].Key })
	return p
}

func addCost(to *receipt.CostRow, c receipt.CostRow) {
	to.Rendered += c.Rendered
	to.Skipped += c.Skipped
	to.Failed += c.Failed
	to.Requests += c.Requests
	to.TokensIn += c.TokensIn
	to.TokensOut += c.TokensOut
	to.Programs += c.Programs
}
