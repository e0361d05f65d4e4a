package temporalserve

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	tsdk "go.temporal.io/sdk/temporal"

	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// WorkflowID is the workflow id of the serve workflow of a state
// directory: one per store, so two servers of one store share it.
func WorkflowID(stateDir string) string {
	abs, err := filepath.Abs(stateDir)
	if err != nil {
		abs = stateDir
	}
	sum := sha256.Sum256([]byte(abs))
	return "prose-serve-" + hex.EncodeToString(sum[:8])
}

// Start starts the serve workflow of w on queue, or takes the one
// running for the same state directory (which keeps the World it was
// started with), and returns its id.
func Start(ctx context.Context, cl client.Client, queue string, w World) (string, error) {
	run, err := cl.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: WorkflowID(w.State), TaskQueue: queue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, WorkflowName, Input{World: w})
	if err != nil {
		return "", fmt.Errorf("starting the serve workflow on Temporal: %v", err)
	}
	return run.GetID(), nil
}

// Front is the HTTP face's backend (httpapi.Backend) of a serve
// workflow: triggers go to the workflow as updates, drains are asked by
// query, and truths and receipts are read from the shared store.
type Front struct {
	cl    client.Client
	id    string
	g     *graph.Graph
	st    *store.Store
	M     serve.Metrics
	since int

	mu         sync.Mutex
	connectors map[string]serve.ConnectorState
}

// NewFront is the front of workflow id, serving g over st.
func NewFront(cl client.Client, id string, g *graph.Graph, st *store.Store) *Front {
	return &Front{cl: cl, id: id, g: g, st: st}
}

// Graph is the served graph.
func (f *Front) Graph() *graph.Graph { return f.g }

// Store is the shared store.
func (f *Front) Store() *store.Store { return f.st }

// SetConnector records the state of gateway's connector.
func (f *Front) SetConnector(gateway string, st serve.ConnectorState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.connectors == nil {
		f.connectors = map[string]serve.ConnectorState{}
	}
	f.connectors[gateway] = st
}

// Connectors is each connector's state, by gateway.
func (f *Front) Connectors() map[string]serve.ConnectorState {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]serve.ConnectorState{}
	for k, v := range f.connectors {
		out[k] = v
	}
	return out
}

// Status is every node's last receipt, by id.
func (f *Front) Status() (map[string]*receipt.Receipt, error) {
	out := map[string]*receipt.Receipt{}
	for _, n := range f.g.Nodes {
		r, err := f.st.CheckedLast(n.ID) // what the ledger vouches for
		if err != nil {
			return nil, err
		}
		out[n.ID] = r
	}
	return out, nil
}

// Trigger sends a trigger to the workflow and returns once the workflow
// has recorded it (the update's completion is in its history). A
// malformed event is refused here and sends nothing.
func (f *Front) Trigger(node string, event []byte) (int, bool, error) {
	n := f.g.Node(node)
	if n == nil {
		return 0, false, serve.NoNode(f.g, node)
	}
	if event != nil && n.Kind != spec.KindGateway {
		return 0, false, fmt.Errorf("%s is a %s: %w", node, n.Kind, serve.ErrNotGateway)
	}
	in := TriggerIn{Node: node}
	if event != nil {
		v, err := canon.DecodeEvent(event)
		if err != nil {
			return 0, false, fmt.Errorf("%w: %v", serve.ErrBadEvent, err)
		}
		if err := n.CheckEvent(v); err != nil {
			return 0, false, serve.EventShapeError{Err: err}
		}
		if in.Event, err = canon.Marshal(v); err != nil {
			return 0, false, fmt.Errorf("%w: %v", serve.ErrBadEvent, err)
		}
		if in.FP, err = canon.Fingerprint(v, nil); err != nil {
			return 0, false, fmt.Errorf("%w: %v", serve.ErrBadEvent, err)
		}
	}
	var ack Ack
	err := f.update(TriggerUpdate, in, &ack)
	if err != nil {
		return 0, false, fmt.Errorf("queueing the trigger on Temporal: %v", err)
	}
	f.M.Triggered(ack.Duplicate)
	return ack.Drain, ack.Duplicate, nil
}

// update sends a trigger update and waits for its completion. An
// attempt that fails for want of the server, or because the workflow was
// continuing as new, is repeated under the same update id: within a run
// Temporal answers a repeat of an update it completed with the first
// answer, and across a continue-as-new a repeat is at worst a duplicate
// event (its gateway skips it, nothing is lost). One the workflow refused
// is not repeated.
func (f *Front) update(name string, in, out any) error {
	var uid [16]byte
	rand.Read(uid[:])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var err error
	for attempt, wait := 0, 100*time.Millisecond; attempt < 5; attempt, wait = attempt+1, wait*2 {
		var h client.WorkflowUpdateHandle
		h, err = f.cl.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
			WorkflowID: f.id, UpdateID: hex.EncodeToString(uid[:]), UpdateName: name, Args: []any{in},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		})
		if err == nil {
			if err = h.Get(ctx, out); err == nil {
				return nil
			}
		}
		var app *tsdk.ApplicationError
		if errors.As(err, &app) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
	return err
}

// Take tells the workflow the graph this server loaded, as it starts
// (ShapeUpdate): the workflow takes its shape again when it was taken
// from another graph, and looks for stale nodes as a local serve does
// at its start. It returns what to say of it ("" when the shape held).
func (f *Front) Take() (string, error) {
	var ack ShapeAck
	fp := Fingerprint(f.g)
	if err := f.update(ShapeUpdate, ShapeIn{FP: fp}, &ack); err != nil {
		return "", fmt.Errorf("giving the serve workflow the graph (workers that run an older prose do not take it: upgrade them): %v", err)
	}
	if !ack.Retake {
		return "", nil
	}
	was := ack.Was
	if was == "" {
		was = "a graph taken before shapes had a fingerprint"
	}
	return fmt.Sprintf("the project's graph is %s, the workflow's shape was taken from %s: it takes the shape again, and a drain checks every node", fp, was), nil
}

// Drain asks the workflow what it knows of drain id.
func (f *Front) Drain(id int) (string, *serve.Outcome) {
	var ds DrainState
	if err := f.query(DrainQuery, &ds, id); err != nil {
		return "unknown", nil
	}
	return ds.State, ds.Outcome
}

// Depth is the number of triggers the workflow has not yet answered
// (0 when it cannot be asked).
func (f *Front) Depth() int {
	var n int
	f.query(DepthQuery, &n)
	return n
}

// WriteMetrics prints the metrics of the drains Follow saw.
func (f *Front) WriteMetrics(w io.Writer) { f.M.Write(w, f.Depth()) }

func (f *Front) query(name string, out any, args ...any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := f.cl.QueryWorkflow(ctx, f.id, "", name, args...)
	if err != nil {
		return err
	}
	return v.Get(out)
}

// Follow asks the workflow for finished drains every interval until ctx
// ends, counting each in M and handing it to drained (when set), in
// drain order. It starts after the drains finished before it.
func (f *Front) Follow(ctx context.Context, every time.Duration, drained func(*serve.Outcome)) {
	t := time.NewTicker(every)
	defer t.Stop()
	started := false
	for {
		var got []*serve.Outcome
		if err := f.query(OutcomesQuery, &got, f.since); err == nil {
			for _, o := range got {
				f.since = max(f.since, o.Drain)
				if !started {
					continue
				}
				f.M.Drained(o)
				if drained != nil {
					drained(o)
				}
			}
			started = true
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
