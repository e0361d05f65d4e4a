package journal

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/delegation/syntax"
)

// fakeSvc is an in-process service; fn computes its answer.
type fakeSvc struct {
	name  string
	calls atomic.Int64
	fn    func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error)
}

func (s *fakeSvc) ServiceName() string { return s.name }

// fakeCaller dispatches to the request's *fakeSvc.
type fakeCaller struct{}

func (fakeCaller) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	s := req.Service.(*fakeSvc)
	s.calls.Add(1)
	return s.fn(ctx, req)
}

// ratchetCode is a ratchet loop: the advancer proposes step N (its Nth
// call), the certifier certifies even-numbered steps.
const ratchetCode = `let progress = []
let feedback = null
repeat max_steps:
  let proposal = call advancer
    progress: progress
    feedback: feedback
  let verdict = call certifier
    proposed_step: proposal
  if verdict certifies the proposal:
    append proposal to progress
    feedback = null
  else:
    feedback = verdict
return {result: progress}
`

// ratchetWorld holds a ratchet's services; the advancer's answers depend
// only on its arguments, so a resumed run sees the same values.
type ratchetWorld struct {
	adv, cert *fakeSvc
	// killAfter, when > 0, cancels the run (as a kill would stop it) once
	// the certifier has answered that many times.
	killAfter int64
	cancel    context.CancelFunc
}

func newRatchetWorld() *ratchetWorld {
	w := &ratchetWorld{}
	w.adv = &fakeSvc{name: "advancer", fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		p, _ := req.Args.Get("progress")
		n := p.(*delegation.List).Len()
		return fmt.Sprintf("step %d (%s)", n+1, req.Path.Key()), nil
	}}
	var mu sync.Mutex
	w.cert = &fakeSvc{name: "certifier", fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		mu.Lock()
		defer mu.Unlock()
		o := delegation.NewObject()
		verdict := "reject"
		if req.Path.Key()[len(req.Path.Key())-1]%2 == 1 { // odd iterations certify
			verdict = "certify"
		}
		o.Set("verdict", verdict)
		if w.killAfter > 0 && w.cert.calls.Load() >= w.killAfter && w.cancel != nil {
			w.cancel()
		}
		return o, nil
	}}
	return w
}

func mustParse(t testing.TB, code string) *syntax.Program {
	t.Helper()
	prog, diags := syntax.ParseString("ratchet.prose.md", code)
	if diags.HasErrors() {
		t.Fatalf("parse: %v", diags)
	}
	return prog
}

// runWith runs prog with the journal's wrappers around a fake caller and
// the deterministic judge, and finishes the journal.
func runWith(t testing.TB, r *Run, prog *syntax.Program, globals map[string]delegation.Value, parent context.Context) (delegation.Value, error) {
	t.Helper()
	ctx, cancel := r.Context(parent)
	defer cancel()
	host := &delegation.Host{
		Caller:  r.WrapCaller(fakeCaller{}),
		Judge:   r.WrapJudge(&judge.Deterministic{}),
		Runtime: r.WrapRuntime(delegation.DefaultRuntime()),
	}
	v, err := delegation.Run(ctx, prog, globals, host)
	if div := r.Err(); div != nil {
		err = div
	}
	if ferr := r.Finish(v, err); ferr != nil && err == nil {
		err = ferr
	}
	return v, err
}

func (w *ratchetWorld) globals(steps int64) map[string]delegation.Value {
	return map[string]delegation.Value{"advancer": w.adv, "certifier": w.cert, "max_steps": steps}
}

func toJSON(t testing.TB, v delegation.Value) string {
	t.Helper()
	b, err := delegation.ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newIndex is the index a replay of l answers from.
func newIndex(l *Log) *index {
	b := newIndexer(nil, "", Replaying)
	for _, r := range l.Records {
		b.keep(r, 0, 0, nil)
	}
	b.x.final = entry{}
	return b.done(l)
}
