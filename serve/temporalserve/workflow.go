package temporalserve

import (
	"errors"
	"fmt"
	"sort"
	"time"

	tsdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/proselang/prose/internal/activityopts"
	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
)

// Names under which the workflow, its update and queries, and the
// activities are registered.
const (
	WorkflowName  = "prose.Serve"
	TriggerUpdate = "trigger"
	// ShapeUpdate is sent by prose serve --engine temporal as it starts:
	// the graph it loaded (ShapeIn), which the workflow takes when its own
	// shape was taken from another.
	ShapeUpdate = "shape"
	DrainQuery  = "drain"
	DepthQuery  = "depth"
	// OutcomesQuery answers the outcomes of the drains after a number.
	OutcomesQuery = "outcomes"

	ShapeActivity = "prose.serve.Shape"
	BeginActivity = "prose.serve.Begin"
	PlanActivity  = "prose.serve.Plan"
	FireActivity  = "prose.serve.Fire"
	DueActivity   = "prose.serve.Due"
	DueByActivity = "prose.serve.DueBy"
	// ReshapeActivity takes the shape again, from the project as it is
	// now; StaleActivity is the stale look of a start.
	ReshapeActivity = "prose.serve.Reshape"
	StaleActivity   = "prose.serve.Stale"
)

const (
	// maxHistory is the history length past which the workflow continues
	// as new (a drain of one level costs about a dozen events).
	maxHistory = 10000
	// keepOutcomes is how many finished drains GET /drains/ID still
	// answers for.
	keepOutcomes = 1000
	// idleWait bounds a wait with nothing due, so that a cadence added to
	// a spec is noticed within a day.
	idleWait = 24 * time.Hour

	// heartbeat: see package activityopts, whose LostWorkerAttempts
	// bounds the attempts of one step; a step that fails that often ends
	// its drain with the error.
	heartbeat = activityopts.Heartbeat
)

// errWorld is the type of an activity failure no retry fixes (the
// project does not load on the worker).
const errWorld = "prose.serve.world"

// errShape is the type of the failure of a step whose worker's graph is
// not the one the drain was planned on (Shape.FP).
const errShape = "prose.serve.shape"

// World names what a serve workflow keeps current, as paths every worker
// reaches.
type World struct {
	// Project is the project graph's path (what graph.Load takes).
	Project string `json:"project"`
	// State is the state directory (the shared store).
	State string `json:"state"`
	// Slots are the render bindings as --slot writes them.
	Slots       []string `json:"slots,omitempty"`
	MaxParallel int      `json:"max_parallel,omitempty"`
	// SignKey is the file of the key receipts are signed with ("": none).
	SignKey string `json:"sign_key,omitempty"`
	// MaxHistory is the history length past which the workflow
	// continues as new (0: maxHistory; tests make it small).
	MaxHistory int `json:"max_history,omitempty"`
}

// Input is the workflow's input: what it serves, and the state carried
// across Continue-As-New (nil at first).
type Input struct {
	World World  `json:"world"`
	State *State `json:"state,omitempty"`
}

// State is a serve workflow's durable state (see the package comment).
type State struct {
	Next    int                      `json:"next"`
	Pending []serve.Entry            `json:"pending,omitempty"`
	Seen    map[string][]string      `json:"seen,omitempty"`
	Held    map[string][]serve.Entry `json:"held,omitempty"`
	Done    map[int]*serve.Outcome   `json:"done,omitempty"`
	MaxDone int                      `json:"max_done"`
	Fired   map[string]time.Time     `json:"fired,omitempty"`
	Self    map[string]time.Time     `json:"self,omitempty"`
	Started time.Time                `json:"started"`
	Shape   *Shape                   `json:"shape,omitempty"`
	// Want is the fingerprint of the graph a ShapeUpdate gave, until the
	// workflow has taken the shape again (when it differs) and looked for
	// stale nodes; Look says a look is due.
	Want    string                     `json:"want,omitempty"`
	Look    bool                       `json:"look,omitempty"`
	seen    map[string]map[string]bool // Seen, indexed
	running int
}

// Shape is what the workflow knows of the graph: its nodes by height,
// their kinds, whether any has a cadence, and the fingerprint of the
// graph it was taken from (Fingerprint; "" in a shape taken before
// shapes had one).
type Shape struct {
	Levels   [][]string           `json:"levels"`
	Kinds    map[string]spec.Kind `json:"kinds"`
	Cadenced bool                 `json:"cadenced,omitempty"`
	FP       string               `json:"fp,omitempty"`
}

// graph is a graph of the shape's nodes (ids and kinds), for the
// functions of package serve that read no more.
func (sh *Shape) graph() *graph.Graph {
	g := &graph.Graph{}
	for h, l := range sh.Levels {
		for _, id := range l {
			g.Nodes = append(g.Nodes, &graph.Node{ID: id, Kind: sh.Kinds[id], Height: h})
		}
	}
	return g
}

// TriggerIn is a trigger: an event (canonical JSON, its fingerprint) for
// a gateway, or a manual wake (no event).
type TriggerIn struct {
	Node  string `json:"node"`
	Event []byte `json:"event,omitempty"`
	FP    string `json:"fp,omitempty"`
}

// Ack answers a trigger: the drain that will answer it.
type Ack struct {
	Drain     int  `json:"drain"`
	Duplicate bool `json:"duplicate"`
}

// DrainState is what is known of a drain id.
type DrainState struct {
	State   string         `json:"state"`
	Outcome *serve.Outcome `json:"outcome,omitempty"`
}

// Workflow serves one graph until it is cancelled. It is registered as
// WorkflowName.
func Workflow(ctx workflow.Context, in Input) error {
	st := in.State
	if st == nil {
		st = &State{Next: 1, Started: workflow.Now(ctx).UTC()}
	}
	st.index()
	if err := workflow.SetUpdateHandlerWithOptions(ctx, TriggerUpdate,
		func(ctx workflow.Context, in TriggerIn) (Ack, error) {
			// A trigger that comes with the first task waits for the shape;
			// one the shape refuses while it is being taken again waits for
			// the new one.
			if err := workflow.Await(ctx, func() bool { return st.Shape != nil }); err != nil {
				return Ack{}, err
			}
			if st.Want != "" && st.validate(in) != nil {
				if err := workflow.Await(ctx, func() bool { return st.Want == "" }); err != nil {
					return Ack{}, err
				}
			}
			return st.trigger(in)
		},
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, in TriggerIn) error {
			if st.Shape == nil || st.Want != "" {
				return nil
			}
			return st.validate(in)
		}}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandler(ctx, ShapeUpdate, func(ctx workflow.Context, in ShapeIn) (ShapeAck, error) {
		if err := workflow.Await(ctx, func() bool { return st.Shape != nil }); err != nil {
			return ShapeAck{}, err
		}
		ack := ShapeAck{Was: st.Shape.FP, Retake: in.FP != st.Shape.FP}
		if ack.Retake {
			st.Want = in.FP
		}
		st.Look = true
		return ack, nil
	}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, DrainQuery, st.drainState); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, DepthQuery, st.depth); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, OutcomesQuery, st.outcomes); err != nil {
		return err
	}
	// The handlers are set before the first blocking call, so that a
	// trigger sent with the workflow's start finds them.
	if st.Shape == nil {
		if err := workflow.ExecuteActivity(actx(ctx, "shape", time.Minute), ShapeActivity, in.World).Get(ctx, &st.Shape); err != nil {
			return err
		}
	}
	g := st.Shape.graph()
	for {
		if st.Want != "" || st.Look {
			if err := st.retake(ctx, in.World); err != nil {
				return err
			}
			g = st.Shape.graph()
			continue
		}
		if id, es := st.take(); id != 0 {
			o := runDrain(ctx, in.World, g, st, id, es)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			holds := serve.Holds
			if o.Error != "" {
				// A drain that ended in an error keeps the events it did
				// not deliver (serve.HoldsAfterError); one recorded before
				// that changed no held events.
				holds = nil
				if workflow.GetVersion(ctx, "hold-after-error", workflow.DefaultVersion, 1) == 1 {
					holds = serve.HoldsAfterError
				}
			}
			st.finish(id, es, g, o, holds)
			continue
		}
		info := workflow.GetInfo(ctx)
		limit := in.World.MaxHistory
		if limit <= 0 {
			limit = maxHistory
		}
		if info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() > limit {
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return err
			}
			if len(st.Pending) == 0 {
				st.flatten()
				return workflow.NewContinueAsNewError(ctx, WorkflowName, Input{World: in.World, State: st})
			}
			continue
		}
		wait := idleWait
		var due map[string]time.Time
		var dueBy map[string]DueAt
		if st.Shape.Cadenced {
			in := DueIn{World: in.World, Fired: st.Fired, Self: st.Self, Started: st.Started}
			var err error
			// A workflow begun before gateways were given their schedule's
			// event goes on as it was recorded.
			if workflow.GetVersion(ctx, "scheduled-event", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
				err = workflow.ExecuteActivity(actx(ctx, "due", time.Minute), DueActivity, in).Get(ctx, &due)
			} else if err = workflow.ExecuteActivity(actx(ctx, "due", time.Minute), DueByActivity, in).Get(ctx, &dueBy); err == nil {
				due = map[string]time.Time{}
				for id, d := range dueBy {
					due[id] = d.At
				}
			}
			if err != nil && ctx.Err() == nil {
				workflow.GetLogger(ctx).Warn("prose serve: when nodes are due is unknown", "error", err)
			}
			now := workflow.Now(ctx)
			for _, t := range due {
				wait = min(wait, max(t.Sub(now), 0))
			}
		}
		woken, err := workflow.AwaitWithTimeout(ctx, wait, func() bool { return len(st.Pending) > 0 || st.Want != "" || st.Look })
		if err != nil {
			return err
		}
		if !woken {
			now := workflow.Now(ctx)
			var ids []string
			for id, t := range due {
				if !t.After(now) {
					ids = append(ids, id)
				}
			}
			sort.Strings(ids)
			for _, id := range ids {
				st.enqueueSelf(id, dueBy[id])
			}
		}
	}
}

// ShapeIn is a ShapeUpdate: the fingerprint of the graph the server
// loaded.
type ShapeIn struct {
	FP string `json:"fp"`
}

// ShapeAck answers a ShapeUpdate: the fingerprint of the shape the
// workflow had, and whether it takes the shape again.
type ShapeAck struct {
	Was    string `json:"was"`
	Retake bool   `json:"retake,omitempty"`
}

// ReshapeIn asks a worker for the shape of the project as it is now, to
// have the graph of fingerprint Want.
type ReshapeIn struct {
	World World  `json:"world"`
	Want  string `json:"want"`
}

// retake answers a ShapeUpdate, between drains: the shape is taken
// again when the server's graph is not the one it was taken from, and a
// drain that checks every node (an edit's, serve.Entry.Edit) is queued
// when the shape changed, or when the look of a start (StaleActivity)
// finds a node stale or cannot look. A drain already queued does that
// work, so then nothing is queued. It returns only ctx's error.
func (st *State) retake(ctx workflow.Context, w World) error {
	want, look := st.Want, st.Look
	edit := false
	if want != "" && want != st.Shape.FP {
		var sh *Shape
		err := workflow.ExecuteActivity(actx(ctx, "reshape", time.Minute), ReshapeActivity, ReshapeIn{World: w, Want: want}).Get(ctx, &sh)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		switch {
		case err != nil:
			// The drain's steps refuse with the error the workers give.
			workflow.GetLogger(ctx).Warn("prose serve: the graph's shape could not be taken again", "error", err)
			edit = true
		case sh.FP != want:
			workflow.GetLogger(ctx).Warn("prose serve: the workers' graph is not the server's", "workers", sh.FP, "server", want)
			fallthrough
		default:
			edit = sh.FP != st.Shape.FP
			st.Shape = sh
		}
	}
	st.Want, st.Look = "", false
	if len(st.Pending) > 0 {
		return nil
	}
	if !edit && look {
		var stale []reconcile.Staleness
		err := workflow.ExecuteActivity(actx(ctx, "stale", time.Hour), StaleActivity, w).Get(ctx, &stale)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		edit = err != nil || len(stale) > 0
	}
	if edit {
		if st.Next == st.running {
			st.Next++
		}
		st.Pending = append(st.Pending, serve.Entry{Op: "enq", Drain: st.Next, Edit: true})
	}
	return nil
}

// actx gives ctx the options of a step's activity.
func actx(ctx workflow.Context, id string, limit time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, activityopts.For(id, limit, errWorld))
}

// DrainIn is what each step of a drain is given: the drain's entries and
// the events held before it (package serve's Deliver turns them into the
// events and wakes, the same on every worker).
type DrainIn struct {
	World   World                    `json:"world"`
	Drain   int                      `json:"drain"`
	Store   int                      `json:"store"`
	Entries []serve.Entry            `json:"entries"`
	Held    map[string][]serve.Entry `json:"held,omitempty"`
	Nodes   []string                 `json:"nodes,omitempty"`
	Node    string                   `json:"node,omitempty"`
	Seq     int                      `json:"seq,omitempty"`
	// Shape is the fingerprint of the graph the drain is planned on
	// (Shape.FP): a step on a worker whose graph differs refuses.
	Shape string `json:"shape,omitempty"`
}

// PlanOut is a level's plan: the nodes that fire, in id order, and
// whether each renders.
type PlanOut struct {
	Fire   []string `json:"fire"`
	Render []bool   `json:"render"`
}

// FireOut is a node's commit.
type FireOut struct {
	Ref    serve.Ref `json:"ref"`
	Tokens int       `json:"tokens"`
	// TokensIn and TokensOut split Tokens (absent from a history
	// written before they were).
	TokensIn  int `json:"tokens_in,omitempty"`
	TokensOut int `json:"tokens_out,omitempty"`
	// Done says the commit was found in the store (its step had run).
	Done bool `json:"done,omitempty"`
}

// DueIn asks when the cadenced nodes are next due.
type DueIn struct {
	World   World                `json:"world"`
	Fired   map[string]time.Time `json:"fired,omitempty"`
	Self    map[string]time.Time `json:"self,omitempty"`
	Started time.Time            `json:"started"`
}

// runDrain runs drain num (entries es) step by step and returns its
// outcome.
func runDrain(ctx workflow.Context, w World, g *graph.Graph, st *State, num int, es []serve.Entry) *serve.Outcome {
	o, _, _, err := serve.Deliver(g, num, es, st.Held)
	o.Start = workflow.Now(ctx).UTC()
	defer func() { o.MS = workflow.Now(ctx).Sub(o.Start).Milliseconds() }()
	if err != nil {
		o.Error = err.Error()
		return o
	}
	in := DrainIn{World: w, Drain: num, Entries: es, Held: st.Held, Shape: st.Shape.FP}
	prefix := fmt.Sprintf("drain-%d/", num)
	if err := workflow.ExecuteActivity(actx(ctx, prefix+"begin", time.Minute), BeginActivity, in).Get(ctx, &in.Store); err != nil {
		o.Error = stepError(err)
		return o
	}
	par := w.MaxParallel
	if par <= 0 {
		par = 4
	}
	seq := 0
	for h, level := range st.Shape.Levels {
		pin := in
		pin.Nodes = level
		var plan PlanOut
		if err := workflow.ExecuteActivity(actx(ctx, fmt.Sprintf("%splan-%d", prefix, h), time.Hour), PlanActivity, pin).Get(ctx, &plan); err != nil {
			o.Error = stepError(err)
			return o
		}
		futs := make([]workflow.Future, len(plan.Fire))
		outs := make([]FireOut, len(plan.Fire))
		var firstErr error
		get := func(i int) {
			if err := futs[i].Get(ctx, &outs[i]); err != nil && firstErr == nil {
				firstErr = err
			}
		}
		for i, node := range plan.Fire {
			if i >= par {
				get(i - par)
			}
			fin := in
			fin.Node, fin.Seq = node, seq+i+1
			futs[i] = workflow.ExecuteActivity(actx(ctx, prefix+"fire-"+node, 24*time.Hour), FireActivity, fin)
		}
		for i := max(len(plan.Fire)-par, 0); i < len(plan.Fire); i++ {
			get(i)
		}
		seq += len(plan.Fire)
		for _, out := range outs {
			if out.Ref.Node == "" {
				continue
			}
			o.Receipts = append(o.Receipts, out.Ref)
			o.StoreDrain = in.Store
			o.Tokens += out.Tokens
			o.TokensIn += out.TokensIn
			o.TokensOut += out.TokensOut
			switch out.Ref.Status {
			case receipt.Rendered:
				o.Rendered++
			case receipt.Skipped:
				o.Skipped++
			case receipt.Failed:
				o.Failed++
			}
		}
		if firstErr != nil {
			o.Error = stepError(firstErr)
			return o
		}
	}
	return o
}

// stepError is the message of a step's failure.
func stepError(err error) string {
	var app *tsdk.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	return err.Error()
}

// index builds the lookup of Seen and empty maps.
func (st *State) index() {
	st.seen = map[string]map[string]bool{}
	for n, fps := range st.Seen {
		st.seen[n] = map[string]bool{}
		for _, fp := range fps {
			st.seen[n][fp] = true
		}
	}
	if st.Seen == nil {
		st.Seen = map[string][]string{}
	}
	if st.Held == nil {
		st.Held = map[string][]serve.Entry{}
	}
	if st.Done == nil {
		st.Done = map[int]*serve.Outcome{}
	}
	if st.Fired == nil {
		st.Fired = map[string]time.Time{}
	}
	if st.Self == nil {
		st.Self = map[string]time.Time{}
	}
}

// flatten drops what the next run rebuilds.
func (st *State) flatten() {
	for n := range st.Held {
		if len(st.Held[n]) == 0 {
			delete(st.Held, n)
		}
	}
}

func (st *State) validate(in TriggerIn) error {
	kind, ok := st.Shape.Kinds[in.Node]
	switch {
	case !ok:
		return fmt.Errorf("%w %q", serve.ErrNoNode, in.Node)
	case in.Event != nil && kind != spec.KindGateway:
		return fmt.Errorf("%s is a %s: %w", in.Node, kind, serve.ErrNotGateway)
	case in.Event != nil && in.FP == "":
		return fmt.Errorf("%w: no fingerprint", serve.ErrBadEvent)
	}
	return nil
}

// trigger queues a trigger (the update's handler).
func (st *State) trigger(in TriggerIn) (Ack, error) {
	if err := st.validate(in); err != nil {
		return Ack{}, err
	}
	if st.Next == st.running {
		st.Next++
	}
	e := serve.Entry{Op: "enq", Drain: st.Next, Node: in.Node, Event: in.Event, FP: in.FP}
	if e.FP != "" {
		e.Dup = st.seen[in.Node][e.FP]
		if !e.Dup {
			if st.seen[in.Node] == nil {
				st.seen[in.Node] = map[string]bool{}
			}
			st.seen[in.Node][e.FP] = true
			st.Seen[in.Node] = append(st.Seen[in.Node], e.FP)
		}
	}
	st.Pending = append(st.Pending, e)
	return Ack{Drain: e.Drain, Duplicate: e.Dup}, nil
}

// enqueueSelf queues a self wake of node unless one is pending, with
// the event d gives a gateway due by its schedule (none when d has
// none): one it was given before is a duplicate, as in trigger.
func (st *State) enqueueSelf(node string, d DueAt) {
	for _, e := range st.Pending {
		if e.Self && e.Node == node {
			return
		}
	}
	if st.Next == st.running {
		st.Next++
	}
	e := serve.Entry{Op: "enq", Drain: st.Next, Node: node, Self: true, Event: d.Event, FP: d.FP}
	if e.FP != "" {
		e.Dup = st.seen[node][e.FP]
		if !e.Dup {
			if st.seen[node] == nil {
				st.seen[node] = map[string]bool{}
			}
			st.seen[node][e.FP] = true
			st.Seen[node] = append(st.Seen[node], e.FP)
		}
	}
	st.Pending = append(st.Pending, e)
}

// take starts the oldest pending drain.
func (st *State) take() (int, []serve.Entry) {
	low := 0
	for _, e := range st.Pending {
		if low == 0 || e.Drain < low {
			low = e.Drain
		}
	}
	if low == 0 {
		return 0, nil
	}
	var es []serve.Entry
	for _, e := range st.Pending {
		if e.Drain == low {
			es = append(es, e)
		}
	}
	st.running = low
	return low, es
}

// finish records drain id's outcome: its triggers leave the queue, the
// held events follow holds (serve.Holds, or serve.HoldsAfterError for a
// drain that ended in an error; nil: none change), and the cadences'
// bases move.
func (st *State) finish(id int, es []serve.Entry, g *graph.Graph, o *serve.Outcome, holds func(*graph.Graph, []serve.Entry, *serve.Outcome, map[string][]serve.Entry) []serve.Hold) {
	if holds != nil {
		for _, h := range holds(g, es, o, st.Held) {
			if h.Release {
				delete(st.Held, h.Node)
				continue
			}
			for _, e := range h.Keep {
				st.Held[h.Node] = append(st.Held[h.Node], serve.Entry{Op: "hold", Drain: id, Node: h.Node, Event: e.Event, FP: e.FP})
			}
		}
	}
	var rest []serve.Entry
	for _, e := range st.Pending {
		if e.Drain != id {
			rest = append(rest, e)
		}
	}
	st.Pending = rest
	st.Done[id] = o
	st.MaxDone = max(st.MaxDone, id)
	delete(st.Done, id-keepOutcomes)
	for _, r := range o.Receipts {
		if o.Start.After(st.Fired[r.Node]) {
			st.Fired[r.Node] = o.Start
		}
	}
	for _, t := range o.Triggers {
		if t.Self && o.Start.After(st.Self[t.Node]) {
			st.Self[t.Node] = o.Start
		}
	}
	st.running = 0
	if st.Next <= id {
		st.Next = id + 1
	}
}

func (st *State) drainState(id int) (DrainState, error) {
	switch {
	case st.Done[id] != nil:
		return DrainState{State: "done", Outcome: st.Done[id]}, nil
	case id == st.running:
		return DrainState{State: "running"}, nil
	}
	for _, e := range st.Pending {
		if e.Drain == id {
			return DrainState{State: "queued"}, nil
		}
	}
	return DrainState{State: "unknown"}, nil
}

func (st *State) depth() (int, error) { return len(st.Pending), nil }

// outcomes are the kept outcomes of the drains after since, in order.
func (st *State) outcomes(since int) ([]*serve.Outcome, error) {
	var out []*serve.Outcome
	for id := since + 1; id <= st.MaxDone; id++ {
		if o := st.Done[id]; o != nil {
			out = append(out, o)
		}
	}
	return out, nil
}
