package journal

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
)

// choiceCode picks an option by the model, then calls slow (which may
// stop the run, as a kill would).
const choiceCode = `let r = call svc
choice best next step for r:
  option "ship":
    let s = call slow
    return "shipped"
  option "hold":
    let s = call slow
    return "held"
`

func runChoice(t *testing.T, r *Run, srv *llmtest.Server, stop bool) (delegation.Value, error) {
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
	rctx, rcancel := r.Context(ctx)
	defer rcancel()
	host := &delegation.Host{
		Caller:  r.WrapCaller(fakeCaller{}),
		Judge:   r.WrapJudge(&judge.Deterministic{Next: llm.NewModelJudge(c, llm.JudgeOptions{})}),
		Runtime: r.WrapRuntime(delegation.DefaultRuntime()),
	}
	v, err := delegation.Run(rctx, mustParse(t, choiceCode), map[string]delegation.Value{"svc": svc, "slow": slow}, host)
	if div := r.Err(); div != nil {
		err = div
	}
	if ferr := r.Finish(v, err); ferr != nil && err == nil {
		err = ferr
	}
	return v, err
}

// The pick is journaled (its label, no holds), and a replay and a
// resume take the same option without asking the model, even one that
// would now pick the other.
func TestChoicePickIsJournaledAndReplayed(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"reasoning": "not ready", "pick": "hold"}`})
	base := t.TempDir()
	r, err := Create(base, Header{Spec: "/s/choice.prose.md"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := runChoice(t, r, srv, false)
	r.Close()
	if err != nil || v != "held" {
		t.Fatalf("run: %v, %v", v, err)
	}
	log, err := ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	var judged []*Record
	for _, rec := range log.Records {
		if rec.Type == TypeJudge {
			judged = append(judged, rec)
		}
	}
	if len(judged) != 1 || judged[0].Pick != "hold" || judged[0].Holds != nil || judged[0].Cond != "best next step for r" || !judged[0].Asked {
		t.Fatalf("judge records %+v", judged)
	}

	srv.Push(llmtest.Reply{Content: `{"reasoning": "ready now", "pick": "ship"}`, Times: -1})
	asked := srv.Count()
	rp, err := Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err = runChoice(t, rp, srv, false)
	rp.Close()
	if err != nil || v != "held" || srv.Count() != asked {
		t.Errorf("replay: %v, %v after %d more requests", v, err, srv.Count()-asked)
	}

	// Stopped in the picked option, then resumed.
	srv2 := llmtest.NewServer(t, llmtest.Reply{Content: `{"reasoning": "not ready", "pick": "hold"}`})
	base2 := t.TempDir()
	r2, err := Create(base2, Header{Spec: "/s/choice.prose.md"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runChoice(t, r2, srv2, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: %v", err)
	}
	r2.Close()
	srv2.Push(llmtest.Reply{Content: `{"reasoning": "ready now", "pick": "ship"}`, Times: -1})
	asked = srv2.Count()
	res, err := Resume(base2, r2.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err = runChoice(t, res, srv2, false)
	res.Close()
	if err != nil || v != "held" || srv2.Count() != asked {
		t.Errorf("resume: %v, %v after %d more requests", v, err, srv2.Count()-asked)
	}
}

// A replay of a choice whose labels changed since (the journaled pick is
// none of them) is refused at the choice, not run with some option.
func TestReplayedPickNotALabelIsRefused(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"pick": "hold"}`})
	base := t.TempDir()
	r, err := Create(base, Header{Spec: "/s/choice.prose.md"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runChoice(t, r, srv, false); err != nil {
		t.Fatal(err)
	}
	r.Close()
	rp, err := Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := rp.Context(context.Background())
	defer cancel()
	host := &delegation.Host{Caller: rp.WrapCaller(fakeCaller{}), Judge: rp.WrapJudge(&judge.Deterministic{}), Runtime: rp.WrapRuntime(nil)}
	svc := &fakeSvc{name: "svc", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) { return "build 7", nil }}
	edited := "let r = call svc\nchoice best next step for r:\n  option \"ship\":\n    return 1\n  option \"wait\":\n    return 2\n"
	_, err = delegation.Run(ctx, mustParse(t, edited), map[string]delegation.Value{"svc": svc}, host)
	rp.Close()
	var de *delegation.Error
	if !errors.As(err, &de) || de.Kind != delegation.KindJudge || de.Pos.Line != 2 {
		t.Fatalf("got %v", err)
	}
	if want := `the judge picked "hold", which is none of its options ("ship", "wait")`; !strings.Contains(de.Msg, want) {
		t.Errorf("error %q lacks %q", de.Msg, want)
	}
}

// sameWordsCode has a choice and a condition of the same words and
// values: the choice's journaled pick never answers the condition on a
// resume (the cache of model verdicts leaves picks out).
const sameWordsCode = `let r = call svc
choice r looks ready to ship:
  option "ship":
    let s = call slow
  option "hold":
    let s = call slow
if r looks ready to ship:
  return "shipped"
return "held"
`

func TestResumedConditionIsNotAnsweredByAPick(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"pick": "hold"}`})
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "m", APIKey: "k"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(r *Run, stop bool) (delegation.Value, error) {
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
		rctx, rcancel := r.Context(ctx)
		defer rcancel()
		host := &delegation.Host{
			Caller:  r.WrapCaller(fakeCaller{}),
			Judge:   r.WrapJudge(&judge.Deterministic{Next: llm.NewModelJudge(c, llm.JudgeOptions{})}),
			Runtime: r.WrapRuntime(delegation.DefaultRuntime()),
		}
		v, err := delegation.Run(rctx, mustParse(t, sameWordsCode), map[string]delegation.Value{"svc": svc, "slow": slow}, host)
		if ferr := r.Finish(v, err); ferr != nil && err == nil {
			err = ferr
		}
		return v, err
	}
	base := t.TempDir()
	r, err := Create(base, Header{Spec: "/s/same.prose.md"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(r, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: %v", err)
	}
	r.Close()
	srv.Push(llmtest.Verdict(true, "ready"))
	asked := srv.Count()
	res, err := Resume(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := run(res, false)
	res.Close()
	if err != nil || v != "shipped" || srv.Count() != asked+1 {
		t.Errorf("resumed: %v, %v after %d more requests; want shipped, asked once", v, err, srv.Count()-asked)
	}
}

// A run failed by its judge (here two unreadable picks) is resumed by
// asking that judgment again, as a failed call is run again: answered
// from the journal, its error would fail every resume the same way. A
// replay still reproduces the failure without asking.
func TestResumeAsksAFailedJudgmentAgain(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Content: `{"reasoning": "either", "pick": "ship or hold"}`},
		llmtest.Reply{Content: `{"reasoning": "either", "pick": "both"}`})
	base := t.TempDir()
	r, err := Create(base, Header{Spec: "/s/choice.prose.md"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runChoice(t, r, srv, false); err == nil || !strings.Contains(err.Error(), "could not be read") {
		t.Fatalf("run: %v", err)
	}
	r.Close()
	asked := srv.Count()

	rp, err := Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runChoice(t, rp, srv, false); err == nil || !strings.Contains(err.Error(), "could not be read") || srv.Count() != asked {
		t.Fatalf("replay: %v after %d requests", err, srv.Count()-asked)
	}
	rp.Close()

	srv.Push(llmtest.Reply{Content: `{"reasoning": "ready", "pick": "ship"}`})
	for i := range 2 { // the second resume answers the new pick from the journal
		res, err := Resume(base, r.ID(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		v, err := runChoice(t, res, srv, false)
		res.Close()
		if err != nil || v != "shipped" || srv.Count() != asked+1 {
			t.Fatalf("resume %d: %v, %v after %d more requests; want shipped, asked once", i+1, v, err, srv.Count()-asked)
		}
	}
}
