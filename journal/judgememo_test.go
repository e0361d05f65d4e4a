package journal

import (
	"context"
	"errors"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
)

// The second `if` asks what the first asked: a run's model judge answers
// it from its cache. The run is stopped between them.
const judgedTwiceCode = `let r = call svc
if r looks ready to ship:
  let s = call slow
if r looks ready to ship:
  return "shipped"
return "held"
`

// runJudged runs judgedTwiceCode on r with a model judge of srv; slow
// stops the run (as a kill would) when stop is set.
func runJudged(t *testing.T, r *Run, srv *llmtest.Server, stop bool) (delegation.Value, error) {
	t.Helper()
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "m", APIKey: "k"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc := &fakeSvc{name: "svc", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) { return "build 7", nil }}
	slow := &fakeSvc{name: "slow", fn: func(ctx context.Context, _ *delegation.CallRequest) (delegation.Value, error) {
		if stop {
			cancel()
			return nil, ctx.Err()
		}
		return "done", nil
	}}
	globals := map[string]delegation.Value{"svc": svc, "slow": slow}
	rctx, rcancel := r.Context(ctx)
	defer rcancel()
	host := &delegation.Host{
		Caller:  r.WrapCaller(fakeCaller{}),
		Judge:   r.WrapJudge(&judge.Deterministic{Next: llm.NewModelJudge(c, llm.JudgeOptions{})}),
		Runtime: r.WrapRuntime(delegation.DefaultRuntime()),
	}
	v, err := delegation.Run(rctx, mustParse(t, judgedTwiceCode), globals, host)
	if ferr := r.Finish(v, err); ferr != nil && err == nil {
		err = ferr
	}
	return v, err
}

// A resume asks the model nothing the run had asked: a judgment the
// journal holds is answered from it, and one the run's judge would have
// answered from its cache is answered from the journaled verdict, so a
// model that changes its mind cannot change the resumed result.
func TestResumeAsksNoJudgmentAgain(t *testing.T) {
	// Uninterrupted: one request, the second judgment from the cache.
	whole := llmtest.NewServer(t, llmtest.Verdict(true, "ready"))
	r, err := Create(t.TempDir(), Header{Spec: "/s/judged.prose.md"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := runJudged(t, r, whole, false)
	r.Close()
	if err != nil || want != "shipped" || len(whole.Requests()) != 1 {
		t.Fatalf("uninterrupted: %v, %v, %d requests", want, err, len(whole.Requests()))
	}

	// Stopped after the first judgment, then resumed with a model that
	// now says no.
	srv := llmtest.NewServer(t, llmtest.Verdict(true, "ready"))
	base := t.TempDir()
	r, err = Create(base, Header{Spec: "/s/judged.prose.md"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runJudged(t, r, srv, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: %v", err)
	}
	r.Close()
	asked := len(srv.Requests())
	if asked != 1 {
		t.Fatalf("the stopped run asked %d times, want 1", asked)
	}
	srv.Push(llmtest.Verdict(false, "changed my mind"), llmtest.Verdict(false, "changed my mind"))
	res, err := Resume(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := runJudged(t, res, srv, false)
	res.Close()
	if err != nil || got != want {
		t.Errorf("resumed: %v, %v; the uninterrupted run returned %v", got, err, want)
	}
	if n := len(srv.Requests()) - asked; n != 0 {
		t.Errorf("the resume made %d judge requests, want 0", n)
	}
}
