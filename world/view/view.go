// Package view computes what a page shows of a world model, reading the
// project and its state directory and writing nothing: the graph laid out
// (Layout), each node's status, a node's truth, facets, versions,
// receipts with their verification and the wake that caused each
// (NodePage), a field-level diff of two versions (Diff), the drains and a
// drain's steps for replay (DrainReplay), cost by node and by wake
// source, and the receipts that land while a drain runs (Poll). A page
// renders these values; it computes nothing itself.
//
// # Statuses (decided)
//
// A node's status is read from its ledger and its producers' published
// truths, as the next drain's stale scan would find it:
//
//   - waiting: it has no receipt yet (a gateway before its first event,
//     a node no drain has reached);
//   - failed: its last receipt failed (its prior truth stands, the next
//     drain retries it);
//   - stale: its last receipt rendered or skipped, but an input it reads
//     has moved since its last non-failed receipt (a producer published a
//     part it subscribes to, or a part appeared or went): the next drain
//     renders it. During a drain this is the node whose producer has
//     just committed and whose own turn has not come;
//   - rendered, skipped: its last receipt's status, nothing moved since.
//
// What the view cannot see it does not claim: a changed contract or
// binding (the binding is a flag of the drain), the values of caller
// inputs and events not yet delivered are the drain's to find; a node
// they would wake is shown by its last receipt.
//
// Verification is the store's (store.VerifyNode, what `prose receipts
// verify` runs), kept per node and rerun when a file of the node
// changes; each problem is shown at the file it names (the truth, a
// facet, a version, the ledger or its head), and each receipt is checked
// on its own (hash, signature, link to the one before) so a page marks
// the receipt where the chain breaks.
//
// # Live
//
// Poll compares each node directory's files (name, size, modification
// time) with what it saw last and rereads only the nodes that changed:
// the receipts that landed since, in ledger order, and the nodes whose
// status or verification moved. It works on a state directory written by
// another process, or copied from elsewhere; the caller decides how
// often to poll.
//
// Main types: World, Status, NodeStatus, Update, Layout, NodePage,
// DrainReplay, Change. Entry points: Load, New, (*World).Poll, (*World).Since,
// (*World).GraphPage, (*World).Node, (*World).VersionDiff, (*World).Drains,
// (*World).Drain, Diff.
package view

import (
	"crypto/ed25519"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// Status is a node's standing, as a page colours it.
type Status string

// The statuses, in the order a legend lists them.
const (
	Rendered Status = "rendered"
	Skipped  Status = "skipped"
	Failed   Status = "failed"
	Stale    Status = "stale"
	Waiting  Status = "waiting"
)

// Statuses lists every status in legend order.
var Statuses = []Status{Rendered, Skipped, Failed, Stale, Waiting}

// NodeStatus is one node's standing.
type NodeStatus struct {
	ID     string `json:"id"`
	Status Status `json:"status"`
	// Why says what made the status: a failure's reason, the input
	// that moved, what a waiting node waits for.
	Why string `json:"why,omitempty"`
	// Failing is true when the node's files do not verify.
	Failing bool `json:"failing,omitempty"`
	// Drain and Seq are those of the node's last receipt (0 without).
	Drain int `json:"drain,omitempty"`
	Seq   int `json:"seq,omitempty"`
}

// World is a project's graph and its state directory as pages read them.
// Its methods are safe for concurrent use.
type World struct {
	Graph *graph.Graph
	// Diags are the graph's diagnostics (wiring errors and warnings).
	Diags    diag.List
	StateDir string
	// Trusted, when set, is the key every receipt must be signed by
	// (--trusted-key), as for prose receipts verify.
	Trusted ed25519.PublicKey

	mu     sync.Mutex
	st     *store.Store // nil until the state directory has a FORMAT file
	layout *Layout
	in     map[string][]*graph.Edge // edges into each node
	subs   map[string][]string      // subscribers of each node
	nodes  map[string]*mirror
	extra  []string // store nodes the project does not have
	truths map[string]any
	fps    map[string]map[string]string
	drain  int
	// version counts the Polls that changed something; landed keeps the
	// last receipts that landed, with the version they landed at.
	version int
	landed  []Landed
	// replays are the drains replayed at version replayed.
	replays  map[int]*DrainReplay
	replayed int
	// polled is true once the first Poll is done.
	polled bool
}

// mirror is what the World keeps of one node's directory.
type mirror struct {
	stamp        string
	count        int // receipts in the ledger
	last, lastOK *receipt.Receipt
	cost         receipt.CostRow
	byWake       map[string]receipt.CostRow
	drains       map[int]*Tally
	problems     []store.Problem
	readErr      string // the ledger does not read
	status       NodeStatus
	changed      int // the version at which status last moved
}

// Load reads the project at project (a directory or a root file, as
// prose graph takes it) and the state directory stateDir ("" for the
// project's .prose/world). A state directory that does not exist yet is
// no error: every node is waiting, and Poll sees the first drain arrive.
func Load(project, stateDir string, trusted ed25519.PublicKey) (*World, error) {
	g, diags, err := graph.Load(project)
	if err != nil {
		return nil, err
	}
	for _, n := range g.Nodes {
		diags = lint.NotProse(n.Spec, diags)
	}
	return New(g, diags, stateDir, trusted)
}

// New is the World of a loaded graph g (with its diagnostics) and the
// state directory stateDir ("" for g's .prose/world), read once.
func New(g *graph.Graph, diags diag.List, stateDir string, trusted ed25519.PublicKey) (*World, error) {
	if stateDir == "" {
		stateDir = filepath.Join(g.Root, ".prose", "world")
	}
	w := &World{Graph: g, Diags: diags, StateDir: stateDir, Trusted: trusted,
		in: map[string][]*graph.Edge{}, subs: map[string][]string{}, nodes: map[string]*mirror{},
		truths: map[string]any{}, fps: map[string]map[string]string{}}
	for _, e := range g.Edges {
		w.in[e.Subscriber] = append(w.in[e.Subscriber], e)
	}
	for _, n := range g.Nodes {
		w.subs[n.ID] = g.Subscribers(n.ID)
		w.nodes[n.ID] = &mirror{}
	}
	w.layout = layout(g)
	if _, err := w.Poll(); err != nil {
		return nil, err
	}
	return w, nil
}

// ids are the graph's node ids, in graph order, then the store's nodes
// the project does not have.
func (w *World) ids() []string {
	out := make([]string, 0, len(w.Graph.Nodes)+len(w.extra))
	for _, n := range w.Graph.Nodes {
		out = append(out, n.ID)
	}
	return append(out, w.extra...)
}

// lastOf is the last receipt of rs and the last one that did not fail.
func lastOf(rs []*receipt.Receipt) (last, lastOK *receipt.Receipt) {
	if len(rs) == 0 {
		return nil, nil
	}
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].Status != receipt.Failed {
			lastOK = rs[i]
			break
		}
	}
	return rs[len(rs)-1], lastOK
}

// restatus recomputes every node's status when anything changed (or
// when all is true) and adds those that moved to u.
func (w *World) restatus(u *Update, all bool) {
	if !all {
		return
	}
	at := func(id string) (last, lastOK *receipt.Receipt) {
		if m := w.nodes[id]; m != nil {
			return m.last, m.lastOK
		}
		return nil, nil
	}
	for _, id := range w.ids() {
		m := w.nodes[id]
		s := w.standing(id, at)
		s.Failing = len(m.problems) > 0 || m.readErr != ""
		if s != m.status {
			m.status = s
			u.Nodes = append(u.Nodes, s)
		}
	}
}

// node is the graph's node of id, or nil.
func (w *World) node(id string) *graph.Node {
	if n := w.Graph.Node(id); n != nil && n.ID == id {
		return n
	}
	return nil
}

// standing is node id's status when at gives each node's last and last
// non-failed receipts.
func (w *World) standing(id string, at func(string) (last, lastOK *receipt.Receipt)) NodeStatus {
	last, lastOK := at(id)
	s := NodeStatus{ID: id}
	switch {
	case last == nil:
		s.Status, s.Why = Waiting, "no receipt yet: no drain has fired it"
		if n := w.node(id); n != nil && n.Kind == "gateway" {
			s.Status, s.Why = Waiting, "no receipt yet: a gateway renders when an event arrives"
		}
		return s
	case last.Status == receipt.Failed:
		s.Status, s.Why = Failed, last.Reason
	case last.Status == receipt.Skipped:
		s.Status = Skipped
	default:
		s.Status = Rendered
	}
	s.Drain, s.Seq = last.Drain, last.Seq
	if s.Status == Failed || lastOK == nil {
		return s
	}
	if why := w.moved(id, lastOK, at); why != "" {
		s.Status, s.Why = Stale, why
	}
	return s
}

// moved says which input of node id moved since its receipt ok, given
// its producers' receipts by at; "" when none did (or none can be read).
func (w *World) moved(id string, ok *receipt.Receipt, at func(string) (last, lastOK *receipt.Receipt)) string {
	for _, e := range w.in[id] {
		version := ""
		if last, _ := at(e.Producer); last != nil {
			version = last.Version
		}
		fps, err := w.edgeFingerprints(e, version)
		if err != nil {
			continue // the producer's version does not verify: its own page says so
		}
		key := reconcile.EdgeKey(e)
		for _, k := range sortedKeys(fps) {
			if fp := fps[k]; ok.Inputs[k] != fp {
				return fmt.Sprintf("input %s (%s) moved since its last render: the next drain renders it", e.Input, strings.TrimPrefix(k, e.Input+"<-"))
			}
		}
		for _, k := range sortedKeys(ok.Inputs) {
			if _, still := fps[k]; !still && strings.HasPrefix(k, key+"[") {
				return fmt.Sprintf("input %s (%s) went since its last render: the next drain renders it", e.Input, strings.TrimPrefix(k, e.Input+"<-"))
			}
		}
	}
	return ""
}

// edgeFingerprints are edge e's input fingerprints when its producer
// publishes version ("" for none), cached by both.
func (w *World) edgeFingerprints(e *graph.Edge, version string) (map[string]string, error) {
	key := reconcile.EdgeKey(e) + "@" + version
	if fps, ok := w.fps[key]; ok {
		return fps, nil
	}
	truth, err := w.truth(e.Producer, version)
	if err != nil {
		return nil, err
	}
	fps, err := reconcile.InputFingerprints(w.Graph, e, truth)
	if err != nil {
		return nil, err
	}
	w.fps[key] = fps
	return fps, nil
}

// truth is node's committed version (nil for ""), cached; a version is
// never rewritten, and one that does not match its address is an error.
func (w *World) truth(node, version string) (any, error) {
	if version == "" || w.st == nil {
		return nil, nil
	}
	key := node + "@" + version
	if v, ok := w.truths[key]; ok {
		return v, nil
	}
	v, err := w.st.Version(node, version)
	if err != nil {
		return nil, err
	}
	w.truths[key] = v
	return v, nil
}

func sortLedger(rs []*receipt.Receipt) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Drain != rs[j].Drain {
			return rs[i].Drain < rs[j].Drain
		}
		return rs[i].Seq < rs[j].Seq
	})
}

// counts are the project's nodes by status, in legend order.
func (w *World) counts() []Count {
	n := map[Status]int{}
	for _, node := range w.Graph.Nodes {
		n[w.nodes[node.ID].status.Status]++
	}
	out := make([]Count, 0, len(Statuses))
	for _, s := range Statuses {
		out = append(out, Count{s, n[s]})
	}
	return out
}

// Status is node id's standing now (a zero NodeStatus for an unknown
// node).
func (w *World) Status(id string) NodeStatus {
	w.mu.Lock()
	defer w.mu.Unlock()
	if m := w.nodes[id]; m != nil {
		return m.status
	}
	return NodeStatus{}
}

// NodeOf is the node whose directory in the state directory holds file
// (a Problem's File), "" when none does.
func (w *World) NodeOf(file string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.st == nil {
		return ""
	}
	for _, id := range w.ids() {
		if strings.HasPrefix(file, filepath.Dir(w.st.LedgerPath(id))+string(filepath.Separator)) {
			return id
		}
	}
	return ""
}
