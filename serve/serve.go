// Package serve keeps a world model current: a long-running reconciler
// over one project graph and its state directory. Triggers (a gateway's
// events, a manual wake of any node) are written to a durable queue
// before they are acknowledged, and drains of the graph run one at a
// time; the triggers that arrive during a drain are coalesced into the
// next one. With Options.Reload, a drain begins by asking whether a file
// the graph was loaded from changed (on Linux by reading the watches put
// on the project's directories, else by a walk that stats every file:
// reload.go, "The change check") and, when one did, serves the graph
// loaded from them again (a failed load keeps the one served before).
//
// Main types: Server, Options, Queue, Outcome, Metrics. Entry points: New,
// (*Server).Trigger, (*Server).Run.
package serve

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/spec/cadence"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// Options configure a Server.
type Options struct {
	Graph *graph.Graph
	Store *store.Store
	// Drain is the prepared drain of Graph (drain.Prepare): what renders
	// each node, how that is named in its contract, and the trace each
	// drain is exported as when its Spans are set.
	Drain       *drain.Prepared
	MaxParallel int
	SignKey     ed25519.PrivateKey
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Drained is called after each finished drain, with its outcome.
	Drained func(*Outcome)
	// Locked says the caller holds the state directory's writer lock
	// (store.Lock), taken before it read anything; New takes it
	// otherwise.
	Locked bool
	// CallerInputs give, to every drain, the inputs nothing in the
	// project maintains (drain.Input.CallerInputs).
	CallerInputs map[string]map[string]any
	// Reload, when set, loads the graph again from its files, with the
	// same bindings and options: before each drain the server checks the
	// files the graph was loaded from (by its watches, or StampsOf) and,
	// when any was added, removed or changed, serves what Reload gives.
	// An error keeps the graph served before (its message names the
	// file and line). Reload reads the spec files through specs
	// (graph.LoadWith) when it is not nil: it gives the parse of each file
	// unchanged since the served graph read it, and reads the others.
	Reload func(specs *specgraph.Graph) (*Reloaded, error)
	// EditSettle is how long Run waits, once the watches report an
	// edit, before it looks and queues a drain for it (0: 100ms;
	// negative: no wait).
	EditSettle time.Duration
}

// Outcome is what a drain did, as GET /drains/ID answers it.
type Outcome struct {
	Drain int `json:"drain"`
	// StoreDrain is the store's drain number its receipts carry (0 when
	// it left none).
	StoreDrain int       `json:"store_drain"`
	Triggers   []Trigger `json:"triggers"`
	// Events maps each gateway given events to the fingerprint of the
	// events delivered (its receipt's "events").
	Events   map[string]string `json:"events,omitempty"`
	Receipts []Ref             `json:"receipts"`
	Rendered int               `json:"rendered"`
	Skipped  int               `json:"skipped"`
	Failed   int               `json:"failed"`
	Tokens   int               `json:"tokens"`
	// TokensIn and TokensOut split Tokens into the model's input and
	// output.
	TokensIn  int `json:"tokens_in"`
	TokensOut int `json:"tokens_out"`
	// Redelivered counts the held events of failed gateway renders this
	// drain delivered again.
	Redelivered int `json:"redelivered,omitempty"`
	// Reload is "reloaded" when the project's files changed and the drain
	// ran on the graph loaded from them again, or why that load failed
	// and the graph served before was kept ("" when nothing changed).
	Reload string `json:"reload,omitempty"`
	// Held names, for each gateway whose render failed in this drain and
	// that holds events now, the fingerprint of the oldest it holds: every
	// later drain delivers them again until it renders, so one it never
	// accepts fails them all (prose receipts held lists them, prose
	// receipts set-aside ends one's hold).
	Held map[string]string `json:"held,omitempty"`
	// Stale is set on every drain that ran on a graph the project's
	// files no longer give: a reload failed since the last that
	// succeeded. It says why that reload failed, so a drain after the
	// one whose Reload said it does not serve the old graph in silence.
	Stale string `json:"stale,omitempty"`
	// Unwoken maps each node a trigger without an event woke by hand in
	// this drain that did nothing, as it has no truth to recheck (a
	// gateway that has had no event), to why (reconcile.Result.Unwoken):
	// the wake was asked for and not done, so it is said, not dropped.
	Unwoken map[string]string `json:"unwoken,omitempty"`
	// HeldGone maps each gateway the served graph lacks (its file removed
	// while events were held for it) to the number of events held for it,
	// which no drain delivers (HeldGone). Decided: said once per process,
	// in the first drain that finds them (prose serve also says it on
	// stderr at start, and prose run DIR at each run), since every drain
	// would say the same until the file is back or each hold is ended
	// (prose receipts set-aside).
	HeldGone map[string]int `json:"held_gone,omitempty"`
	// Edited says an edit of the project's files asked for this drain
	// (Server.Run, Queue.EnqueueEdit).
	Edited bool      `json:"edited,omitempty"`
	Error  string    `json:"error,omitempty"`
	Start  time.Time `json:"start"`
	MS     int64     `json:"duration_ms"`
}

// Trigger is one acknowledged trigger a drain answered.
type Trigger struct {
	Node string `json:"node"`
	FP   string `json:"fp,omitempty"`
	Dup  bool   `json:"duplicate,omitempty"`
	Self bool   `json:"self,omitempty"`
}

// Ref names a receipt a drain committed.
type Ref struct {
	Node   string         `json:"node"`
	Status receipt.Status `json:"status"`
	Hash   string         `json:"hash"`
}

// Server is a running reconciler over one graph.
type Server struct {
	o      Options
	q      *Queue
	unlock func()
	// kept is what each drain keeps for the next (the graph and the
	// lock are the server's for its life).
	kept  reconcile.Kept
	wake  chan struct{}
	plans map[string]*cadence.Plan
	// gmu guards the graph, its drain, caller inputs and plans, which a
	// reload replaces between drains while triggers read them.
	gmu sync.RWMutex
	// reusable says the served graph was read under the watches in
	// place, so a reload may take its parse of a file no event named.
	reusable bool
	// movedBeforeWatch says a file the served graph was loaded from
	// changed (or a spec file came) between that load and New's
	// stamps: the first look reports a change.
	movedBeforeWatch bool
	// stamps are those of the files the served graph was loaded from
	// (with Options.Reload), kept current by watch (nil where there is
	// none: every look walks). followed is the count of the graph's spec
	// graph's loads (specgraph.Graph.Loads) that watch follows; walks
	// counts the looks that walked.
	stamps   Stamps
	watch    *watcher
	followed int
	walks    int
	// lookedStale says Run made its start's stale scan (queueStale);
	// startStale is what it found.
	lookedStale bool
	startStale  []reconcile.Staleness
	// unsaid is what a reload did that an interrupted drain did not
	// report.
	unsaid string
	// stale is why the last reload failed, "" when the last succeeded
	// or none was tried (guarded by gmu: Stale reads it).
	stale string
	// started is when New ran: a wall-clock schedule of a node that never
	// fired counts from it.
	started time.Time
	M       Metrics

	// saidGone are the gateways not served whose held events an
	// outcome's HeldGone has named (said once per process).
	saidMu   sync.Mutex
	saidGone map[string]bool

	cmu        sync.Mutex
	connectors map[string]ConnectorState

	// life guards closed and the count of the Run and DrainQueued calls
	// in progress (active); closing ends when Close begins, and with it
	// the context each of those calls drains under.
	life    sync.Mutex
	closed  bool
	active  sync.WaitGroup
	closing context.Context
	stop    context.CancelFunc
}

// ConnectorState is what GET /status says of a gateway's connector.
type ConnectorState struct {
	Kind   string `json:"kind"`
	Cursor string `json:"cursor,omitempty"`
	// Events counts the events it delivered, Duplicates those it knew by
	// id (each a wake its gateway skips).
	Events     int `json:"events"`
	Duplicates int `json:"duplicates"`
	// Error is its last poll's error ("" after a good poll), Retry when it
	// polls again after backing off.
	Error string    `json:"error,omitempty"`
	Retry time.Time `json:"retry,omitempty"`
}

// SetConnector records the state of gateway's connector.
func (s *Server) SetConnector(gateway string, st ConnectorState) {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	if s.connectors == nil {
		s.connectors = map[string]ConnectorState{}
	}
	s.connectors[gateway] = st
}

// Connectors is each connector's state, by gateway.
func (s *Server) Connectors() map[string]ConnectorState {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	out := map[string]ConnectorState{}
	for k, v := range s.connectors {
		out[k] = v
	}
	return out
}

// Errors of Trigger that are the caller's.
var (
	ErrNoNode     = errors.New("no such node")
	ErrNotGateway = errors.New("only a gateway takes events (post no body for a manual wake)")
	ErrBadEvent   = errors.New("not a JSON event")
	// ErrEventShape is an event that does not fit the object its
	// gateway's ### Receives declares (graph.Node.CheckEvent); it is an
	// ErrBadEvent too.
	ErrEventShape = errors.New("event refused")
	// ErrClosed is what Run and DrainQueued return once Close was called.
	ErrClosed = errors.New("serve: the server is closed")
)

// NoNode is the ErrNoNode of a trigger naming node, with the node it may
// misspell.
func NoNode(g *graph.Graph, node string) error {
	if best := graph.Nearest(node, g.Names()); best != "" {
		return fmt.Errorf("%w %q; did you mean %s?", ErrNoNode, node, best)
	}
	return fmt.Errorf("%w %q", ErrNoNode, node)
}

// EventShapeError is an event refused because it does not fit the
// object its gateway's ### Receives declares: errors.Is it ErrEventShape
// and ErrBadEvent.
type EventShapeError struct{ Err error }

func (e EventShapeError) Error() string { return "event refused: " + e.Err.Error() }

// Is reports whether target is ErrEventShape or ErrBadEvent.
func (e EventShapeError) Is(target error) bool {
	return target == ErrEventShape || target == ErrBadEvent
}

// New opens the state directory's queue and locks the directory against
// another serve or drain.
func New(o Options) (*Server, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Drain == nil || o.Drain.Graph != o.Graph {
		return nil, errors.New("serve: Options.Drain is not a drain of Options.Graph")
	}
	unlock := func() {}
	if !o.Locked {
		var err error
		if unlock, err = store.Lock(context.Background(), o.Store.Dir, store.LockOptions{Command: "prose serve"}); err != nil {
			return nil, err
		}
	}
	if b, err := filekind.ReadFile(TemporalMark(o.Store.Dir)); err == nil {
		unlock()
		return nil, fmt.Errorf("%s is served on Temporal (%s): its queue is that workflow's; post to its prose serve, or remove %s to serve it here", o.Store.Dir, strings.TrimSpace(string(b)), TemporalMark(o.Store.Dir))
	}
	q, err := OpenQueue(o.Store.Dir)
	if err != nil {
		unlock()
		return nil, err
	}
	// The lock is held as long as the server lives: the drains trust
	// what the store checked and wrote itself (store's drain index).
	o.Store.HoldLock()
	s := &Server{o: o, q: q, unlock: unlock, wake: make(chan struct{}, 1), started: o.Now(), saidGone: map[string]bool{}}
	s.closing, s.stop = context.WithCancel(context.Background())
	if s.plans, err = plansOf(o.Graph); err != nil {
		s.Close()
		return nil, err
	}
	if o.Reload != nil {
		s.watch, s.stamps = newWatcher(o.Graph)
		s.movedBeforeWatch = movedSinceLoad(o.Graph, s.stamps)
		s.follow()
	}
	s.M.init()
	return s, nil
}

// TemporalMark is the file that says a state directory is served on
// Temporal (prose serve --engine temporal writes it): a local serve or
// drain of it would bypass that workflow's queue, so New refuses.
func TemporalMark(stateDir string) string {
	return filepath.Join(stateDir, ".serve", "temporal.txt")
}

// Close releases the queue, the change check's watches and the lock.
// Decided: it may be called while Run or DrainQueued runs (in another
// goroutine, never from Options.Drained): it ends their context, as a
// cancel of the caller's would (the drain being run commits no half of
// a level and its triggers stay queued for the next start), waits for
// them to return, and only then closes what they use. Run and
// DrainQueued called after it return ErrClosed; a second Close does
// nothing.
func (s *Server) Close() error {
	s.life.Lock()
	if s.closed {
		s.life.Unlock()
		return nil
	}
	s.closed = true
	s.life.Unlock()
	s.stop()
	s.active.Wait()
	s.watch.close()
	s.watch = nil
	err := s.q.Close()
	s.unlock()
	return err
}

// Graph is the served graph.
func (s *Server) Graph() *graph.Graph { return s.graph() }

// Store is the served state directory.
func (s *Server) Store() *store.Store { return s.o.Store }

// Trigger queues event (JSON; nil for a manual wake) for node durably and
// returns the drain that will answer it. A malformed event is an error and
// queues nothing.
func (s *Server) Trigger(node string, event []byte) (drain int, dup bool, err error) {
	g := s.graph()
	n := g.Node(node)
	if n == nil {
		return 0, false, NoNode(g, node)
	}
	if event != nil && n.Kind != spec.KindGateway {
		return 0, false, fmt.Errorf("%s is a %s: %w", node, n.Kind, ErrNotGateway)
	}
	if event != nil {
		v, err := canon.DecodeEvent(event)
		if err != nil {
			return 0, false, fmt.Errorf("%w: %v", ErrBadEvent, err)
		}
		if err := n.CheckEvent(v); err != nil {
			return 0, false, EventShapeError{err}
		}
	}
	drain, dup, err = s.q.Enqueue(n.ID, event)
	if err != nil {
		return 0, false, err
	}
	s.M.Triggered(dup)
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return drain, dup, nil
}

// Drain reports what is known of a drain id.
func (s *Server) Drain(id int) (string, *Outcome) { return s.q.State(id) }

// WriteMetrics prints the metrics (Prometheus text) with the queue
// depth.
func (s *Server) WriteMetrics(w io.Writer) { s.M.Write(w, s.Depth()) }

// Depth is the number of queued triggers not yet answered.
func (s *Server) Depth() int { return s.q.Depth() }

// enter counts a Run or DrainQueued in progress and gives it a context
// that Close ends too; leave is called when it returns.
func (s *Server) enter(ctx context.Context) (_ context.Context, leave func(), _ error) {
	s.life.Lock()
	defer s.life.Unlock()
	if s.closed {
		return nil, nil, ErrClosed
	}
	s.active.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(s.closing, cancel)
	return ctx, func() { unhook(); cancel(); s.active.Done() }, nil
}

// Run drains whatever is queued, then waits for triggers until ctx ends
// (or Close is called). A drain interrupted by ctx commits no half of a
// level; its triggers stay queued for the next Run. Run returns nil when
// ctx ends.
func (s *Server) Run(ctx context.Context) error {
	ctx, leave, err := s.enter(ctx)
	if err != nil {
		return err
	}
	defer leave()
	// An edit between the graph's load and New (movedBeforeWatch) is
	// one no watch reports.
	if s.movedBeforeWatch {
		if err := s.queueEdit(); err != nil {
			return err
		}
	}
	if err := s.queueStale(); err != nil {
		return err
	}
	for {
		if _, err := s.WakeDue(); err != nil {
			return err
		}
		if err := s.drainQueued(ctx); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		// Sleep until the soonest node is due, rechecking at least each
		// minute so a clock that jumps is noticed.
		wait := time.Minute
		if due, ok := s.NextDue(); ok {
			if d := due.Sub(s.o.Now()); d < wait {
				wait = max(d, 0)
			}
		}
		t := time.NewTimer(wait)
		edits, stopEdits := s.editsReady()
		look := false
		select {
		case <-ctx.Done():
			t.Stop()
			stopEdits()
			return nil
		case <-s.wake:
		case <-t.C:
			look = true
		case <-edits:
			look = true
			s.settle(ctx)
		}
		t.Stop()
		stopEdits()
		if look {
			if err := s.queueEdit(); err != nil {
				return err
			}
		}
	}
}

// An edit is a trigger (decided). Upstream counts a change to the
// source among the events that wake the world: a contract edited,
// added or removed while serve runs is acted on when it is saved, not
// at the next event. On Linux an edit the watches report wakes Run,
// which waits Options.EditSettle for an editor's writes to end, then
// looks (as before a drain) and, when a file the graph is loaded from
// changed, queues a drain (Queue.EnqueueEdit) that loads the graph
// again and checks every node: a contract that moved renders its node,
// a route it declares is served. Elsewhere, or with the watches lost,
// the look is made when Run wakes by its timer (at least once a
// minute). An edit made while serve was not running is looked for as Run
// starts (queueStale).

// A source moved while nothing ran is a trigger too (decided): an edit
// made while serve was not running, or before a drain that was stopped
// took it, left truths that no longer follow from the project's files
// (a contract, prose.wiring.yaml, a node added). The first Run of a
// Server looks, before it waits for anything, with the stale scan a
// drain begins with (reconcile.Stale: it renders and writes nothing)
// and, when a node is stale, queues a drain as an edit does
// (Queue.EnqueueEdit), so the truths served are brought up to date
// without waiting for an event; with none stale it queues nothing, nor
// for a state directory never drained (it shows no truth as current: its
// first drain is the first trigger's, as it was). A drain already queued
// does the same work, so then nothing is looked at; a look that fails
// queues the drain, which says why.

// queueStale is that look, made once per Server.
func (s *Server) queueStale() error {
	if s.lookedStale {
		return nil
	}
	s.lookedStale = true
	if s.q.Depth() > 0 {
		return nil
	}
	s.gmu.RLock()
	p, callers := s.o.Drain, s.o.CallerInputs
	s.gmu.RUnlock()
	stale, err := p.Stale(drain.Input{Store: s.o.Store, CallerInputs: callers, SignKey: s.o.SignKey, Now: s.o.Now})
	s.gmu.Lock()
	s.startStale = stale
	s.gmu.Unlock()
	if err == nil && (len(stale) == 0 || s.neverDrained(stale)) {
		return nil
	}
	_, _, err = s.q.EnqueueEdit()
	return err
}

// neverDrained reports whether stale are all nodes with no receipt in a
// state directory that holds none: a world never drained shows no truth
// as current, and its first drain stays the first trigger's.
func (s *Server) neverDrained(stale []reconcile.Staleness) bool {
	for _, st := range stale {
		if !st.New {
			return false
		}
	}
	nodes, err := s.o.Store.Nodes()
	return err == nil && len(nodes) == 0
}

// StartStale is what the first Run found stale before it drained (nil
// when nothing was, or before Run).
func (s *Server) StartStale() []reconcile.Staleness {
	s.gmu.RLock()
	defer s.gmu.RUnlock()
	return s.startStale
}

// editsReady is a channel that fires when the watches have something
// to report (nil when the graph is not reloaded or nothing watches),
// and the func that stops waiting for it.
func (s *Server) editsReady() (<-chan struct{}, func()) {
	if s.o.Reload == nil || s.watch == nil {
		return nil, func() {}
	}
	return s.watch.ready()
}

// settle waits Options.EditSettle (or until ctx ends).
func (s *Server) settle(ctx context.Context) {
	d := s.o.EditSettle
	if d == 0 {
		d = defaultEditSettle
	}
	if d < 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// defaultEditSettle is how long Run lets an edit's writes go on before
// it looks: an editor saves in steps (a write, a rename, a chmod).
const defaultEditSettle = 100 * time.Millisecond

// queueEdit looks for an edit of the files the served graph was loaded
// from and, when one was made, queues a drain for it. The look's
// answer is kept for the reload before that drain.
func (s *Server) queueEdit() error {
	if s.o.Reload == nil || !s.changed() {
		return nil
	}
	s.movedBeforeWatch = true
	_, _, err := s.q.EnqueueEdit()
	return err
}

// DrainQueued runs the queued drains, oldest first, until none is left
// (or ctx ends, or Close is called: the interrupted drain stays queued).
func (s *Server) DrainQueued(ctx context.Context) error {
	ctx, leave, err := s.enter(ctx)
	if err != nil {
		return err
	}
	defer leave()
	return s.drainQueued(ctx)
}

func (s *Server) drainQueued(ctx context.Context) error {
	for {
		id, es := s.q.Take()
		if id == 0 {
			return nil
		}
		reload := s.reload(es)
		if reload == "" {
			reload = s.unsaid
		}
		s.unsaid = ""
		o, err := s.drain(ctx, id, es)
		o.Reload = reload
		o.Stale = s.Stale()
		if s.o.Reload != nil {
			s.follow()
		}
		if ctx.Err() != nil {
			// Said by the drain that runs it again.
			s.unsaid = reload
			s.q.Release()
			return nil
		}
		s.saidMu.Lock()
		for n := range o.HeldGone {
			s.saidGone[n] = true
		}
		s.saidMu.Unlock()
		holds := Holds
		if err != nil {
			if o.Error != "" { // what the drain said besides
				o.Error = err.Error() + "; " + o.Error
			} else {
				o.Error = err.Error()
			}
			holds = HoldsAfterError
		}
		if err := s.hold(id, es, o, holds); err != nil {
			return err
		}
		if err := s.q.Finish(id, o); err != nil {
			return err
		}
		s.M.Drained(o)
		if s.o.Drained != nil {
			s.o.Drained(o)
		}
	}
}

// hold keeps the events of each gateway whose render failed in drain
// id for the next drains, and releases those of each gateway that
// rendered or skipped, as holds (Holds, or HoldsAfterError for a drain
// that ended in an error) decides.
func (s *Server) hold(id int, es []Entry, o *Outcome, holds func(*graph.Graph, []Entry, *Outcome, map[string][]Entry) []Hold) error {
	held := s.q.HeldAll()
	for _, h := range holds(s.o.Graph, es, o, held) {
		if h.Release {
			if err := s.q.Unhold(id, h.Node); err != nil {
				return err
			}
			continue
		}
		if err := s.q.Hold(id, h.Node, h.Keep); err != nil {
			return err
		}
		if kept := s.q.Held(h.Node); len(kept) > 0 {
			if o.Held == nil {
				o.Held = map[string]string{}
			}
			o.Held[h.Node] = kept[0].FP
		}
	}
	return nil
}

// Hold is what a finished drain does with a gateway's held events: keep
// more of them (its render failed) or release them all (it rendered or
// skipped).
type Hold struct {
	Node    string
	Keep    []Entry
	Release bool
}

// Holds decides, for each gateway that left a receipt in drain outcome
// o (of entries es), what becomes of its held events (held, by node), in
// graph order. A failed gateway keeps the events es gave it that it does
// not hold yet. Its work is in proportion to the receipts and the held
// events, not to the graph.
func Holds(g *graph.Graph, es []Entry, o *Outcome, held map[string][]Entry) []Hold {
	status := map[string]receipt.Status{}
	for _, r := range o.Receipts {
		status[r.Node] = r.Status
	}
	var nodes []*graph.Node
	for id, st := range status {
		if n := g.Node(id); n != nil && n.ID == id && n.Kind == spec.KindGateway && st != "" {
			nodes = append(nodes, n)
		}
	}
	// The graph's order: by height, then by id.
	sort.Slice(nodes, func(i, j int) bool {
		if nodes[i].Height != nodes[j].Height {
			return nodes[i].Height < nodes[j].Height
		}
		return nodes[i].ID < nodes[j].ID
	})
	var out []Hold
	for _, n := range nodes {
		switch st := status[n.ID]; {
		case st == receipt.Failed:
			has := map[string]bool{}
			for _, h := range held[n.ID] {
				has[h.FP] = true
			}
			var keep []Entry
			for _, e := range es {
				if e.Node == n.ID && e.Event != nil && !e.Dup && !has[e.FP] {
					keep = append(keep, e)
				}
			}
			out = append(out, Hold{Node: n.ID, Keep: keep})
		case len(held[n.ID]) > 0:
			out = append(out, Hold{Node: n.ID, Release: true})
		}
	}
	return out
}

// HoldsAfterError is Holds for a drain that ended in an error (a store
// found damaged, a step that failed): a gateway that left a receipt is
// decided as Holds decides, and one given events that left none keeps
// them, as a failed render does (decided: an event acknowledged is never
// consumed by a drain that did not deliver it; the next drain delivers
// it, and the same event sent again meanwhile is a duplicate of one that
// is held, not of one delivered). A trigger for a node the graph lacks is
// not held (the drain's error says it cannot be delivered).
func HoldsAfterError(g *graph.Graph, es []Entry, o *Outcome, held map[string][]Entry) []Hold {
	out := Holds(g, es, o, held)
	left := map[string]bool{}
	for _, r := range o.Receipts {
		left[r.Node] = true
	}
	keep := map[string][]Entry{}
	var nodes []*graph.Node
	for _, e := range es {
		if e.Event == nil || e.Dup || left[e.Node] {
			continue
		}
		n := g.Node(e.Node)
		if n == nil || n.ID != e.Node || n.Kind != spec.KindGateway {
			continue
		}
		if slices.ContainsFunc(held[e.Node], func(h Entry) bool { return h.FP == e.FP }) ||
			slices.ContainsFunc(keep[e.Node], func(h Entry) bool { return h.FP == e.FP }) {
			continue
		}
		if keep[e.Node] == nil {
			nodes = append(nodes, n)
		}
		keep[e.Node] = append(keep[e.Node], e)
	}
	sort.Slice(nodes, func(i, j int) bool {
		if nodes[i].Height != nodes[j].Height {
			return nodes[i].Height < nodes[j].Height
		}
		return nodes[i].ID < nodes[j].ID
	})
	for _, n := range nodes {
		out = append(out, Hold{Node: n.ID, Keep: keep[n.ID]})
	}
	return out
}

func (s *Server) drain(ctx context.Context, id int, es []Entry) (o *Outcome, err error) {
	held := s.q.HeldAll()
	var events map[string][]any
	var ticks []string
	o, events, ticks, err = Deliver(s.o.Graph, id, es, held)
	o.Start = s.o.Now().UTC()
	if err != nil {
		return o, err
	}
	if gone := goneNodes(s.o.Graph, es); len(gone) > 0 {
		// Decided: a trigger for a node the served graph lacks (its file
		// removed while serve was down, the queue kept) cannot be
		// delivered; the drain delivers the others and says so, in its
		// error, rather than drop it in silence.
		for _, n := range gone {
			delete(events, n)
			delete(o.Events, n)
			ticks = slices.DeleteFunc(ticks, func(t string) bool { return t == n })
		}
		if len(o.Events) == 0 {
			o.Events = nil
		}
		defer func() {
			o.Error = fmt.Sprintf("node %s, woken by a queued trigger, is not in the project: its trigger is not delivered (restore the node's file and trigger it again)", strings.Join(gone, ", "))
		}()
	}
	s.saidMu.Lock()
	for n := range s.saidGone {
		if m := s.o.Graph.Node(n); m != nil && m.ID == n {
			delete(s.saidGone, n) // back: said again should it go again
		}
	}
	for n, count := range HeldGone(s.o.Graph, held) {
		if !s.saidGone[n] {
			if o.HeldGone == nil {
				o.HeldGone = map[string]int{}
			}
			o.HeldGone[n] = count
		}
	}
	s.saidMu.Unlock()
	var mu sync.Mutex
	res, err := s.o.Drain.Run(ctx, drain.Input{
		Store: s.o.Store, Events: events, Ticks: ticks, MaxParallel: s.o.MaxParallel, SignKey: s.o.SignKey, Now: s.o.Now,
		Kept:         &s.kept,
		CallerInputs: s.o.CallerInputs,
		Committed: func(r *receipt.Receipt) {
			mu.Lock()
			o.Receipts = append(o.Receipts, Ref{Node: r.Node, Status: r.Status, Hash: r.Hash})
			mu.Unlock()
		},
	})
	if res != nil {
		o.StoreDrain = res.Drain
		o.Rendered, o.Skipped, o.Failed = res.Rendered, res.Skipped, res.Failed
		o.Tokens = res.TokensIn + res.TokensOut
		o.TokensIn, o.TokensOut = res.TokensIn, res.TokensOut
		for _, e := range es {
			if why, ok := res.Unwoken[e.Node]; ok && e.Event == nil && !e.Self {
				if o.Unwoken == nil {
					o.Unwoken = map[string]string{}
				}
				o.Unwoken[e.Node] = why
			}
		}
	}
	o.MS = s.o.Now().Sub(o.Start).Milliseconds()
	return o, err
}

// goneNodes are the nodes of entries es that g does not serve, sorted,
// each once.
func goneNodes(g *graph.Graph, es []Entry) []string {
	var gone []string
	for _, e := range es {
		if e.Edit {
			continue
		}
		if n := g.Node(e.Node); (n == nil || n.ID != e.Node) && !slices.Contains(gone, e.Node) {
			gone = append(gone, e.Node)
		}
	}
	sort.Strings(gone)
	return gone
}

// HeldGone counts the events held (held, by node) for each node g does
// not serve: no drain delivers them, as Deliver skips them, until the
// node's file is back or each hold is ended (Queue.SetAside). Nil when
// none is.
func HeldGone(g *graph.Graph, held map[string][]Entry) map[string]int {
	var out map[string]int
	for id, hs := range held {
		if n := g.Node(id); (n == nil || n.ID != id) && len(hs) > 0 {
			if out == nil {
				out = map[string]int{}
			}
			out[id] = len(hs)
		}
	}
	return out
}

// Deliver is what drain id delivers: the events held for each gateway
// (held, by node) not among its own entries es, then those of es that
// are not duplicates, by node; and the nodes woken without an event
// (a manual or self wake, a duplicate) that are given none, sorted. It
// returns the drain's outcome as begun (its triggers, redeliveries and
// event fingerprints; Start is the caller's).
func Deliver(g *graph.Graph, id int, es []Entry, held map[string][]Entry) (o *Outcome, events map[string][]any, ticks []string, err error) {
	o = &Outcome{Drain: id, Receipts: []Ref{}}
	events = map[string][]any{}
	tick := map[string]bool{}
	// The events held for a gateway whose render failed come first.
	// A drain run again after a kill may hold its own events (its
	// gateway failed before the kill): they are delivered once, as its
	// own. A duplicate of a held event (the same event sent again while
	// held) delivers nothing itself, so the held one is delivered.
	inDrain := map[string]bool{}
	for _, e := range es {
		if e.Event != nil && !e.Dup {
			inDrain[e.FP] = true
		}
	}
	for id, hs := range held {
		if n := g.Node(id); n == nil || n.ID != id {
			continue
		}
		for _, h := range hs {
			if inDrain[h.FP] {
				continue // drain id is run again after a kill: its own event
			}
			v, err := canon.Decode(h.Event)
			if err != nil {
				return o, nil, nil, err
			}
			events[id] = append(events[id], v)
			o.Redelivered++
		}
	}
	for _, e := range es {
		if e.Edit {
			o.Edited = true
			continue
		}
		o.Triggers = append(o.Triggers, Trigger{Node: e.Node, FP: e.FP, Dup: e.Dup, Self: e.Self})
		if e.Event == nil || e.Dup {
			tick[e.Node] = true
			continue
		}
		v, err := canon.Decode(e.Event)
		if err != nil {
			return o, nil, nil, err
		}
		events[e.Node] = append(events[e.Node], v)
	}
	for n := range tick {
		if len(events[n]) == 0 {
			ticks = append(ticks, n)
		}
	}
	sort.Strings(ticks)
	if len(events) > 0 {
		o.Events = map[string]string{}
		for n, vs := range events {
			fp, err := canon.Fingerprint(vs, nil)
			if err != nil {
				return o, nil, nil, err
			}
			o.Events[n] = fp
		}
	}
	return o, events, ticks, nil
}

// HeldGone counts the events held for each node the served graph lacks
// (package-level HeldGone), for a host to say at start.
func (s *Server) HeldGone() map[string]int {
	s.gmu.RLock()
	g := s.o.Graph
	s.gmu.RUnlock()
	return HeldGone(g, s.q.HeldAll())
}

// Stale says why the graph served is not the one the project's files
// give: a reload failed and none succeeded since ("" when the graph is
// current, or without Options.Reload).
func (s *Server) Stale() string {
	s.gmu.RLock()
	defer s.gmu.RUnlock()
	return s.stale
}

// Status is every node's last receipt (nil for a node with none), by id.
func (s *Server) Status() (map[string]*receipt.Receipt, error) {
	out := map[string]*receipt.Receipt{}
	for _, n := range s.graph().Nodes {
		r, err := s.o.Store.CheckedLast(n.ID) // what the ledger vouches for
		if err != nil {
			return nil, err
		}
		out[n.ID] = r
	}
	return out, nil
}

// due is when node is next due by its plan, from the drains recorded in
// the queue file: the receipts carry no time, the drain that left them
// does. So a restart neither resets a cadence nor fires it twice.
func (s *Server) due(node string, p *cadence.Plan) (time.Time, bool) {
	d, _, ok := s.dueBy(node, p)
	return d, ok
}

// dueBy is due, with the schedule that makes node due then (nil for a
// valid_until lapse).
func (s *Server) dueBy(node string, p *cadence.Plan) (time.Time, cadence.Schedule, bool) {
	fired, self := s.q.Fired(node)
	return DueBy(s.o.Store, node, p, fired, self, s.started)
}

// Due is when node is next due by its plan p: fired and self are the
// starts of the last finished drain that left it a receipt, and that
// woke it by itself (zero when none), started when serving began (a
// node that never fired counts from it), st the store whose published
// truth gives the freshness lapses (valid_until).
func Due(st *store.Store, node string, p *cadence.Plan, fired, self, started time.Time) (time.Time, bool) {
	d, _, ok := DueBy(st, node, p, fired, self, started)
	return d, ok
}

// DueBy is Due, with the schedule that makes node due then
// (cadence.Plan.DueBy; nil when a valid_until lapse alone does).
func DueBy(st *store.Store, node string, p *cadence.Plan, fired, self, started time.Time) (time.Time, cadence.Schedule, bool) {
	if fired.IsZero() && self.IsZero() {
		self = started
	}
	var lapses []time.Time
	if p.Freshness {
		// The truth the ledger vouches for, not truth.json: an edited
		// valid_until would put off the wake. A ledger that does not
		// check gives no lapse; the drain of the next wake names it.
		if v, ok, err := st.CheckedTruth(node); err == nil && ok {
			lapses = cadence.ValidUntil(v)
		}
	}
	return p.DueBy(fired, self, lapses)
}

// ScheduledEvent is the event a gateway is given when its schedule
// (a ### Schedule item, or a cadence of a self-driven Continuity) comes
// due: a cron firing is an external wake of the gateway, like a webhook
// or a trigger by hand, and the gateway renders on it as on any event
// (its program polls its feed); a self wake alone would leave a skipped
// receipt, or nothing at all for a gateway that has had no event.
// Decided, its shape:
//
//	{"schedule": "0,30 9-10 * * *", "at": "2026-12-01T09:30:00Z"}
//
// schedule is the cadence as prose reads it (a cron expression, for a
// time of day or a weekday too; interval words as written: "every 6
// hours", "weekly"; a zone, when one is named, after it in parentheses),
// at the time it came due, RFC 3339 in UTC: the first due time after the
// last wake, so times missed while serve was down collapse into one
// event naming the first of them. prose makes the event, so it is not
// checked against the gateway's ### Receives (a gateway that declares
// one is still woken on its schedule). It is queued as a self wake (the
// schedule counts on from its drain) through the durable queue, and it
// names its due time: queued again for the same firing (a restart before
// the drain that answered it was recorded) it is a duplicate by
// fingerprint, so a firing is delivered once.
func ScheduledEvent(by cadence.Schedule, due time.Time) []byte {
	b, _ := json.Marshal(map[string]string{"schedule": by.String(), "at": due.UTC().Format(time.RFC3339)})
	return b
}

// NextDue is the soonest time a node of the graph wakes itself.
func (s *Server) NextDue() (time.Time, bool) {
	var soon time.Time
	ok := false
	for id, p := range s.plansNow() {
		if d, has := s.due(id, p); has && (!ok || d.Before(soon)) {
			soon, ok = d, true
		}
	}
	return soon, ok
}

// WakeDue queues a self wake of every node due by now (Options.Now) and
// returns their ids, sorted; a gateway due by its schedule is given its
// ScheduledEvent with the wake. Times missed while nothing ran collapse
// into one wake.
func (s *Server) WakeDue() ([]string, error) {
	now := s.o.Now()
	g := s.graph()
	var ids []string
	events := map[string][]byte{}
	for id, p := range s.plansNow() {
		if d, by, ok := s.dueBy(id, p); ok && !d.After(now) {
			ids = append(ids, id)
			if n := g.Node(id); by != nil && n != nil && n.Kind == spec.KindGateway {
				events[id] = ScheduledEvent(by, d)
			}
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		if _, _, err := s.q.EnqueueSelf(id, events[id]); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// plansNow is the cadence plan of each node served now.
func (s *Server) plansNow() map[string]*cadence.Plan {
	s.gmu.RLock()
	defer s.gmu.RUnlock()
	return s.plans
}
