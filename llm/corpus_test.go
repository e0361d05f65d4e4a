package llm

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/spec"
)

// corpusProgram loads the Delegation block of a corpus pattern through the
// spec loader, skipping the test when the corpus is absent.
func corpusProgram(t *testing.T, name string) *syntax.Program {
	t.Helper()
	sp, diags, err := spec.LoadFS(os.DirFS(testenv.Corpus(t)), name+".prose.md")
	if err != nil {
		t.Fatal(err)
	}
	if diags.HasErrors() || sp.Delegation == nil || sp.Delegation.Program == nil {
		t.Fatalf("load %s: no runnable Delegation: %v", name, diags)
	}
	return sp.Delegation.Program
}

// serviceCaller dispatches each call to its *SlotService.
type serviceCaller struct{}

func (serviceCaller) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	return req.Service.(*SlotService).Call(ctx, req)
}

const judgeMark = "You judge whether"

// TestRatchetWithModels runs the corpus ratchet with a model advancer and
// a model certifier whose verdicts are prose, judged by the model.
func TestRatchetWithModels(t *testing.T) {
	prog := corpusProgram(t, "ratchet")
	adv, cert := `"advancer\" slot`, `"certifier\" slot`
	srv := llmtest.NewServer(t,
		llmtest.Reply{Match: adv, Content: "Step A: define the terms."},
		llmtest.Reply{Match: adv, Content: "Step B: assume the result."},
		llmtest.Reply{Match: adv, Content: "Step C: prove the lemma."},
		llmtest.Reply{Match: cert, Content: "Sound and necessary. I certify this step."},
		llmtest.Reply{Match: cert, Content: "Circular: this step assumes what is to be proved."},
		llmtest.Reply{Match: cert, Content: "Correct; certified."},
		llmtest.Reply{Match: judgeMark, Content: `{"reasoning": "the certifier certifies", "holds": true}`},
		llmtest.Reply{Match: judgeMark, Content: `{"reasoning": "the certifier rejects the step as circular", "holds": false}`},
		llmtest.Reply{Match: judgeMark, Content: `{"reasoning": "certified", "holds": true}`},
	)
	c, _ := newTestClient(t, srv, nil)
	d := &judge.Deterministic{Next: NewModelJudge(c, JudgeOptions{Pattern: "ratchet"})}
	globals := map[string]delegation.Value{
		"advancer":           NewSlotService(c, SlotInfo{Pattern: "ratchet", Slot: "advancer"}),
		"certifier":          NewSlotService(c, SlotInfo{Pattern: "ratchet", Slot: "certifier"}),
		"task_brief":         "prove the theorem",
		"certified_progress": delegation.NewList(),
		"max_steps":          int64(3),
	}
	res, err := delegation.Run(context.Background(), prog, globals, &delegation.Host{Caller: serviceCaller{}, Judge: d})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := delegation.ToJSON(res)
	if string(got) != `{"result":["Step A: define the terms.","Step C: prove the lemma."]}` {
		t.Errorf("result = %s", got)
	}
	var judgeReqs, advReqs []llmtest.Request
	for _, r := range srv.Requests() {
		switch sys := r.Messages()[0].Content; {
		case strings.Contains(sys, judgeMark):
			judgeReqs = append(judgeReqs, r)
		case strings.Contains(sys, `"advancer" slot`):
			advReqs = append(advReqs, r)
		}
	}
	if len(judgeReqs) != 3 || len(advReqs) != 3 || srv.Count() != 9 {
		t.Fatalf("%d judge and %d advancer requests of %d", len(judgeReqs), len(advReqs), srv.Count())
	}
	for _, r := range judgeReqs {
		if temp, ok := r.Temperature(); !ok || temp != 0 || r.ResponseFormat() == nil ||
			!strings.Contains(r.Messages()[1].Content, "Condition: verdict certifies the proposal") {
			t.Errorf("judge request %s", r.Body)
		}
	}
	if !strings.Contains(advReqs[2].Messages()[1].Content, `"rejection_feedback":"Circular`) {
		t.Errorf("the advancer did not get the rejection: %s", advReqs[2].Messages()[1].Content)
	}
	if u := c.Usage(); u.ModelCalls != 9 || u.JudgeCalls != 3 {
		t.Errorf("usage %+v", u)
	}
}

// TestRetryWithLearningJudgedByModel runs the corpus retry-with-learning
// with failure_criteria set: each result is judged by the model.
func TestRetryWithLearningJudgedByModel(t *testing.T) {
	prog := corpusProgram(t, "retry-with-learning")
	tgt := `"target\" slot`
	srv := llmtest.NewServer(t,
		llmtest.Reply{Match: tgt, Content: "def f(: pass"},
		llmtest.Reply{Match: tgt, Content: "def f(): return 1"},
		llmtest.Reply{Match: judgeMark, Content: `{"reasoning": "syntax error", "holds": true}`},
		llmtest.Reply{Match: judgeMark, Content: `{"reasoning": "compiles", "holds": false}`},
	)
	c, _ := newTestClient(t, srv, nil)
	d := &judge.Deterministic{Next: NewModelJudge(c, JudgeOptions{Pattern: "retry-with-learning"})}
	globals := map[string]delegation.Value{
		"target":           NewSlotService(c, SlotInfo{Pattern: "retry-with-learning", Slot: "target"}),
		"task_brief":       "write f",
		"failure_criteria": "the code does not compile",
		"max_retries":      int64(3),
	}
	res, err := delegation.Run(context.Background(), prog, globals, &delegation.Host{Caller: serviceCaller{}, Judge: d})
	if err != nil {
		t.Fatal(err)
	}
	obj := res.(*delegation.Object)
	result, _ := obj.Get("result")
	attempts, _ := obj.Get("attempts")
	history, _ := obj.Get("failure_history")
	if result != "def f(): return 1" || attempts != int64(2) || history.(*delegation.List).Len() != 1 {
		t.Errorf("result %v, attempts %v, history %v", result, attempts, history)
	}
	var judged int
	for _, r := range srv.Requests() {
		if u := r.Messages()[1].Content; strings.Contains(r.Messages()[0].Content, judgeMark) {
			judged++
			if !strings.Contains(u, `failure_criteria = "the code does not compile"`) || !strings.Contains(u, "result = ") {
				t.Errorf("judge prompt:\n%s", u)
			}
		}
	}
	if judged != 2 || d.Stats().Decided != 0 {
		t.Errorf("%d judged, stats %+v", judged, d.Stats())
	}

	// With no failure_criteria nothing is judged by the model.
	srv2 := llmtest.NewServer(t, llmtest.Reply{Match: tgt, Content: "anything"})
	c2, _ := newTestClient(t, srv2, nil)
	d2 := &judge.Deterministic{Next: NewModelJudge(c2, JudgeOptions{})}
	globals["target"] = NewSlotService(c2, SlotInfo{Slot: "target"})
	globals["failure_criteria"] = nil
	if _, err := delegation.Run(context.Background(), prog, globals, &delegation.Host{Caller: serviceCaller{}, Judge: d2}); err != nil {
		t.Fatal(err)
	}
	if srv2.Count() != 1 || d2.Stats().Decided != 1 {
		t.Errorf("%d requests, stats %+v", srv2.Count(), d2.Stats())
	}
}
