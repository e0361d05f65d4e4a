package std_test

import (
	"fmt"
	"strings"
	"testing"
)

// Running several services: race, fallback-chain, fan-out, map-reduce,
// pipeline.

func TestRaceFirstAcceptableWinsAndLosersAreCancelled(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "race",
		slots: []string{
			"candidates=" + h.svcBinding("c0", "fail:c0 broke"),
			"candidates=" + h.svcBinding("c1", `sleep:60:"slow"`),
			"candidates=" + h.svcBinding("c2", `sleep:1:"quick"`),
		},
		inputs: []string{"task_brief=solve"},
	})
	if len(h.slept()) != 1 {
		t.Errorf("sleeps that ran to their end: %v; want the winner's only (the run waited for the 60 s loser)", h.slept())
	}
	wantJSON(t, "result", res["result"], `"quick"`)
	wantJSON(t, "winner", res["winner"], `"candidates[2]"`)
	wantJSON(t, "attempts", res["attempts"], `2`)
	hist := js(res["failure_history"])
	if !strings.Contains(hist, "c0 broke") || strings.Contains(hist, "slow") {
		t.Errorf("failure_history %s: want c0's failure only (a cancelled candidate is no failure)", hist)
	}
	for _, c := range h.calls() {
		if js(c.args) != `{"task_brief":"solve"}` {
			t.Errorf("%s got %s, want the same brief as every candidate", c.label, js(c.args))
		}
	}
	pids := h.pids()
	if len(pids) != 2 {
		t.Fatalf("recorded pids %v, want the two sleepers", pids)
	}
	// The loser's process group got SIGTERM when the winner returned; give
	// the kernel a moment to reap it.
	waitGone(t, pids)
}

func TestRaceWithoutWinner(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "race",
		slots: []string{
			"candidates=" + h.svcBinding("c0", "fail:no"),
			"candidates=" + h.svcBinding("c1", `"BAD answer"`),
		},
		config: []string{"acceptance_criteria=contains GOOD"},
		inputs: []string{"task_brief=solve"},
		judge:  containsJudge{},
	})
	wantNoWinner(t, res, 2)
	// The rejected candidate's reason says it failed the criteria; it is
	// not the criteria themselves.
	if h := js(res["failure_history"]); !strings.Contains(h, `"reason":"did not meet acceptance_criteria"`) || strings.Contains(h, `"reason":"contains GOOD"`) {
		t.Errorf("failure_history %s: want the rejection's reason, not the criteria", h)
	}
}

// wantNoWinner checks the result of a race or fallback-chain in which all
// n services failed: no result, no winner, n attempts, n failures.
func wantNoWinner(t *testing.T, res map[string]any, n int) {
	t.Helper()
	wantJSON(t, "result", res["result"], `null`)
	wantJSON(t, "winner", res["winner"], `null`)
	wantJSON(t, "attempts", res["attempts"], fmt.Sprint(n))
	if hist, _ := res["failure_history"].([]any); len(hist) != n {
		t.Errorf("failure_history %s, want all %d services", js(res["failure_history"]), n)
	}
}

func TestRaceAcceptanceCriteriaSkipsUnacceptable(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "race",
		slots: []string{
			"candidates=" + h.svcBinding("c0", `"BAD but fast"`),
			"candidates=" + h.svcBinding("c1", `sleep:1:"GOOD"`),
		},
		config: []string{"acceptance_criteria=contains GOOD"},
		inputs: []string{"task_brief=solve"},
		judge:  containsJudge{},
	})
	wantJSON(t, "result", res["result"], `"GOOD"`)
	wantJSON(t, "winner", res["winner"], `"candidates[1]"`)
	wantJSON(t, "attempts", res["attempts"], `2`)
}

func TestFallbackChainOrder(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "fallback-chain",
		slots: []string{
			"chain=" + h.svcBinding("f0", "fail:f0 down"),
			"chain=" + h.svcBinding("f1", "fail:f1 down"),
			"chain=" + h.svcBinding("f2", `"from f2"`),
			"chain=" + h.svcBinding("f3", `"from f3"`),
		},
		inputs: []string{"task_brief=answer"},
	})
	wantJSON(t, "result", res["result"], `"from f2"`)
	wantJSON(t, "winner", res["winner"], `"chain[2]"`)
	wantJSON(t, "attempts", res["attempts"], `3`)
	if got := h.labels(); js(got) != `["f0","f1","f2"]` {
		t.Errorf("tried %v, want f0, f1, f2 in order and f3 never", got)
	}
	for _, c := range h.calls() {
		if js(c.args) != `{"task_brief":"answer"}` {
			t.Errorf("%s got %s, want the original brief only", c.label, js(c.args))
		}
	}
	hist := js(res["failure_history"])
	if i, j := strings.Index(hist, "f0 down"), strings.Index(hist, "f1 down"); i < 0 || j < i {
		t.Errorf("failure_history %s, want f0 then f1", hist)
	}
}

func TestFallbackChainAllFail(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "fallback-chain",
		slots: []string{
			"chain=" + h.svcBinding("f0", `"EMPTY"`),
			"chain=" + h.svcBinding("f1", "fail:f1 down"),
		},
		config: []string{"failure_criteria=contains EMPTY"},
		inputs: []string{"task_brief=answer"},
		judge:  containsJudge{},
	})
	wantNoWinner(t, res, 2)
}

func TestFanOutKeepsInputOrder(t *testing.T) {
	h := newHarness(t)
	// The first delegate finishes last.
	res := h.mustRun(run{pattern: "fan-out",
		slots: []string{
			"delegates=" + h.svcBinding("d0", `sleep:1:"zero"`),
			"delegates=" + h.svcBinding("d1", `"one"`),
			"delegates=" + h.svcBinding("d2", `"two"`),
		},
		json: `{"briefs": ["b0", "b1", "b2"]}`,
	})
	wantJSON(t, "result", res, `{"result":["zero","one","two"],"results":["zero","one","two"]}`)
	for i := range 3 {
		calls := h.calls(fmt.Sprintf("d%d", i))
		if len(calls) != 1 {
			t.Fatalf("d%d called %d times, want exactly once", i, len(calls))
		}
		wantJSON(t, fmt.Sprintf("d%d args", i), calls[0].args, fmt.Sprintf(`{"brief":"b%d","task_brief":"b%d"}`, i, i))
	}
}

func TestFanOutSharedBrief(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "fan-out",
		slots: []string{
			"delegates=" + h.svcBinding("d0", `append:brief`),
			"delegates=" + h.svcBinding("d1", `append:brief`),
		},
		inputs: []string{"task_brief=same"},
	})
	wantJSON(t, "result", res["result"], `["same|d0","same|d1"]`)
}

func TestMapReduceEveryChunkOnce(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "map-reduce",
		slots: []string{
			"mapper=" + h.svcBinding("mapper", `append:chunk`),
			"reducer=" + h.svcBinding("reducer", `"merged"`),
		},
		inputs: []string{"task_brief=count words"},
		json:   `{"chunks": ["a", "b", "c", "d"]}`,
	})
	wantJSON(t, "result", res, `{"result":"merged","mapper_results":["a|mapper","b|mapper","c|mapper","d|mapper"]}`)
	seen := map[string]int{}
	for _, c := range h.calls("mapper") {
		seen[c.args["chunk"].(string)]++
		if c.args["chunk_count"] != float64(4) || c.args["task_brief"] != "count words" {
			t.Errorf("mapper args %s", js(c.args))
		}
	}
	if js(seen) != `{"a":1,"b":1,"c":1,"d":1}` {
		t.Errorf("chunks mapped %v, want each exactly once", seen)
	}
	red := h.calls("reducer")
	if len(red) != 1 {
		t.Fatalf("reducer called %d times", len(red))
	}
	wantJSON(t, "reducer input", red[0].args["mapper_results"], `["a|mapper","b|mapper","c|mapper","d|mapper"]`)
	if h.labels()[4] != "reducer" {
		t.Errorf("call order %v: the reducer must run after every mapper", h.labels())
	}
}

func TestPipelineStageOrder(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "pipeline",
		slots: []string{
			"stages=" + h.svcBinding("s1", `append:input`),
			"stages=" + h.svcBinding("s2", `append:input`),
			"stages=" + h.svcBinding("s3", `append:input`),
		},
		inputs: []string{"task_brief=raw"},
	})
	wantJSON(t, "result", res, `{"result":"raw|s1|s2|s3","stage_outputs":["raw|s1","raw|s1|s2","raw|s1|s2|s3"]}`)
	if got := h.labels(); js(got) != `["s1","s2","s3"]` {
		t.Errorf("stage order %v", got)
	}
	calls := h.calls()
	wantJSON(t, "stage 1 input", calls[0].args, `{"input":"raw","task_brief":"raw"}`)
	wantJSON(t, "stage 3 input", calls[2].args, `{"input":"raw|s1|s2","task_brief":"raw|s1|s2"}`)
}
