// Package reconcile drains a world model to quiescence: it fires, in
// topological order, each node whose memo key moved, and commits what it
// renders to the store with a receipt.
//
// Drain semantics (decided; see also DESIGN.md section 8):
//
//   - A node's memo key is the sha256 of its contract fingerprint and the
//     fingerprints of the parts it subscribes to (each a member of a
//     producer's current truth, or the whole truth, without immaterial
//     fields), plus, for a gateway, the fingerprint of the events it
//     folds (the last receipt's when no event is delivered).
//   - Every drain starts with a stale scan: each node's key, from its
//     producers' current truths, against its last non-failed receipt's.
//     So a crash between a producer's commit and its subscriber's render,
//     a changed contract or an earlier failure is repaired by the next
//     drain; the published files are repaired from the last receipt too.
//   - A gateway renders on arrival: only in a drain that delivers it
//     events. Before its first event it has no truth (its subscribers
//     read it as absent); a moved contract or input takes effect at its
//     next event.
//   - Nodes are taken by height, then id. A node fires when its key
//     differs from its last non-failed receipt's (it renders), or when it
//     is woken from outside with an equal key: events for a gateway, a
//     self tick (it writes `skipped`, starting nothing). A self tick of a
//     node whose published truth holds a `valid_until` at or before now
//     renders it all the same (decided, as upstream's reactor says a
//     lapsing valid_until is time becoming material: the freshness clock
//     that wakes it at the lapse would else wake it to nothing, and the
//     lapsed truth would stand for ever). Otherwise it leaves no receipt. A node renders at most once per drain, so a
//     diamond join renders once.
//   - An input is absent when its producer has never published a truth
//     (its first render failed, a gateway has had no event) or published
//     one without the facet it reads; for a fan-in, when any part is.
//     Absent is not null: the render is told (Request.Absent), its memo
//     key holds AbsentFingerprint for the part, so it renders again when
//     the producer publishes (a render that failed with an input absent
//     is not retried until its key moves), and each renderer keeps a
//     truth from being computed from it (package render: a program reads
//     it listed under "absent", a model is told, an Execution fails where
//     it reads it).
//   - A render's truth must be a JSON object; postconditions the data
//     decides (package claim's forms, on `field` claims) are checked
//     before commit. A failed render writes `failed`, keeps the prior
//     truth published, wakes no one, and is retried by the next drain
//     (its key still differs from the last non-failed receipt's).
//   - Independent nodes (one height) render concurrently, at most
//     MaxParallel at once; their receipts are committed in id order, so
//     the ledger does not depend on which finished first.
//
// Main types: Options, Result, Renderer, Request, Steps. Entry points:
// Drain, and Number, Resume for a drain taken in steps.
package reconcile

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/spec/cadence"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// Request is what a render of a node is given.
type Request struct {
	Node *graph.Node
	// Inputs maps each bound Requires item to its value: the producer's
	// part, or for a fan-in an object keyed by producer (or by facet when
	// one producer gives several). An absent input is not in it.
	Inputs map[string]any
	// Absent maps each input whose value does not exist to the producer
	// that has not published it (for a fan-in, each one missing, joined
	// by ", "): it has never published a truth, or published one without
	// the facet the input reads.
	Absent map[string]string
	// Prior is the node's published truth, nil on a cold start.
	Prior any
	// Events are the events delivered to a gateway in this drain.
	Events []any
	// Diff maps each input whose fingerprint moved since the node's last
	// render to {"from": old, "to": new} fingerprints.
	Diff map[string]any
	// Drain is the drain's number, as its receipts carry it.
	Drain int
}

// Answer is a render's result.
type Answer struct {
	Truth any
	Cost  receipt.Cost
	// Run is the id of the journal of the render's run, when it kept
	// one (the receipt's run, see world/store/FORMAT.md).
	Run string
}

// Renderer renders one node.
type Renderer interface {
	Render(ctx context.Context, req *Request) (*Answer, error)
}

// Options configure a drain.
type Options struct {
	Graph *graph.Graph
	Store *store.Store
	// Renderer returns the renderer of a node (its binding).
	Renderer func(n *graph.Node) (Renderer, error)
	// Binding describes what renders a node ("exec:./x.sh"), part of its
	// contract fingerprint; nil: nothing beyond the spec.
	Binding func(n *graph.Node) string
	// Events are delivered to gateways by id.
	Events map[string][]any
	// Ticks are the nodes woken by themselves (a self recheck).
	Ticks []string
	// CallerInputs give the Requires items nothing maintains (a node's
	// caller inputs) their values, by node id then input name; each must
	// be given (null is given as nil). They count in the memo key as edges
	// "NAME<-caller".
	CallerInputs map[string]map[string]any
	// MaxParallel bounds concurrent renders (0: 4).
	MaxParallel int
	// RenderTimeout bounds each render (0: DefaultRenderTimeout; a
	// negative one bounds none): past it the render's context ends, so
	// its program is stopped (package render), and the render fails
	// naming the node, its file and the bound (a RenderTimeoutError).
	RenderTimeout time.Duration
	// SignKey signs every receipt when set.
	SignKey ed25519.PrivateKey
	// Now is the clock for durations (nil: time.Now).
	Now func() time.Time
	// Committed is called after each receipt is committed, in ledger
	// order.
	Committed func(*receipt.Receipt)
	// Kept, when set, is kept by a caller that drains one graph again
	// and again (see Kept).
	Kept *Kept
	// Rendering, when set, is called as each render starts: the context
	// it returns is the render's (a tracer's span of the render goes in
	// it, for the spans of the render's calls and model requests), and
	// end is called with the render's outcome, its postconditions
	// included. Renders of one level run concurrently.
	Rendering func(ctx context.Context, n *graph.Node) (_ context.Context, end func(error))
}

// DefaultRenderTimeout is the bound of a render when Options gives none
// (decided): a render past it is a failed render, not one that holds the
// drain, and every trigger queued behind it, forever. It is long enough
// for a model's tool session of many turns; a host gives its own
// (prose run and prose serve: --render-timeout).
const DefaultRenderTimeout = 10 * time.Minute

// RenderTimeoutError is the error of a render stopped at its bound.
type RenderTimeoutError struct {
	Node  string
	Pos   diag.Position // the node's spec file
	Limit time.Duration
	Err   error // what the renderer returned once stopped
}

func (e *RenderTimeoutError) Error() string {
	msg := fmt.Sprintf("%s: the render of %s did not finish within the render timeout of %s and was stopped (a render that needs longer is given a longer --render-timeout)", e.Pos, e.Node, e.Limit)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *RenderTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// renderTimeout is o's bound of a render, 0 for none.
func (o *Options) renderTimeout() time.Duration {
	switch {
	case o.RenderTimeout == 0:
		return DefaultRenderTimeout
	case o.RenderTimeout < 0:
		return 0
	}
	return o.RenderTimeout
}

// Result sums a drain up.
type Result struct {
	Drain                                   int
	Receipts                                []*receipt.Receipt
	Rendered, Skipped, Failed               int
	Requests, TokensIn, TokensOut, Programs int
	// Repaired names the nodes whose published files were rewritten
	// from their last receipt.
	Repaired []string
	// Unwoken maps each node of Options.Ticks the drain left no receipt,
	// as it has no truth to recheck, to why (nil when none): a gateway
	// that has had no event, a node whose only renders failed on an
	// absent input. Decided: a wake that does nothing says so; the host
	// tells whoever asked for it.
	Unwoken map[string]string
}

// state is a node's standing at the start of its turn.
type state struct {
	// last and lastOK are the node's last receipt and last non-failed
	// one, decoded from sd when the node is planned (receipts): a node
	// that is not reads only sd's summary of its last receipt.
	last, lastOK *receipt.Receipt
	sd           store.Standing
	full         bool
	// truth is the published truth (nil when none), read when first
	// needed (truthOf).
	truth  any
	loaded bool
	// scan is the stale scan's record of the node (store.Scan), nil
	// when none holds.
	scan *store.Scan
}

type drainer struct {
	o        Options
	g        *graph.Graph
	st       map[string]*state
	fired    map[string]*receipt.Receipt // this drain's receipt of each node
	res      *Result
	seq      int
	now      func() time.Time
	ticks    map[string]bool
	contract map[string]string
	// moved are the nodes a drain from Kept took (nil: it took all).
	moved map[string]bool
	// dry says the drainer only looks (Stale): it writes nothing.
	dry bool
}

// Drain runs one drain. A caller input (an input nothing maintains) that
// CallerInputs does not give is an error before anything renders: it
// would be read as null.
func Drain(ctx context.Context, o Options) (*Result, error) {
	k := o.Kept
	nodes := o.Graph.Nodes
	if k.holds(o) {
		nodes = k.callers
	}
	if err := callersGiven(o, nodes); err != nil {
		return nil, err
	}
	d := newDrainer(o)
	var err error
	if k.holds(o) {
		d.moved = map[string]bool{}
		err = d.drainMoved(ctx, k)
	} else {
		err = d.drainAll(ctx)
	}
	if serr := d.o.Store.SaveIndex(); err == nil {
		err = serr
	}
	if k != nil {
		k.keep(d, err)
	}
	if err != nil && d.res.Drain == 0 {
		return nil, err
	}
	return d.res, err
}

// drainAll loads every node's standing and takes every node in turn.
func (d *drainer) drainAll(ctx context.Context) error {
	if err := d.load(); err != nil {
		return err
	}
	// Levels: nodes of one height never feed each other.
	var level []*graph.Node
	for i, n := range d.g.Nodes {
		level = append(level, n)
		if i+1 == len(d.g.Nodes) || d.g.Nodes[i+1].Height != n.Height {
			if err := d.level(ctx, level); err != nil {
				return err
			}
			level = nil
		}
	}
	return nil
}

// Kept is what a caller that drains one graph again and again while it
// holds the state directory's lock (prose serve: store.HoldLock) keeps
// from one drain to the next, so that a drain takes only what may have
// moved: the nodes woken, those the last drain left unsettled (a failed
// render, caller inputs) and the subscribers of each node that fires;
// every other node's standing is the one kept, and its scan record
// (store.Scan) holds. It holds for one graph, one store and one binding
// function, and only while nothing but its drains wrote to the store
// (store.Writes); otherwise the next drain reads every node again. The
// zero value is ready to use. A drain that ends in an error drops it.
type Kept struct {
	g        *graph.Graph
	store    *store.Store
	st       map[string]*state
	contract map[string]string
	// unsettled are the nodes without a scan record after the last
	// drain; subs and pos index the graph.
	unsettled map[string]bool
	subs      map[string][]string
	pos       map[string]int
	callers   []*graph.Node // the nodes with caller inputs
	maxDrain  int
	writes    uint64
}

func (k *Kept) holds(o Options) bool {
	return k != nil && k.st != nil && k.g == o.Graph && k.store == o.Store && o.Store.Held() && o.Store.Writes() == k.writes
}

// keep keeps what drain d leaves (nothing after an error).
func (k *Kept) keep(d *drainer, err error) {
	if err != nil || !d.o.Store.Held() {
		k.st = nil
		return
	}
	if k.g != d.g || k.subs == nil {
		k.subs, k.pos = map[string][]string{}, map[string]int{}
		seen := map[[2]string]bool{}
		for _, e := range d.g.Edges {
			if !seen[[2]string{e.Producer, e.Subscriber}] {
				seen[[2]string{e.Producer, e.Subscriber}] = true
				k.subs[e.Producer] = append(k.subs[e.Producer], e.Subscriber)
			}
		}
		k.callers = nil
		for i, n := range d.g.Nodes {
			k.pos[n.ID] = i
			if len(n.CallerInputs) > 0 {
				k.callers = append(k.callers, n)
			}
		}
	}
	if d.moved != nil {
		// Only the nodes taken can have settled or unsettled.
		for id := range d.moved {
			if d.st[id].scan == nil {
				k.unsettled[id] = true
			} else {
				delete(k.unsettled, id)
			}
		}
	} else {
		k.unsettled = map[string]bool{}
		for id, s := range d.st {
			if s.scan == nil {
				k.unsettled[id] = true
			}
		}
	}
	k.g, k.store, k.st, k.contract = d.g, d.o.Store, d.st, d.contract
	k.maxDrain = d.res.Drain - 1
	if len(d.res.Receipts) > 0 {
		k.maxDrain = d.res.Drain
	}
	k.writes = d.o.Store.Writes()
}

// drainMoved is a drain from what k kept: the nodes that may have moved,
// level by level, each level's subscribers of what fired added.
func (d *drainer) drainMoved(ctx context.Context, k *Kept) error {
	if err := d.o.Store.Extend(d.o.SignKey); err != nil {
		return err
	}
	d.st, d.contract = k.st, k.contract
	d.res.Drain = k.maxDrain + 1
	todo := map[int]bool{}
	add := func(id string) {
		if i, ok := k.pos[id]; ok {
			todo[i] = true
		}
	}
	for id := range k.unsettled {
		add(id)
	}
	for id := range d.o.Events {
		add(id)
	}
	for _, id := range d.o.Ticks {
		add(id)
	}
	for len(todo) > 0 {
		low := -1
		for i := range todo {
			if low < 0 || i < low {
				low = i
			}
		}
		h := d.g.Nodes[low].Height
		var idx []int
		for i := range todo {
			if d.g.Nodes[i].Height == h {
				idx = append(idx, i)
			}
		}
		sort.Ints(idx)
		level := make([]*graph.Node, len(idx))
		for j, i := range idx {
			level[j] = d.g.Nodes[i]
			d.moved[level[j].ID] = true
			delete(todo, i)
		}
		if err := d.level(ctx, level); err != nil {
			return err
		}
		for _, n := range level {
			if d.fired[n.ID] != nil {
				for _, sub := range k.subs[n.ID] {
					add(sub)
				}
			}
		}
	}
	return nil
}

// callersGiven refuses a caller input of nodes that o does not give.
func callersGiven(o Options, nodes []*graph.Node) error {
	for _, n := range nodes {
		for _, in := range n.CallerInputs {
			if _, ok := o.CallerInputs[n.ID][in]; !ok {
				return fmt.Errorf("input %q of %s: nothing maintains it and the caller does not give it (--input %s.%s=VALUE)", in, n.Label(), n.ID, in)
			}
		}
	}
	return nil
}

func newDrainer(o Options) *drainer {
	d := &drainer{o: o, g: o.Graph, st: map[string]*state{}, fired: map[string]*receipt.Receipt{}, res: &Result{}, now: o.Now, ticks: map[string]bool{}, contract: map[string]string{}}
	if d.now == nil {
		d.now = time.Now
	}
	for _, t := range o.Ticks {
		d.ticks[t] = true
	}
	return d
}

// load reads every node's standing (its last receipts, from the store's
// drain index), repairs published files, and numbers the drain. Truths
// are read when a node's turn needs them.
func (d *drainer) load() error {
	if d.dry && !d.o.Store.Held() {
		if err := d.o.Store.Look(); err != nil {
			return err
		}
	} else if err := d.o.Store.Extend(d.o.SignKey); err != nil {
		return err
	}
	maxDrain := 0
	for _, n := range d.g.Nodes {
		sd, err := d.o.Store.Standing(n.ID)
		if err != nil {
			return err
		}
		s := &state{sd: sd, scan: sd.Scan}
		if sd.Exists {
			maxDrain = max(maxDrain, sd.Drain)
		}
		if sd.Exists && !d.dry {
			if fixed, err := d.o.Store.Repair(n.ID, n.Facets); err != nil {
				return fmt.Errorf("node %s: %v", n.ID, err)
			} else if fixed {
				d.res.Repaired = append(d.res.Repaired, n.ID)
			}
		}
		d.st[n.ID] = s
		c, err := memoContract(n, d.binding(n))
		if err != nil {
			return err
		}
		d.contract[n.ID] = c
	}
	d.res.Drain = maxDrain + 1
	return nil
}

// truthOf is node id's published truth (nil when none), read once.
func (d *drainer) truthOf(id string) (any, error) {
	s := d.st[id]
	if s.loaded {
		return s.truth, nil
	}
	if v := s.version(); v != "" {
		v, err := d.o.Store.Version(id, v)
		if err != nil {
			return nil, fmt.Errorf("node %s: %v", id, err)
		}
		s.truth = v
	}
	s.loaded = true
	return s.truth, nil
}

// lapsed reports whether a valid_until of the node's published truth
// is at or before the drain's now.
func (d *drainer) lapsed(id string) (bool, error) {
	truth, err := d.truthOf(id)
	if err != nil {
		return false, err
	}
	now := d.now()
	for _, t := range cadence.ValidUntil(truth) {
		if !t.After(now) {
			return true, nil
		}
	}
	return false, nil
}

func (d *drainer) binding(n *graph.Node) string {
	if d.o.Binding == nil {
		return ""
	}
	return d.o.Binding(n)
}

// plan is what a node's turn will do.
type plan struct {
	n       *graph.Node
	key     string
	inputs  map[string]string // edge key -> fingerprint
	values  map[string]any
	absent  map[string]string
	events  []any
	eventFP string
	wake    receipt.Wake
	render  bool
	ans     *Answer
	err     error
}

// level takes the nodes of one height: plans each, renders those that
// render (concurrently), then commits in order.
func (d *drainer) level(ctx context.Context, nodes []*graph.Node) error {
	var plans []*plan
	for _, n := range nodes {
		if d.settled(n) {
			continue
		}
		p, err := d.plan(n)
		if err != nil {
			return err
		}
		if p != nil {
			plans = append(plans, p)
		}
	}
	par := d.o.MaxParallel
	if par <= 0 {
		par = 4
	}
	var renders []*plan
	for _, p := range plans {
		if p.render {
			renders = append(renders, p)
		}
	}
	// The renders join as a run's parallel loop does (delegation.RunGroup):
	// at most par at once; a failed render is its plan's, and the others go
	// on; a panic stops the level with its stack kept.
	out := delegation.DefaultRuntime().Group(ctx, delegation.Path{}, len(renders), par, func(ctx context.Context, i int) (bool, error) {
		renders[i].ans, renders[i].err = d.render(ctx, renders[i])
		return false, nil
	}, nil)
	if out.Failed >= 0 {
		return out.Err
	}
	if err := ctx.Err(); err != nil {
		return err // nothing of this level is committed: the next drain redoes it
	}
	for _, p := range plans {
		if err := d.commit(p); err != nil {
			return err
		}
	}
	return nil
}

// settled reports whether n's stale-scan record (store.Scan) still
// holds: n is not woken, and its last receipt, contract, shape and
// producers' versions are those recorded, so its key is the recorded
// one and, as then, it does not fire. A node given caller inputs is
// always derived again.
func (d *drainer) settled(n *graph.Node) bool {
	s := d.st[n.ID]
	sc := s.scan
	if sc == nil || sc.Spec == "" || len(d.o.Events[n.ID]) > 0 || d.ticks[n.ID] || len(n.CallerInputs) > 0 {
		return false // a record without Spec is written again once, with it
	}
	if sc.Last != s.hash() || sc.Contract != d.contract[n.ID] || sc.Shape != shape(d.g, n) {
		return false
	}
	prods := producers(d.g, n)
	if len(sc.Inputs) != len(prods) {
		return false
	}
	for _, p := range prods {
		v, ok := sc.Inputs[p]
		if !ok || v != d.st[p].version() {
			return false
		}
	}
	return d.vouched(n)
}

// vouched reports whether n's checked receipts vouch for its scan record
// (decided). The record lives in the drain index, which is not signed and
// whose checksums anyone can recompute: a record edited to name the
// versions its producers publish now would otherwise keep n from
// rendering after what it reads moved. So the record is believed only
// when the receipt its key comes from (the last non-failed one, or a last
// one that failed with an input absent) has n's contract now, read every
// edge n reads now, and was committed after the last non-failed receipt
// of each producer (what it publishes: its failures since keep it): what
// each producer publishes now is what that receipt's key was derived
// from (and, where the producer's last non-failed receipt fingerprints
// the part an edge reads, that fingerprint is the one r read).
// Otherwise n's key is derived again: a node whose producer published
// since its own last receipt pays that on each drain of a process that
// opens the store, until it renders again. A gateway needs no vouching:
// without an event, which unsettles it, it never renders, settled or
// not.
func (d *drainer) vouched(n *graph.Node) bool {
	if n.Kind == spec.KindGateway {
		return true
	}
	s := d.st[n.ID]
	if s.receipts() != nil {
		return false // plan reports it
	}
	r := s.lastOK
	switch {
	case r != nil && r.Memo == s.scan.Key:
	case s.last != nil && s.last.Status == receipt.Failed && s.last.Memo == s.scan.Key && readsAbsent(s.last):
		r = s.last
	default:
		return false
	}
	if r.Contract != d.contract[n.ID] || !sameEdges(d.g, n, r) {
		return false
	}
	for _, e := range d.g.In(n.ID) {
		ps := d.st[e.Producer]
		if ps.receipts() != nil {
			return false
		}
		// What the producer publishes is what its last non-failed receipt
		// left published: a failed receipt keeps the truth before it
		// (commit), so the producer's failures since r moved nothing r
		// read (decided), and the store vouches that no receipt between
		// that one and the last is non-failed (store's failedTail).
		pub := ps.lastOK
		if pub == nil {
			// It never published: what r read of it must be absent.
			if fp, ok := r.Inputs[EdgeKey(e)]; ok && fp != AbsentFingerprint {
				return false
			}
			continue
		}
		if pub.Drain > r.Drain || pub.Drain == r.Drain && pub.Seq >= r.Seq {
			return false
		}
		// A second guard, for drains numbered anew after the nodes of the
		// highest numbers left the graph: the part r read is the one the
		// producer's last non-failed receipt fingerprints.
		if fp, ok := r.Inputs[EdgeKey(e)]; ok && fp != AbsentFingerprint {
			if now, ok := pub.Facets[e.Facet]; ok && now != fp {
				return false
			}
		}
	}
	return true
}

// readsAbsent reports whether r read an input that was absent.
func readsAbsent(r *receipt.Receipt) bool {
	for _, fp := range r.Inputs {
		if fp == AbsentFingerprint {
			return true
		}
	}
	return false
}

// sameEdges reports whether r's inputs are those of n's edges now: each
// edge to a part has its key, each key of r is an edge's (a facet
// family's keys, one per key of the family, by their edge's prefix) or
// a caller input's.
func sameEdges(g *graph.Graph, n *graph.Node, r *receipt.Receipt) bool {
	v, _ := n.Memo("reconcile.edgekeys", func() (any, error) {
		ks := edgeKeys{parts: map[string]bool{}}
		for _, e := range g.In(n.ID) {
			if _, ok := graph.Family(e.Facet); ok {
				ks.families = append(ks.families, EdgeKey(e)+"[")
			} else {
				ks.parts[EdgeKey(e)] = true
			}
		}
		return ks, nil
	})
	ks := v.(edgeKeys)
	parts := 0
	for k := range r.Inputs {
		if ks.parts[k] {
			parts++
			continue
		}
		if strings.HasSuffix(k, "<-caller") {
			continue
		}
		fam := false
		for _, f := range ks.families {
			if strings.HasPrefix(k, f) {
				fam = true
				break
			}
		}
		if !fam {
			return false
		}
	}
	return parts == len(ks.parts)
}

type edgeKeys struct {
	parts    map[string]bool
	families []string
}

// settle records in the store's drain index that n, as it stands now,
// has key and does not fire unless something it reads moves.
func (d *drainer) settle(n *graph.Node, key string) {
	if len(n.CallerInputs) > 0 || d.dry {
		return
	}
	s := d.st[n.ID]
	spec, _ := memoContract(n, "") // Contract does not fail
	sc := &store.Scan{Last: s.hash(), Contract: d.contract[n.ID], Shape: shape(d.g, n), Key: key, Spec: spec, Inputs: map[string]string{}}
	for _, p := range producers(d.g, n) {
		sc.Inputs[p] = d.st[p].version()
	}
	if old := s.scan; old != nil && old.Last == sc.Last && old.Contract == sc.Contract && old.Shape == sc.Shape && old.Key == sc.Key && old.Spec == sc.Spec && sameMap(old.Inputs, sc.Inputs) {
		return
	}
	s.scan = sc
	d.o.Store.SetScan(n.ID, sc)
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// receipts decodes s's last receipts (once).
func (s *state) receipts() error {
	if s.full {
		return nil
	}
	last, lastOK, err := s.sd.Receipts()
	if err != nil {
		return err
	}
	s.last, s.lastOK, s.full = last, lastOK, true
	return nil
}

// hash is the hash of s's last receipt ("": none).
func (s *state) hash() string {
	if s.full {
		return hashOf(s.last)
	}
	return s.sd.Hash
}

// version is the version s's last receipt leaves published.
func (s *state) version() string {
	if s.full {
		return versionOf(s.last)
	}
	return s.sd.Version
}

func hashOf(r *receipt.Receipt) string {
	if r == nil {
		return ""
	}
	return r.Hash
}

// versionOf is the version a node's last receipt leaves published ("":
// none; an absent truth).
func versionOf(r *receipt.Receipt) string {
	if r == nil {
		return ""
	}
	return r.Version
}

// producers are the ids of the nodes n reads, sorted (computed once per
// node).
func producers(g *graph.Graph, n *graph.Node) []string {
	v, _ := n.Memo("reconcile.producers", func() (any, error) {
		seen := map[string]bool{}
		var out []string
		for _, e := range g.In(n.ID) {
			if !seen[e.Producer] {
				seen[e.Producer] = true
				out = append(out, e.Producer)
			}
		}
		sort.Strings(out)
		return out, nil
	})
	return v.([]string)
}

// shape is the digest of what n's memo key reads beside its contract and
// its inputs' values: its edges (input, producer, part) and the fields
// each part leaves out of its fingerprint (computed once per node).
func shape(g *graph.Graph, n *graph.Node) string {
	v, _ := n.Memo("reconcile.shape", func() (any, error) {
		// The RFC 8785 form of {"edges": [[EDGE, [IMMATERIAL...]]...]},
		// written directly (TestShapeIsTheCanonicalObject).
		var b bytes.Buffer
		b.WriteString(`{"edges":[`)
		for i, e := range g.In(n.ID) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('[')
			canon.WriteString(&b, EdgeKey(e))
			b.WriteString(",[")
			for j, f := range Immaterial(g, g.Node(e.Producer), e.Facet) {
				if j > 0 {
					b.WriteByte(',')
				}
				canon.WriteString(&b, f)
			}
			b.WriteString("]]")
		}
		b.WriteString("]}")
		return canon.Hash(b.Bytes()), nil
	})
	s, _ := v.(string)
	return s
}

// EdgeKey names an edge in a receipt's inputs.
func EdgeKey(e *graph.Edge) string { return e.Input + "<-" + e.Producer + "." + e.Facet }

// plan computes n's key and decides whether it fires; nil when it does
// not.
func (d *drainer) plan(n *graph.Node) (*plan, error) {
	s := d.st[n.ID]
	if err := s.receipts(); err != nil {
		return nil, fmt.Errorf("node %s: %v", n.ID, err)
	}
	p := &plan{n: n, inputs: map[string]string{}, values: map[string]any{}, absent: map[string]string{}}
	byInput := map[string][]*graph.Edge{}
	var order []string
	for _, e := range d.g.In(n.ID) {
		if _, ok := byInput[e.Input]; !ok {
			order = append(order, e.Input)
		}
		byInput[e.Input] = append(byInput[e.Input], e)
	}
	var refs []string
	for _, in := range order {
		es := byInput[in]
		var missing []string
		for _, e := range es {
			prod := d.g.Node(e.Producer)
			truth, err := d.truthOf(e.Producer)
			if err != nil {
				return nil, err
			}
			if !present(truth, e.Facet) {
				missing = appendNew(missing, nodeName(prod))
				p.inputs[EdgeKey(e)] = AbsentFingerprint
				continue
			}
			fps, err := partFingerprints(d.g, prod, truth, e)
			if err != nil {
				return nil, err
			}
			for k, fp := range fps {
				p.inputs[k] = fp
				if r := d.fired[e.Producer]; r != nil && r.Status == receipt.Rendered && (s.lastOK == nil || s.lastOK.Inputs[k] != fp) {
					refs = appendNew(refs, r.Hash)
				}
			}
		}
		if len(missing) > 0 {
			p.absent[in] = strings.Join(missing, ", ")
			continue
		}
		p.values[in] = inputValue(d, es)
	}
	for _, in := range n.CallerInputs {
		v := d.o.CallerInputs[n.ID][in]
		fp, err := canon.Fingerprint(v, nil)
		if err != nil {
			return nil, err
		}
		p.inputs[in+"<-caller"] = fp
		p.values[in] = v
	}
	events := d.o.Events[n.ID]
	switch {
	case len(events) > 0:
		p.events = events
		fp, err := canon.Fingerprint(events, nil)
		if err != nil {
			return nil, err
		}
		p.eventFP = fp
	case s.lastOK != nil:
		p.eventFP = s.lastOK.Events
	}
	key, err := memoKey(d.contract[n.ID], p.inputs, p.eventFP)
	if err != nil {
		return nil, err
	}
	p.key = key
	switch {
	case s.lastOK == nil || s.lastOK.Contract != d.contract[n.ID]:
		p.wake = receipt.Wake{Source: receipt.Boot, Refs: []string{}}
	case len(events) > 0:
		p.wake = receipt.Wake{Source: receipt.External, Refs: []string{p.eventFP}}
	case d.ticks[n.ID] && key == s.lastOK.Memo:
		p.wake = receipt.Wake{Source: receipt.Self, Refs: []string{}}
	default:
		p.wake = receipt.Wake{Source: receipt.Input, Refs: refs}
		if refs == nil {
			p.wake.Refs = []string{}
		}
	}
	p.render = s.lastOK == nil || key != s.lastOK.Memo
	if !p.render && d.ticks[n.ID] && n.Kind != spec.KindGateway {
		// A self recheck of a truth whose valid_until has come: time
		// became material, so the node renders though its key did not
		// move (its prior truth shows what lapsed).
		lapsed, err := d.lapsed(n.ID)
		if err != nil {
			return nil, err
		}
		p.render = lapsed
	}
	if len(p.absent) > 0 && s.last != nil && s.last.Status == receipt.Failed && s.last.Memo == key && len(events) == 0 {
		// It failed with these very inputs, one of them absent: it runs
		// again when that producer publishes (or anything else moves).
		p.render = false
		if s.lastOK == nil {
			d.unwoken(n, fmt.Sprintf("%s has no truth to recheck: its render failed with %s absent, and it renders again when that is published", n.Label(), absentList(p.absent)))
			d.settle(n, key)
			return nil, nil
		}
	}
	if n.Kind == spec.KindGateway && len(events) == 0 && !(p.render && d.ticks[n.ID] && s.lastOK != nil) {
		// A gateway renders on arrival: with no event it does not render
		// (before its first one it has no truth, and its subscribers
		// read it as absent). Decided: a wake by hand (a tick) of one
		// whose key moved since its truth (its contract was edited)
		// renders it over its prior truth with no event, as any node's
		// self recheck does when its key moved: the truth the old
		// contract made would else stand until some new event, and the
		// re-wake after a contract bump would skip.
		p.render = false
		if s.lastOK == nil {
			d.unwoken(n, fmt.Sprintf("%s is a gateway that has had no event: it has no truth to recheck, and it renders only on an event (send it one)", n.Label()))
			d.settle(n, key)
			return nil, nil
		}
	}
	if !p.render && len(events) == 0 && !d.ticks[n.ID] {
		d.settle(n, key)
		return nil, nil
	}
	if p.render {
		if _, err := d.truthOf(n.ID); err != nil { // the prior, for the render
			return nil, err
		}
	}
	return p, nil
}

// unwoken records why a node woken by a tick is left no receipt.
func (d *drainer) unwoken(n *graph.Node, why string) {
	if !d.ticks[n.ID] {
		return
	}
	if d.res.Unwoken == nil {
		d.res.Unwoken = map[string]string{}
	}
	d.res.Unwoken[n.ID] = why
}

// absentList names the absent inputs of a plan, sorted: "`a` (of p)".
func absentList(absent map[string]string) string {
	var out []string
	for in, by := range absent {
		out = append(out, fmt.Sprintf("`%s` (of %s)", in, by))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// AbsentFingerprint stands for an absent input in a memo key: no
// fingerprint of a value equals it, so the key moves when the producer
// publishes.
const AbsentFingerprint = "absent"

// nodeName names a node as a reader would: its name, else its id.
func nodeName(n *graph.Node) string {
	if n.Name != "" {
		return n.Name
	}
	return n.ID
}

// contractSections are the sections whose text moves a contract.
var contractSections = []string{"requires", "maintains", "continuity", "execution"}

// errRenderTimeout is the cause of a render's context ended by its bound.
var errRenderTimeout = fmt.Errorf("the render timeout passed")

func (d *drainer) render(ctx context.Context, p *plan) (ans *Answer, err error) {
	if d.o.Rendering != nil {
		var end func(error)
		ctx, end = d.o.Rendering(ctx, p.n)
		defer func() { end(err) }()
	}
	r, err := d.o.Renderer(p.n)
	if err != nil {
		return nil, err
	}
	if err := Inputs(d.g, p.n, p.values); err != nil {
		return nil, err
	}
	if err := Events(p.n, p.events); err != nil {
		return nil, err
	}
	s := d.st[p.n.ID]
	diff := map[string]any{}
	for k, fp := range p.inputs {
		old := ""
		if s.lastOK != nil {
			old = s.lastOK.Inputs[k]
		}
		if old != fp {
			diff[k] = map[string]any{"from": old, "to": fp}
		}
	}
	rctx := ctx
	if limit := d.o.renderTimeout(); limit > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeoutCause(ctx, limit, errRenderTimeout)
		defer cancel()
	}
	start := d.now()
	ans, err = r.Render(rctx, &Request{Node: p.n, Inputs: p.values, Absent: p.absent, Prior: s.truth, Events: p.events, Diff: diff, Drain: d.res.Drain})
	if ans != nil {
		ans.Cost.DurationMS = d.now().Sub(start).Milliseconds()
	}
	if err != nil && ctx.Err() == nil && context.Cause(rctx) == errRenderTimeout {
		// Stopped at the bound (a renderer that answered all the same
		// gave its whole truth, and it is taken).
		return ans, &RenderTimeoutError{Node: p.n.ID, Pos: p.n.Spec.File.Position(p.n.Spec.Pos), Limit: d.o.renderTimeout(), Err: err}
	}
	if err != nil {
		return ans, err
	}
	truth, err := canon.Normalize(ans.Truth)
	if err != nil {
		return ans, fmt.Errorf("its truth is not JSON: %v", err)
	}
	if _, ok := truth.(map[string]any); !ok {
		return ans, fmt.Errorf("%s: its truth must be a JSON object, got %s%s: answer one object of the fields its ### Maintains declares (%s)", truthPos(p.n), graph.KindName(truth), textHint(truth), fieldList(p.n))
	}
	ans.Truth = truth
	if err := canon.Exact(truth); err != nil {
		return ans, fmt.Errorf("%s: its truth cannot be kept as given: %v", truthPos(p.n), err)
	}
	if err := Fields(p.n, truth); err != nil {
		return ans, err
	}
	if err := SubscribedFacets(d.g, p.n, truth); err != nil {
		return ans, err
	}
	if err := Freshness(p.n, truth); err != nil {
		return ans, err
	}
	if err := Postconditions(ctx, p.n, truth); err != nil {
		return ans, err
	}
	return ans, nil
}

// truthPos is where n's ### Maintains is (its spec's start without one).
func truthPos(n *graph.Node) diag.Position {
	if n.Spec.Truth != nil {
		return n.Spec.File.Position(n.Spec.Truth.Pos)
	}
	return n.Spec.File.Position(n.Spec.Pos)
}

// fieldList names n's declared fields, for a message.
func fieldList(n *graph.Node) string {
	if len(n.Fields) == 0 {
		return "it declares none"
	}
	return strings.Join(n.Fields, ", ")
}

// commit writes p's receipt (and, for a render, its version and
// published files).
func (d *drainer) commit(p *plan) error {
	n, s := p.n, d.st[p.n.ID]
	r := &receipt.Receipt{Node: n.ID, Drain: d.res.Drain, Seq: d.seq + 1, Contract: d.contract[n.ID], Wake: p.wake,
		Inputs: p.inputs, Events: p.eventFP, Memo: p.key}
	if s.last != nil {
		r.Prev = s.last.Hash
		r.Version = s.last.Version
		r.Facets = s.last.Facets
	}
	var truth any
	switch {
	case !p.render:
		r.Status = receipt.Skipped
		r.Memo = s.lastOK.Memo
	case p.err != nil:
		// The failed attempt's key is recorded; the stale scan compares
		// against the last non-failed receipt, so it is retried.
		r.Status, r.Reason = receipt.Failed, p.err.Error()
	default:
		r.Status = receipt.Rendered
		truth = p.ans.Truth
		v, err := d.o.Store.PutVersion(n.ID, truth)
		if err != nil {
			return err
		}
		r.Version = v
		facets, err := d.facetFPs(n, truth)
		if err != nil {
			return err
		}
		r.Diff = diff(s.last, facets, s.truth, truth)
		r.Facets = facets
	}
	if p.ans != nil {
		r.Cost, r.Run = p.ans.Cost, p.ans.Run
	}
	if err := r.Seal(d.o.SignKey); err != nil {
		return err
	}
	if err := d.o.Store.Append(n.ID, r); err != nil {
		return err
	}
	if r.Status == receipt.Rendered {
		if err := d.o.Store.Publish(n.ID, truth, n.Facets); err != nil {
			return err
		}
		s.truth, s.loaded = truth, true
		s.lastOK = r
	}
	s.last = r
	s.scan = nil
	if r.Status != receipt.Failed {
		// Settled by this receipt: the next drain finds p.key again
		// unless something it reads moves.
		d.settle(n, p.key)
	}
	d.seq++
	d.fired[n.ID] = r
	d.sum(r)
	if d.o.Committed != nil {
		d.o.Committed(r)
	}
	return nil
}

func (d *drainer) sum(r *receipt.Receipt) {
	res := d.res
	res.Receipts = append(res.Receipts, r)
	switch r.Status {
	case receipt.Rendered:
		res.Rendered++
	case receipt.Skipped:
		res.Skipped++
	case receipt.Failed:
		res.Failed++
	}
	res.Requests += r.Cost.Requests
	res.TokensIn += r.Cost.TokensIn
	res.TokensOut += r.Cost.TokensOut
	res.Programs += r.Cost.Programs
}

// facetFPs fingerprints each facet of truth and the whole.
func (d *drainer) facetFPs(n *graph.Node, truth any) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range append([]string{graph.Atomic}, n.Facets...) {
		fp, err := canon.Fingerprint(part(truth, f), Immaterial(d.g, n, f))
		if err != nil {
			return nil, err
		}
		out[f] = fp
	}
	return out, nil
}

// diff lists the facets whose fingerprints moved and the top-level fields
// whose values changed.
func diff(last *receipt.Receipt, facets map[string]string, prior, truth any) receipt.Diff {
	var df receipt.Diff
	for f, fp := range facets {
		if last == nil || last.Facets[f] != fp {
			df.Moved = append(df.Moved, f)
		}
	}
	sort.Strings(df.Moved)
	pm, _ := prior.(map[string]any)
	tm, _ := truth.(map[string]any)
	keys := map[string]bool{}
	for k := range pm {
		keys[k] = true
	}
	for k := range tm {
		keys[k] = true
	}
	for k := range keys {
		a, _ := canon.Marshal(pm[k])
		b, _ := canon.Marshal(tm[k])
		_, inA := pm[k]
		_, inB := tm[k]
		if inA != inB || string(a) != string(b) {
			df.Fields = append(df.Fields, k)
		}
	}
	sort.Strings(df.Fields)
	return df
}

// textHint says what a truth that is text holds: its start, and, when a
// later line opens a JSON object, that the program printed something
// before it (output that is not one JSON value is taken as text).
func textHint(truth any) string {
	t, ok := truth.(string)
	if !ok {
		return ""
	}
	start := t
	if r := []rune(start); len(r) > 60 {
		start = string(r[:60]) + "..."
	}
	hint := fmt.Sprintf(" (%q)", start)
	if i := strings.Index(t, "\n{"); i >= 0 {
		hint += "; a line of text comes before a JSON object (a program writes its logs to stderr, and its truth alone to stdout)"
	}
	return hint
}
