package std_test

import (
	"strings"
	"testing"

	"github.com/proselang/prose/llm/llmtest"
)

// tiers is a small tiers config: two "big" runs and one "small".
const tiers = `tiers=[{"count":2,"model":"big"},{"count":1,"model":"small"}]`

// corpusCases: bindings a user would give each corpus pattern, and the
// Ensures each run must keep. Results follow the upstream pseudocode,
// including its placeholder strings.
var corpusCases = []corpusCase{
	{name: "assumption-miner", setup: func(h *harness) run {
		return run{slots: []string{
			"miner=" + h.svcBinding("miner", "append:model"),
			"comparator=" + h.svcBinding("comparator", `{"universal":["u"]}`),
		}, config: []string{tiers}, inputs: []string{"material=The cache is always warm."}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		// One list per tier, tier.count entries each, tagged by tier.
		want := `[[{"tier":"big","assumptions":"big|miner"},{"tier":"big","assumptions":"big|miner"}],[{"tier":"small","assumptions":"small|miner"}]]`
		wantJSON(t, "raw_assumptions", res["raw_assumptions"], want)
		wantJSON(t, "result", res["result"], `{"universal":["u"]}`)
		cmp := h.calls("comparator")
		if len(cmp) != 1 {
			t.Fatalf("comparator called %d times", len(cmp))
		}
		wantJSON(t, "comparator input", cmp[0].args["assumption_lists_by_tier"], want)
	}},
	{name: "blind-review", setup: func(h *harness) run {
		return run{slots: []string{
			"reviewer=" + h.svcBinding("reviewer", "append:material"),
			"comparator=" + h.svcBinding("comparator", `{"divergences":["section 2"]}`),
		}, config: []string{tiers}, inputs: []string{"task_brief=explain it back"}, json: `{"materials":["part1","part2"]}`}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		reports := `{"tier":"big","reports":["part1|reviewer","part2|reviewer"]}`
		wantJSON(t, "reviews", res["reviews"], `[[`+reports+`,`+reports+`],[{"tier":"small","reports":["part1|reviewer","part2|reviewer"]}]]`)
		wantJSON(t, "divergences", res["divergences"], `["section 2"]`)
		for _, c := range h.calls("reviewer") {
			want := map[string]string{"part1": "", "part2": "part1|reviewer"}[c.args["material"].(string)]
			if c.args["prior_understanding"] != want {
				t.Errorf("reviewer of %v saw prior %v, want %q", c.args["material"], c.args["prior_understanding"], want)
			}
		}
	}},
	{name: "coherence-probe", setup: func(h *harness) run {
		// Each reader waits until the other direction's first reader has
		// started: the two blocks of `parallel:` must run at once.
		reader := h.shScript("reader.sh", `input=$(cat); printf 'reader %s\n' "$input" >>"$LOG"
i=0; while [ "$(grep -c '^reader ' "$LOG")" -lt 2 ]; do i=$((i+1)); [ $i -gt 100 ] && { echo "alone" >&2; exit 1; }; sleep 0.05; done
printf '%s' "$input" | sed -n 's/.*"corpus":"\([^"]*\)".*/"predicted from \1"/p'
`)
		return run{slots: []string{"reader=" + reader,
			"sync_analyst=" + h.svcBinding("analyst", `{"stale":["install step"]}`),
		}, config: []string{"readers_per_direction=2"}, inputs: []string{"corpus_a=the docs", "corpus_b=the code"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		preds := `{"a_predicts_b":["predicted from the docs","predicted from the docs"],"b_predicts_a":["predicted from the code","predicted from the code"]}`
		wantJSON(t, "predictions", res["predictions"], preds)
		wantJSON(t, "result", res["result"], `{"stale":["install step"]}`)
		an := h.calls("analyst")
		if len(an) != 1 {
			t.Fatalf("analyst called %d times", len(an))
		}
		wantJSON(t, "analyst predictions", an[0].args["predictions"], preds)
		wantJSON(t, "analyst labels", an[0].args["labels"], `{"label_a":"Corpus A","label_b":"Corpus B"}`)
	}},
	{name: "contrastive-probe", setup: func(h *harness) run {
		return run{slots: []string{
			"measurement=" + h.svcBinding("measurement", "append:label"),
			"ranker=" + h.svcBinding("ranker", `{"better":"Candidate B"}`),
		}, json: `{"candidate_a":{"model":"x"},"candidate_b":{"model":"y"},"dimension":"clarity"}`}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "result", res, `{"result":{"better":"Candidate B"},"profile_a":"Candidate A|measurement","profile_b":"Candidate B|measurement"}`)
		seen := map[string]bool{}
		for _, c := range h.calls("measurement") {
			seen[js(c.args["candidate_config"])] = true
		}
		if !seen[`{"model":"x"}`] || !seen[`{"model":"y"}`] {
			t.Errorf("measurement configs %v, want both candidates as objects", seen)
		}
		wantJSON(t, "ranker dimension", h.calls("ranker")[0].args["dimension"], `"clarity"`)
	}},
	{name: "dialectic", setup: func(h *harness) run {
		return run{slots: []string{
			"thesis=" + h.svcBinding("thesis", `"pro 1"`, `"pro 2"`),
			"antithesis=" + h.svcBinding("antithesis", `"con 1"`, `"con 2"`),
		}, config: []string{"rounds=2"}, inputs: []string{"task_brief=tabs or spaces"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		ex := `[{"round":1,"thesis":"pro 1","antithesis":"con 1"},{"round":2,"thesis":"pro 2","antithesis":"con 2"}]`
		wantJSON(t, "exchange", res["exchange"], ex)
		th := h.calls("thesis")
		wantJSON(t, "first thesis prior", th[0].args["prior_antithesis"], `null`)
		wantJSON(t, "second thesis prior", th[1].args["prior_antithesis"], `"con 1"`)
		wantJSON(t, "second antithesis prior", h.calls("antithesis")[1].args["prior_thesis"], `"pro 2"`)
	}},
	{name: "ensemble-synthesizer", setup: func(h *harness) run {
		return run{slots: []string{
			"ensemble_member=" + h.svcBinding("member", `"answer"`),
			"synthesizer=" + h.svcBinding("synth", `"merged"`),
		}, inputs: []string{"task_brief=name the capital"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		// ensemble_size defaults to 3.
		wantJSON(t, "result", res, `{"result":"merged","member_results":["answer","answer","answer"]}`)
		if got := h.labels(); js(got) != `["member","member","member","synth"]` {
			t.Errorf("calls %v: the synthesizer runs once, after every member", got)
		}
	}},
	{name: "fallback-chain", label: "/thrown", setup: func(h *harness) run {
		return run{slots: []string{
			"chain=" + h.svcBinding("c0", "fail:quota exceeded"),
			"chain=" + h.svcBinding("c1", `"from the second"`),
			"chain=" + h.svcBinding("c2", `"never"`),
		}, inputs: []string{"task_brief=answer"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "result", res["result"], `"from the second"`)
		wantJSON(t, "winner", res["winner"], `"chain[1]"`)
		if got := h.labels(); js(got) != `["c0","c1"]` {
			t.Errorf("calls %v: later delegates run only after earlier ones fail", got)
		}
		hist := js(res["failure_history"])
		if want := `"quota exceeded"`; !strings.Contains(hist, "quota exceeded") || !strings.Contains(hist, `"chain[0]"`) {
			t.Errorf("failure_history %s, want chain[0] with %s", hist, want)
		}
	}},
	{name: "fallback-chain", label: "/criteria", setup: func(h *harness) run {
		return run{slots: []string{
			"chain=" + h.svcBinding("c0", `"I do not know"`),
			"chain=" + h.svcBinding("c1", `"Paris"`),
		}, config: []string{"failure_criteria=the answer admits ignorance"}, inputs: []string{"task_brief=capital of France"}}
	}, model: []llmtest.Reply{
		withMatch(llmtest.Verdict(true, "admits ignorance"), "I do not know"),
		withMatch(llmtest.Verdict(false, "a real answer"), "Paris"),
	}, check: func(t *testing.T, h *harness, res map[string]any, srv *llmtest.Server) {
		wantJSON(t, "result", res["result"], `"Paris"`)
		wantJSON(t, "winner", res["winner"], `"chain[1]"`)
		wantJSON(t, "failure_history", res["failure_history"], `[{"delegate":"chain[0]","reason":"matched failure_criteria"}]`)
		if srv.Count() != 2 {
			t.Errorf("model asked %d times, want one judgment per delegate", srv.Count())
		}
	}},
	{name: "guard", label: "/blocks", setup: func(h *harness) run {
		return run{slots: []string{
			"guard=" + h.svcBinding("guard", `{"proceed":false,"reason":"touches production"}`),
			"target=" + h.svcBinding("target", `"deployed"`),
		}, inputs: []string{"task_brief=deploy"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "result", res, `{"result":"touches production","proceeded":false}`)
		if n := len(h.calls("target")); n != 0 {
			t.Errorf("target called %d times behind a blocking guard", n)
		}
	}},
	{name: "guard", label: "/proceeds", setup: func(h *harness) run {
		return run{slots: []string{
			"guard=" + h.svcBinding("guard", `{"proceed":true,"reason":"staging only"}`),
			"target=" + h.svcBinding("target", `"deployed"`),
		}, inputs: []string{"task_brief=deploy"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "result", res, `{"result":"deployed","proceeded":true}`)
	}},
	{name: "map-reduce", setup: func(h *harness) run {
		// Earlier chunks take longer, so they finish last.
		mapper := h.shScript("mapper.sh", `input=$(cat); printf 'mapper %s\n' "$input" >>"$LOG"
i=$(printf '%s' "$input" | sed -n 's/.*"chunk_index":\([0-9]*\).*/\1/p')
sleep 0.$((3 - i))
printf '%s' "$input" | sed -n 's/.*"chunk":"\([^"]*\)".*/"mapped \1"/p'
`)
		return run{slots: []string{"mapper=" + mapper, "reducer=" + h.svcBinding("reducer", "append:task_brief")},
			inputs: []string{"task_brief=count"}, json: `{"chunks":["c0","c1","c2"]}`}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "mapper_results", res["mapper_results"], `["mapped c0","mapped c1","mapped c2"]`)
		wantJSON(t, "result", res["result"], `"count|reducer"`)
		wantJSON(t, "reducer input", h.calls("reducer")[0].args["mapper_results"], `["mapped c0","mapped c1","mapped c2"]`)
		for _, c := range h.calls("mapper") {
			if c.args["chunk_count"] != float64(3) {
				t.Errorf("mapper args %s: want chunk_count 3", js(c.args))
			}
		}
	}},
	{name: "oversight", label: "/abort", setup: func(h *harness) run {
		return run{slots: []string{
			"actor=" + h.svcBinding("actor", "append:task_brief"),
			"observer=" + h.svcBinding("observer", `"looks risky"`),
			"arbiter=" + h.svcBinding("arbiter", `{"decision":"adjust","adjusted_brief":"smaller step"}`, `{"decision":"continue"}`, `{"decision":"abort","reason":"unsafe"}`),
		}, config: []string{"max_cycles=5"}, inputs: []string{"task_brief=migrate"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "result", res, `{"result":"smaller step|actor","cycles":3,"abort_reason":{"decision":"abort","reason":"unsafe"}}`)
		if n := len(h.calls("actor")); n != 3 {
			t.Errorf("actor called %d times, want the run to stop on abort", n)
		}
	}},
	{name: "oversight", label: "/bounded", setup: func(h *harness) run {
		return run{slots: []string{
			"actor=" + h.svcBinding("actor", `"done"`),
			"observer=" + h.svcBinding("observer", `"fine"`),
			"arbiter=" + h.svcBinding("arbiter", `{"decision":"continue"}`),
		}, config: []string{"max_cycles=2"}, inputs: []string{"task_brief=migrate"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "result", res, `{"result":"done","cycles":2}`)
	}},
	{name: "pipeline", setup: func(h *harness) run {
		return run{slots: []string{
			"stages=" + h.svcBinding("s1", "append:input"),
			"stages=" + h.svcBinding("s2", "append:input"),
		}, inputs: []string{"task_brief=raw"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "result", res, `{"result":"raw|s1|s2","stage_outputs":["raw|s1","raw|s1|s2"]}`)
	}},
	{name: "proposer-adversary", setup: func(h *harness) run {
		return run{slots: []string{
			"proposer=" + h.svcBinding("proposer", `"rewrite in Go"`),
			"adversary=" + h.svcBinding("adversary", `{"objections":["no tests"]}`),
		}, inputs: []string{"task_brief=speed up the parser"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "result", res, `{"result":{"proposal":"rewrite in Go","attack":{"objections":["no tests"]}}}`)
		wantJSON(t, "adversary saw", h.calls("adversary")[0].args["proposal"], `"rewrite in Go"`)
	}},
	{name: "race", label: "/first-non-error", setup: func(h *harness) run {
		return run{slots: []string{
			"candidates=" + h.svcBinding("r0", "fail:down"),
			"candidates=" + h.svcBinding("r1", `"one"`),
			"candidates=" + h.svcBinding("r2", `"two"`),
		}, inputs: []string{"task_brief=answer"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		// Upstream waits for every candidate, then takes the first
		// acceptable one in input order.
		wantJSON(t, "result", res["result"], `"one"`)
		wantJSON(t, "winner", res["winner"], `"candidates[1]"`)
		if hist, _ := res["failure_history"].([]any); len(hist) != 3 {
			t.Errorf("failure_history %s: want all three attempts", js(res["failure_history"]))
		}
	}},
	{name: "race", label: "/criteria", setup: func(h *harness) run {
		return run{slots: []string{
			"candidates=" + h.svcBinding("r0", `"no source given"`),
			"candidates=" + h.svcBinding("r1", `"see RFC 9110"`),
		}, config: []string{"acceptance_criteria=the answer cites a source"}, inputs: []string{"task_brief=answer"}}
	}, model: []llmtest.Reply{
		withMatch(llmtest.Verdict(false, "no citation"), "no source given"),
		withMatch(llmtest.Verdict(true, "cites an RFC"), "RFC 9110"),
	}, check: func(t *testing.T, h *harness, res map[string]any, srv *llmtest.Server) {
		wantJSON(t, "result", res["result"], `"see RFC 9110"`)
		wantJSON(t, "winner", res["winner"], `"candidates[1]"`)
		if srv.Count() != 2 {
			t.Errorf("model asked %d times, want 2", srv.Count())
		}
	}},
	{name: "ratchet", setup: func(h *harness) run {
		return run{slots: []string{
			"advancer=" + h.svcBinding("advancer", `"s1"`, `"s2"`, `"s3"`),
			"certifier=" + h.svcBinding("certifier", `{"verdict":"certify"}`, `{"verdict":"reject","reason":"no proof"}`, `{"verdict":"certify"}`),
		}, config: []string{"max_steps=3"}, inputs: []string{"task_brief=prove it"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "result", res, `{"result":["s1","s3"]}`)
		adv := h.calls("advancer")
		wantJSON(t, "third proposal's feedback", adv[2].args["rejection_feedback"], `{"verdict":"reject","reason":"no proof"}`)
		wantJSON(t, "third proposal's progress", adv[2].args["certified_progress"], `["s1"]`)
	}},
	{name: "refine", setup: func(h *harness) run {
		return run{slots: []string{
			"refiner=" + h.svcBinding("refiner", `"v1"`, `"v2"`, `"v3"`),
			"evaluator=" + h.svcBinding("evaluator", `{"score":0.3,"suggestions":"shorter"}`, `{"score":0.85,"suggestions":"fine"}`),
		}, inputs: []string{"task_brief=summarize"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		// threshold defaults to 0.8: the run stops in round 2.
		wantJSON(t, "result", res, `{"result":"v2","score":0.85,"rounds_used":2}`)
		ref := h.calls("refiner")
		if len(ref) != 2 {
			t.Fatalf("refiner called %d times, want 2", len(ref))
		}
		wantJSON(t, "second round input", ref[1].args, `{"task_brief":"summarize","current_result":"v1","current_score":0.3,"improvement_suggestions":"shorter"}`)
	}},
	{name: "retry-with-learning", label: "/thrown", setup: func(h *harness) run {
		return run{slots: []string{"target=" + h.svcBinding("target", "fail:timeout 1", "fail:timeout 2", `"ok"`)},
			inputs: []string{"task_brief=fetch"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "result", res["result"], `"ok"`)
		wantJSON(t, "attempts", res["attempts"], `3`)
		if hist, _ := res["failure_history"].([]any); len(hist) != 2 {
			t.Errorf("failure_history %s: want two entries", js(res["failure_history"]))
		}
		if hist := js(h.calls("target")[2].args["failure_history"]); !strings.Contains(hist, "timeout 2") {
			t.Errorf("third attempt saw history %s, want the earlier failures", hist)
		}
	}},
	{name: "retry-with-learning", label: "/criteria", setup: func(h *harness) run {
		return run{slots: []string{"target=" + h.svcBinding("target", `"TODO"`, `"done properly"`)},
			config: []string{"failure_criteria=the result is a TODO placeholder"}, inputs: []string{"task_brief=write it"}}
	}, model: []llmtest.Reply{
		withMatch(llmtest.Verdict(true, "placeholder"), "TODO"),
		withMatch(llmtest.Verdict(false, "real work"), "done properly"),
	}, check: func(t *testing.T, h *harness, res map[string]any, srv *llmtest.Server) {
		wantJSON(t, "result", res, `{"result":"done properly","attempts":2,"failure_history":[{"attempt":1,"result":"TODO","reason":"matched failure_criteria"}]}`)
	}},
	{name: "stochastic-probe", setup: func(h *harness) run {
		return run{slots: []string{
			"probe=" + h.svcBinding("probe", `"reading"`),
			"analyst=" + h.svcBinding("analyst", `{"stable":["tone"]}`),
		}, config: []string{"sample_size=4", "model=small"}, inputs: []string{"task_brief=summarize", "material=text"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "result", res, `{"result":{"stable":["tone"]},"responses":["reading","reading","reading","reading"]}`)
		for _, c := range h.calls("probe") {
			wantJSON(t, "probe args", c.args, `{"task_brief":"summarize","material":"text","model":"small"}`)
		}
	}},
	{name: "worker-critic", label: "/structured", setup: func(h *harness) run {
		return run{slots: []string{
			"worker=" + h.svcBinding("worker", `"draft 1"`, `"draft 2"`),
			"critic=" + h.svcBinding("critic", `{"verdict":"reject","reason":"too short"}`, `{"verdict":"accept"}`),
		}, inputs: []string{"task_brief=write", "criteria=at least two paragraphs"}}
	}, check: func(t *testing.T, h *harness, res map[string]any, _ *llmtest.Server) {
		wantJSON(t, "result", res, `{"result":"draft 2","attempts":2}`)
		wantJSON(t, "second critique", h.calls("worker")[1].args["critique"], `{"verdict":"reject","reason":"too short"}`)
		wantJSON(t, "critic criteria", h.calls("critic")[0].args["criteria"], `"at least two paragraphs"`)
	}},
	{name: "worker-critic", label: "/prose-verdict", setup: func(h *harness) run {
		return run{slots: []string{
			"worker=" + h.svcBinding("worker", `"draft 1"`),
			"critic=" + h.svcBinding("critic", `"Good enough, ship it."`),
		}, inputs: []string{"task_brief=write", "criteria=clear"}}
	}, model: []llmtest.Reply{llmtest.Verdict(true, "the critic approves")},
		check: func(t *testing.T, h *harness, res map[string]any, srv *llmtest.Server) {
			wantJSON(t, "result", res, `{"result":"draft 1","attempts":1}`)
			if srv.Count() != 1 {
				t.Errorf("model asked %d times, want 1", srv.Count())
			}
		}},
}

func withMatch(r llmtest.Reply, match string) llmtest.Reply {
	r.Match = match
	return r
}
