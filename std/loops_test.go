package std_test

import (
	"strings"
	"testing"
)

// Quality loops: ratchet, retry-with-learning, refine, worker-critic,
// oversight, guard.

func TestRatchetProgressIsMonotonic(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "ratchet",
		slots: []string{
			"advancer=" + h.svcBinding("advancer", `"s1"`, `"s2"`, `"s3"`, `"s4"`),
			"certifier=" + h.svcBinding("certifier", `{"verdict":"certify"}`, `{"verdict":"reject","reason":"too big"}`, `{"verdict":"certify"}`, `{"verdict":"certify"}`),
		},
		config: []string{"max_steps=4"},
		inputs: []string{"task_brief=climb", `certified_progress=["s0"]`},
	})
	wantJSON(t, "result", res["result"], `["s0","s1","s3","s4"]`)
	adv := h.calls("advancer")
	if len(adv) != 4 {
		t.Fatalf("advancer called %d times, want max_steps=4", len(adv))
	}
	// Each advancer call sees the previous progress as a prefix: nothing
	// certified is ever dropped or reordered, nothing rejected enters.
	prev := ""
	for i, c := range adv {
		got := strings.TrimSuffix(js(c.args["certified_progress"]), "]")
		if !strings.HasPrefix(got, prev) {
			t.Errorf("call %d: progress %s does not extend %s]", i+1, got, prev)
		}
		if strings.Contains(got, `"s2"`) {
			t.Errorf("call %d: rejected step s2 entered progress %s", i+1, got)
		}
		prev = got
	}
	wantJSON(t, "rejection feedback after the reject", adv[2].args["rejection_feedback"], `{"verdict":"reject","reason":"too big"}`)
	wantJSON(t, "rejection feedback after a certify", adv[3].args["rejection_feedback"], `null`)
	for _, c := range h.calls("certifier") {
		if _, ok := c.args["proposed_step"]; !ok {
			t.Errorf("certifier got no proposed_step: %s", js(c.args))
		}
	}
}

func TestRetryWithLearningAccumulatesHistory(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "retry-with-learning",
		slots:  []string{"target=" + h.svcBinding("target", "fail:boom one", "fail:boom two", `"done"`)},
		config: []string{"max_retries=5"},
		inputs: []string{"task_brief=fetch"},
	})
	wantJSON(t, "result", res["result"], `"done"`)
	wantJSON(t, "attempts", res["attempts"], `3`)
	calls := h.calls("target")
	if len(calls) != 3 {
		t.Fatalf("target called %d times, want 3 (stop at first success)", len(calls))
	}
	for i, c := range calls {
		hist, _ := c.args["failure_history"].([]any)
		if len(hist) != i {
			t.Errorf("attempt %d saw %d failures, want the %d before it", i+1, len(hist), i)
		}
		if c.args["task_brief"] != "fetch" {
			t.Errorf("attempt %d: brief %v changed", i+1, c.args["task_brief"])
		}
	}
	hist := js(res["failure_history"])
	if !strings.Contains(hist, "boom one") || !strings.Contains(hist, "boom two") || strings.Index(hist, "boom one") > strings.Index(hist, "boom two") {
		t.Errorf("failure_history %s: want both reasons, oldest first", hist)
	}
}

func TestRetryWithLearningIsBounded(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "retry-with-learning",
		slots:  []string{"target=" + h.svcBinding("target", "fail:down")},
		config: []string{"max_retries=2"},
		inputs: []string{"task_brief=fetch"},
	})
	wantJSON(t, "result", res["result"], `null`)
	wantJSON(t, "attempts", res["attempts"], `2`)
	if n := len(h.calls("target")); n != 2 {
		t.Errorf("target called %d times, want max_retries=2", n)
	}
	if hist, _ := res["failure_history"].([]any); len(hist) != 2 {
		t.Errorf("failure_history %s, want 2 entries", js(res["failure_history"]))
	}
}

func TestRetryWithLearningFailureCriteria(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "retry-with-learning",
		slots:  []string{"target=" + h.svcBinding("target", `"EMPTY"`, `"rows"`)},
		config: []string{"failure_criteria=contains EMPTY"},
		inputs: []string{"task_brief=fetch"},
		judge:  containsJudge{},
	})
	wantJSON(t, "result", res["result"], `"rows"`)
	wantJSON(t, "attempts", res["attempts"], `2`)
	if hist := js(res["failure_history"]); !strings.Contains(hist, "EMPTY") {
		t.Errorf("failure_history %s does not record the rejected result", hist)
	}
}

func TestRefineStopsAtThreshold(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "refine",
		slots: []string{
			"refiner=" + h.svcBinding("refiner", `"v1"`, `"v2"`, `"v3"`, `"v4"`),
			"evaluator=" + h.svcBinding("evaluator", `{"score":0.3,"suggestions":"more detail"}`, `{"score":0.6,"suggestions":"tighter"}`, `{"score":0.9,"suggestions":null}`),
		},
		config: []string{"max_rounds=5", "threshold=0.8"},
		inputs: []string{"task_brief=write"},
	})
	wantJSON(t, "result", res, `{"result":"v3","score":0.9,"rounds_used":3}`)
	ref := h.calls("refiner")
	if len(ref) != 3 {
		t.Fatalf("refiner called %d times, want 3", len(ref))
	}
	wantJSON(t, "round 1 current_result", ref[0].args["current_result"], `null`)
	wantJSON(t, "round 2 current_result", ref[1].args["current_result"], `"v1"`)
	wantJSON(t, "round 2 suggestions", ref[1].args["improvement_suggestions"], `"more detail"`)
	wantJSON(t, "round 3 score", ref[2].args["current_score"], `0.6`)
	for _, c := range h.calls("evaluator") {
		if len(c.args) != 2 {
			t.Errorf("evaluator saw %s; want only the brief and the current result", js(c.args))
		}
	}
}

func TestRefineIsBounded(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "refine",
		slots: []string{
			"refiner=" + h.svcBinding("refiner", `"v1"`, `"v2"`),
			"evaluator=" + h.svcBinding("evaluator", `{"score":0.1,"suggestions":"no"}`),
		},
		config: []string{"max_rounds=2"},
		inputs: []string{"task_brief=write"},
	})
	wantJSON(t, "result", res, `{"result":"v2","score":0.1,"rounds_used":2}`)
	if n := len(h.calls("refiner")); n != 2 {
		t.Errorf("refiner called %d times, want max_rounds=2", n)
	}
}

func TestWorkerCriticHidesCriteria(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "worker-critic",
		slots: []string{
			"worker=" + h.svcBinding("worker", `"draft 1"`, `"draft 2"`),
			"critic=" + h.svcBinding("critic", `{"verdict":"reject","issues":["vague"]}`, `{"verdict":"accept"}`),
		},
		inputs: []string{"task_brief=essay", "criteria=SECRET RUBRIC"},
	})
	wantJSON(t, "result", res, `{"result":"draft 2","attempts":2,"final_critique":null}`)
	for i, c := range h.calls("worker") {
		if strings.Contains(js(c.args), "SECRET RUBRIC") {
			t.Errorf("worker call %d saw the criteria: %s", i+1, js(c.args))
		}
	}
	work := h.calls("worker")
	wantJSON(t, "second worker call critique", work[1].args["critique"], `{"verdict":"reject","issues":["vague"]}`)
	for i, c := range h.calls("critic") {
		if c.args["task_brief"] != "essay" || c.args["criteria"] != "SECRET RUBRIC" {
			t.Errorf("critic call %d lacks the brief or criteria: %s", i+1, js(c.args))
		}
	}
}

func TestWorkerCriticExhaustsWithCritique(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "worker-critic",
		slots: []string{
			"worker=" + h.svcBinding("worker", `"a"`, `"b"`, `"c"`),
			"critic=" + h.svcBinding("critic", `{"verdict":"reject","n":1}`, `{"verdict":"reject","n":2}`),
		},
		config: []string{"max_rounds=2"},
		inputs: []string{"task_brief=essay", "criteria=good"},
	})
	wantJSON(t, "result", res, `{"result":"b","attempts":2,"final_critique":{"verdict":"reject","n":2}}`)
	if n := len(h.calls("worker")); n != 2 {
		t.Errorf("worker called %d times, want 2", n)
	}
}

func TestOversightRoutesDecisions(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "oversight",
		slots: []string{
			"actor=" + h.svcBinding("actor", `{"outcome":"o1","self_assessment":"great"}`, `"o2"`, `"o3"`),
			"observer=" + h.svcBinding("observer", `"looks off"`),
			"arbiter=" + h.svcBinding("arbiter", `{"decision":"adjust","adjusted_brief":"b2"}`, `{"decision":"continue"}`, `{"decision":"abort","reason":"unsafe"}`),
		},
		config: []string{"max_cycles=5"},
		inputs: []string{"task_brief=b1"},
	})
	wantJSON(t, "result", res, `{"result":"o3","cycles":3,"abort_reason":"unsafe"}`)
	acts := h.calls("actor")
	if len(acts) != 3 {
		t.Fatalf("actor ran %d cycles, want 3 (abort stops at once)", len(acts))
	}
	for i, want := range []string{"b1", "b2", "b2"} {
		if acts[i].args["task_brief"] != want {
			t.Errorf("cycle %d brief %v, want %s", i+1, acts[i].args["task_brief"], want)
		}
	}
	for _, c := range h.calls("arbiter") {
		if _, ok := c.args["outcome"]; ok || c.args["observer_report"] != "looks off" {
			t.Errorf("arbiter saw %s; want the observer's report only", js(c.args))
		}
	}
}

func TestOversightIsBounded(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "oversight",
		slots: []string{
			"actor=" + h.svcBinding("actor", `"o"`),
			"observer=" + h.svcBinding("observer", `"fine"`),
			"arbiter=" + h.svcBinding("arbiter", `{"decision":"continue"}`),
		},
		config: []string{"max_cycles=2"},
		inputs: []string{"task_brief=b"},
	})
	wantJSON(t, "result", res, `{"result":"o","cycles":2,"abort_reason":null}`)
}

func TestGuardBlocksTarget(t *testing.T) {
	for _, tc := range []struct{ name, guard, reason string }{
		{"refuses", `{"proceed":false,"reason":"too risky"}`, "too risky"},
		{"fails", "fail:guard crashed", "the guard gave no answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			res := h.mustRun(run{pattern: "guard",
				slots: []string{
					"guard=" + h.svcBinding("guard", tc.guard),
					"target=" + h.svcBinding("target", `"launched"`),
				},
				inputs: []string{"task_brief=launch"},
			})
			if n := len(h.calls("target")); n != 0 {
				t.Errorf("target called %d times although the guard blocked", n)
			}
			wantJSON(t, "result", res["result"], `"`+tc.reason+`"`)
			wantJSON(t, "proceeded", res["proceeded"], `false`)
		})
	}
}

func TestGuardUnreadableAnswerNeverProceeds(t *testing.T) {
	for _, answer := range []string{`sure, go ahead`, `{"reason":"no decision field"}`} {
		guardUnreadable(t, answer)
	}
}

func guardUnreadable(t *testing.T, answer string) {
	h := newHarness(t)
	res, err := h.run(run{pattern: "guard",
		slots: []string{
			"guard=" + h.svcBinding("guard", answer),
			"target=" + h.svcBinding("target", `"launched"`),
		},
		inputs: []string{"task_brief=launch"},
	})
	if n := len(h.calls("target")); n != 0 {
		t.Errorf("target called %d times on an unreadable guard answer (result %v, err %v)", n, res, err)
	}
	if err == nil && js(res.(map[string]any)["proceeded"]) != "false" {
		t.Errorf("result %s: an unreadable answer must not count as approval", js(res))
	}
}

func TestGuardApproves(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "guard",
		slots: []string{
			"guard=" + h.svcBinding("guard", `{"proceed":true,"reason":"ok"}`),
			"target=" + h.svcBinding("target", `"launched"`),
		},
		inputs: []string{"task_brief=launch now"},
	})
	wantJSON(t, "result", res, `{"result":"launched","proceeded":true}`)
	if got := h.labels(); js(got) != `["guard","target"]` {
		t.Errorf("call order %v, want guard then target", got)
	}
	tgt := h.calls("target")
	wantJSON(t, "target args", tgt[0].args, `{"task_brief":"launch now"}`)
}
