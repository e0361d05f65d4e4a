package std_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
)

// Compositions of nested specs beyond a single slot: failures inside,
// arguments that do not fit, list slots of specs, a nested race.

var wrapSpec = filepath.Join("..", "testdata", "std", "wrap.prose.md")

// The error of a call that failed inside a nested spec shows the outer
// call's position and the inner one's.
func TestNestedInnerFailureShowsBothPositions(t *testing.T) {
	h := newHarness(t)
	_, err := h.run(run{pattern: "guard",
		slots: []string{
			"guard=" + h.svcBinding("guard", `{"proceed":true}`),
			"target=" + wrapSpec,
			"target.inner=" + h.svcBinding("inner", "fail:disk full"),
		},
		inputs: []string{"task_brief=go"},
	})
	if err == nil {
		t.Fatal("the inner failure was lost")
	}
	msg := err.Error()
	for _, want := range []string{"guard.prose.md:", "call 'target' failed", "call 'target.inner' failed", "disk full", "wrap.prose.md:41:14"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	var ue *bind.UsageError
	if errors.As(err, &ue) {
		t.Errorf("a failed call is a run-time error, not bad usage: %v", err)
	}
}

// A nested spec that requires an input its caller does not pass makes that
// call fail with a usage error of the delegation (exit 1, with the call's
// position), whose message names the input and what the call passed. Every
// attempt would pass the same names, so retry-with-learning does not take
// it for a failed attempt: it ends the run, where it used to retry it and
// return null with exit 0. It is not a command-line usage error: no flag
// could fix it.
func TestNestedMissingInputEndsTheRun(t *testing.T) {
	h := newHarness(t)
	res, err := h.run(run{pattern: "retry-with-learning",
		slots: []string{
			"target=std/patterns/stochastic-probe.prose.md",
			"target.probe=" + h.svcBinding("probe", `"p"`),
			"target.analyst=" + h.svcBinding("analyst", `"a"`),
		},
		config: []string{"max_retries=2"},
		inputs: []string{"task_brief=read"},
	})
	if err == nil {
		t.Fatalf("the missing input was taken for a failed attempt: %s", js(res))
	}
	for _, want := range []string{"retry-with-learning.prose.md:", "usage error: call 'target'", `requires input "material"`, "passes only task_brief", "bound to target", "stochastic-probe.prose.md:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	var de *delegation.Error
	if !errors.As(err, &de) || de.Kind != delegation.KindUsage {
		t.Errorf("err = %v, want a delegation usage error", err)
	}
	if n := len(h.calls()); n != 0 {
		t.Errorf("%d inner services ran without their input", n)
	}
	_, err = h.run(run{pattern: "guard",
		slots: []string{
			"guard=" + h.svcBinding("guard", `{"proceed":true}`),
			"target=std/patterns/stochastic-probe.prose.md",
			"target.probe=exec:true", "target.analyst=exec:true",
		},
		inputs: []string{"task_brief=read"},
	})
	var ue *bind.UsageError
	if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), "guard.prose.md:") {
		t.Errorf("err = %v, want a run-time error at guard's call of target", err)
	}
}

// Arguments the nested spec does not declare (retry-with-learning passes
// failure_history; refine has no such input) are left out of its run.
func TestNestedUndeclaredArgumentsAreIgnored(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "retry-with-learning",
		slots: []string{
			"target=std/patterns/refine.prose.md",
			"target.refiner=" + h.svcBinding("refiner", `"draft"`),
			"target.evaluator=" + h.svcBinding("evaluator", `{"score":0.9,"suggestions":""}`),
		},
		inputs: []string{"task_brief=write"},
	})
	wantJSON(t, "result", res["result"], `{"result":"draft","score":0.9,"rounds_used":1}`)
	for _, c := range h.calls("refiner", "evaluator") {
		if _, ok := c.args["failure_history"]; ok {
			t.Errorf("%s received the outer failure_history: %s", c.label, js(c.args))
		}
	}
}

func TestNestingDepthMessageNamesTheSlot(t *testing.T) {
	h := newHarness(t)
	_, err := h.run(wrapChain(h, 17))
	deep := "inner" + strings.Repeat(".inner", 16)
	if err == nil || !strings.Contains(err.Error(), "--slot "+deep+": binding") || !strings.Contains(err.Error(), "17 deep; the limit is 16") {
		t.Errorf("error %v: want the slot path, the depth and the limit", err)
	}
}

// race, nested as guard's target, keeps its own `parallel first`: the
// first acceptable candidate wins and the slower ones are killed.
func TestNestedRaceCancelsItsLosers(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "guard",
		slots: []string{
			"guard=" + h.svcBinding("guard", `{"proceed":true}`),
			"target=std/patterns/race.prose.md",
			"target.candidates=" + h.svcBinding("slow1", `sleep:60:"slow1"`),
			"target.candidates=" + h.svcBinding("fast", `"fast"`),
			"target.candidates=" + h.svcBinding("slow2", `sleep:60:"slow2"`),
		},
		inputs: []string{"task_brief=answer"},
	})
	if s := h.slept(); len(s) != 0 {
		t.Errorf("the nested race waited for its losers: %v slept to the end", s)
	}
	wantJSON(t, "proceeded", res["proceeded"], `true`)
	inner, _ := res["result"].(map[string]any)
	wantJSON(t, "race result", inner["result"], `"fast"`)
	wantJSON(t, "race winner", inner["winner"], `"target.candidates[1]"`)
	waitGone(t, h.pids())
}

// A list slot may hold several nested specs: dotted settings of the list
// (`chain.refiner`) apply to every element, each element running its own
// instance. Here the first element's
// refiner fails, and fallback-chain moves to the second element.
func TestListSlotOfNestedSpecs(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "fallback-chain",
		slots: []string{
			"chain=std/patterns/refine.prose.md",
			"chain=std/patterns/refine.prose.md",
			"chain.refiner=" + h.svcBinding("refiner", "fail:no draft", `"draft"`),
			"chain.evaluator=" + h.svcBinding("evaluator", `{"score":0.95,"suggestions":""}`),
		},
		inputs: []string{"task_brief=write"},
	})
	wantJSON(t, "result", res["result"], `{"result":"draft","score":0.95,"rounds_used":1}`)
	wantJSON(t, "winner", res["winner"], `"chain[1]"`)
	if hist := js(res["failure_history"]); !strings.Contains(hist, "no draft") || !strings.Contains(hist, "chain[0]") {
		t.Errorf("failure_history %s, want chain[0]'s inner failure", hist)
	}
}

// A list slot may mix specs and programs: chain.NAME applies to every
// spec element (each must declare NAME), chain[i].NAME to element i alone
// and wins over chain.NAME.
func TestListSlotElementSettings(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "fallback-chain",
		slots: []string{
			"chain=" + h.svcBinding("plain", "fail:down"),
			"chain=std/patterns/refine.prose.md",
			"chain=std/patterns/refine.prose.md",
			"chain.refiner=" + h.svcBinding("shared", "fail:shared refiner"),
			"chain[1].refiner=" + h.svcBinding("own", `"draft"`),
			"chain[1].evaluator=" + h.svcBinding("evaluator", `{"score":0.9,"suggestions":""}`),
			"chain.evaluator=exec:true",
		},
		config: []string{"chain[1].threshold=0.5"},
		inputs: []string{"task_brief=write"},
	})
	wantJSON(t, "result", res["result"], `{"result":"draft","score":0.9,"rounds_used":1}`)
	wantJSON(t, "winner", res["winner"], `"chain[1]"`)
	if n := len(h.calls("shared")); n != 0 {
		t.Errorf("the shared refiner ran %d times; chain[1].refiner replaces it", n)
	}
}

func TestListSlotElementSettingErrors(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		slots []string
		want  string
	}{
		{[]string{"chain=exec:true", "chain=std/patterns/refine.prose.md", "chain[0].refiner=exec:true", "chain[1].refiner=exec:true", "chain[1].evaluator=exec:true"}, "chain[0] is bound to a program"},
		{[]string{"chain=exec:true", "chain=std/patterns/refine.prose.md", "chain[5].refiner=exec:true"}, `"chain[5].refiner": slot "chain" has 2 elements`},
		{[]string{"chain=exec:true", "chain.refiner=exec:true"}, "none of its elements is a spec"},
		{[]string{"chain=exec:true", "chain[0]=exec:true"}, "list elements are bound in order"},
		{[]string{"chain=std/patterns/refine.prose.md", "chain=std/patterns/refine.prose.md", "chain[1].refiner=exec:true", "chain.evaluator=exec:true"}, `slot "chain[0].refiner" is not bound`},
	} {
		_, err := h.run(run{pattern: "fallback-chain", slots: tc.slots, inputs: []string{"task_brief=write"}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("slots %v: err = %v, want %q", tc.slots, err, tc.want)
		}
	}
	if _, statErr := os.Stat(h.log); statErr == nil {
		t.Errorf("a service ran before the bindings were refused")
	}
}

// fan-out and pipeline pass their brief as task_brief too, so every
// delegate or stage can be a library pattern.
func TestFanOutOfNestedRefines(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "fan-out",
		slots: []string{
			"delegates=std/patterns/refine.prose.md",
			"delegates=std/patterns/refine.prose.md",
			"delegates.refiner=" + h.svcBinding("refiner", "append:task_brief"),
			"delegates.evaluator=" + h.svcBinding("evaluator", `{"score":1,"suggestions":""}`),
		},
		json: `{"briefs":["intro","outro"]}`,
	})
	wantJSON(t, "results", res["results"], `[{"result":"intro|refiner","score":1,"rounds_used":1},{"result":"outro|refiner","score":1,"rounds_used":1}]`)
}

func TestPipelineStageIsANestedSpec(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "pipeline",
		slots: []string{
			"stages=" + wrapSpec,
			"stages=" + wrapSpec,
			"stages.inner=" + h.svcBinding("inner", "append:task_brief"),
		},
		inputs: []string{"task_brief=raw"},
	})
	// The second wrap receives the first one's whole answer as its brief.
	first := h.calls("inner")
	if len(first) != 2 {
		t.Fatalf("inner called %d times, want once per stage", len(first))
	}
	wantJSON(t, "first stage brief", first[0].args["task_brief"], `"raw"`)
	wantJSON(t, "second stage brief", first[1].args["task_brief"], `{"result":"raw|inner"}`)
	if out, _ := res["stage_outputs"].([]any); len(out) != 2 {
		t.Errorf("stage_outputs %s, want two", js(res["stage_outputs"]))
	}
}

// The missing-input failure of a list element names the element.
func TestNestedMissingInputNamesTheListElement(t *testing.T) {
	h := newHarness(t)
	_, err := h.run(run{pattern: "fan-out",
		slots: []string{
			"delegates=std/patterns/stochastic-probe.prose.md",
			"delegates.probe=exec:true", "delegates.analyst=exec:true",
		},
		inputs: []string{"task_brief=read"},
	})
	if err == nil || !strings.Contains(err.Error(), `(bound to delegates[0]) requires input "material"`) {
		t.Errorf("err = %v, want the element delegates[0] and the input", err)
	}
}

// A nested spec's natural-language conditions go to the run's model judge.
func TestNestedConditionUsesTheModelJudge(t *testing.T) {
	h := newHarness(t)
	judge, srv := modelJudge(t,
		withMatch(llmtest.Verdict(true, "no source: a failure"), "no source given"),
		withMatch(llmtest.Verdict(false, "cites an RFC"), "see RFC 9110"))
	res := h.mustRun(run{pattern: "guard",
		slots: []string{
			"guard=" + h.svcBinding("guard", `{"proceed":true}`),
			"target=std/patterns/fallback-chain.prose.md",
			"target.chain=" + h.svcBinding("c0", `"no source given"`),
			"target.chain=" + h.svcBinding("c1", `"see RFC 9110"`),
		},
		config: []string{"target.failure_criteria=the answer cites no source"},
		inputs: []string{"task_brief=answer"},
		judge:  judge,
	})
	inner, _ := res["result"].(map[string]any)
	wantJSON(t, "winner", inner["winner"], `"target.chain[1]"`)
	wantJSON(t, "result", inner["result"], `"see RFC 9110"`)
	if srv.Count() != 2 {
		t.Errorf("model asked %d times, want 2", srv.Count())
	}
}

// A timeout on the call of a nested spec cancels the nested run and kills
// the programs it started.
func TestNestedRunStopsAtItsCallersTimeout(t *testing.T) {
	h := newHarness(t)
	outer := filepath.Join(t.TempDir(), "limited.prose.md")
	src, err := os.ReadFile(wrapSpec)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), "name: wrap", "name: limited", 1)
	s = strings.Replace(s, "  task_brief: task_brief\n", "  task_brief: task_brief\n  timeout 300ms\n  on_fail use \"late\"\n", 1)
	if err := os.WriteFile(outer, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	res := h.mustRun(run{pattern: outer,
		slots: []string{
			"inner=" + wrapSpec,
			"inner.inner=" + h.svcBinding("slow", `sleep:60:"done"`),
		},
		inputs: []string{"task_brief=x"},
	})
	if s := h.slept(); len(s) != 0 {
		t.Errorf("the run waited for the nested program: %v slept to the end", s)
	}
	wantJSON(t, "result", res, `{"result":"late"}`)
	waitGone(t, h.pids())
}
