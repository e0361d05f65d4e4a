package std_test

import (
	"strings"
	"testing"
)

// Argument, oversight of opinions and measurement: dialectic,
// proposer-adversary, ensemble-synthesizer, stochastic-probe, blind-review,
// assumption-miner, coherence-probe, contrastive-probe.

func TestDialecticExchange(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "dialectic",
		slots: []string{
			"thesis=" + h.svcBinding("thesis", `"t1"`, `"t2"`, `"t3"`),
			"antithesis=" + h.svcBinding("antithesis", `"a1"`, `"a2"`, `"a3"`),
		},
		config: []string{"rounds=3"},
		inputs: []string{"task_brief=is tabs better"},
	})
	want := `[{"round":1,"thesis":"t1","antithesis":"a1"},{"round":2,"thesis":"t2","antithesis":"a2"},{"round":3,"thesis":"t3","antithesis":"a3"}]`
	wantJSON(t, "exchange", res["exchange"], want)
	wantJSON(t, "result", res["result"], want)
	if got := js(h.labels()); got != `["thesis","antithesis","thesis","antithesis","thesis","antithesis"]` {
		t.Errorf("turn order %s", got)
	}
	th, an := h.calls("thesis"), h.calls("antithesis")
	wantJSON(t, "first thesis prior", th[0].args["prior_antithesis"], `null`)
	wantJSON(t, "second thesis prior", th[1].args["prior_antithesis"], `"a1"`)
	wantJSON(t, "third antithesis prior", an[2].args["prior_thesis"], `"t3"`)
}

func TestProposerAdversary(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "proposer-adversary",
		slots: []string{
			"proposer=" + h.svcBinding("proposer", `"use a cache"`),
			"adversary=" + h.svcBinding("adversary", `"stale reads"`),
		},
		inputs: []string{"task_brief=speed up"},
	})
	wantJSON(t, "result", res, `{"result":{"proposal":"use a cache","attack":"stale reads"}}`)
	wantJSON(t, "proposer args", h.calls("proposer")[0].args, `{"task_brief":"speed up"}`)
	wantJSON(t, "adversary args", h.calls("adversary")[0].args, `{"task_brief":"speed up","proposal":"use a cache"}`)
}

func TestEnsembleSynthesizer(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "ensemble-synthesizer",
		slots: []string{
			"ensemble_member=" + h.svcBinding("member", `"guess"`),
			"synthesizer=" + h.svcBinding("synth", `"merged"`),
		},
		config: []string{"ensemble_size=4"},
		inputs: []string{"task_brief=estimate"},
	})
	wantJSON(t, "result", res, `{"result":"merged","member_results":["guess","guess","guess","guess"]}`)
	members := h.calls("member")
	if len(members) != 4 {
		t.Fatalf("%d members ran, want ensemble_size=4", len(members))
	}
	for _, c := range members {
		if js(c.args) != `{"task_brief":"estimate"}` {
			t.Errorf("member got %s, want the identical brief", js(c.args))
		}
	}
	if got := h.calls("synth"); len(got) != 1 || len(got[0].args["member_results"].([]any)) != 4 {
		t.Errorf("synthesizer calls %v", got)
	}
}

func TestStochasticProbeIdenticalInputs(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "stochastic-probe",
		slots: []string{
			"probe=" + h.svcBinding("probe", `"reading"`),
			"analyst=" + h.svcBinding("analyst", `{"class":"deterministic"}`),
		},
		config: []string{"sample_size=5", "model=m-small"},
		inputs: []string{"task_brief=what does it mean", "material=the text"},
	})
	wantJSON(t, "result", res["result"], `{"class":"deterministic"}`)
	probes := h.calls("probe")
	if len(probes) != 5 {
		t.Fatalf("%d probe runs, want sample_size=5", len(probes))
	}
	for _, c := range probes {
		wantJSON(t, "probe args", c.args, `{"task_brief":"what does it mean","material":"the text","model":"m-small"}`)
	}
	if n := len(res["responses"].([]any)); n != 5 {
		t.Errorf("%d responses returned", n)
	}
}

func TestBlindReviewProgressiveDisclosure(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "blind-review",
		slots: []string{
			"reviewer=" + h.svcBinding("reviewer", `append:material`),
			"comparator=" + h.svcBinding("comparator", `{"summary":"clear","divergences":["none"]}`),
		},
		inputs: []string{"task_brief=explain"},
		json:   `{"tiers": [{"model": "big", "count": 2}, {"model": "small", "count": 1}], "materials": ["m1", "m2"]}`,
	})
	wantJSON(t, "divergences", res["divergences"], `["none"]`)
	wantJSON(t, "reviews", res["reviews"], `[[{"tier":"big","reports":["m1|reviewer","m2|reviewer"]},{"tier":"big","reports":["m1|reviewer","m2|reviewer"]}],[{"tier":"small","reports":["m1|reviewer","m2|reviewer"]}]]`)
	revs := h.calls("reviewer")
	if len(revs) != 6 {
		t.Fatalf("%d reviewer calls, want 3 reviewers x 2 materials", len(revs))
	}
	byModel := map[string]int{}
	for _, c := range revs {
		byModel[c.args["model"].(string)]++
		switch c.args["material"] {
		case "m1":
			wantJSON(t, "prior before m1", c.args["prior_understanding"], `""`)
		case "m2":
			wantJSON(t, "prior before m2", c.args["prior_understanding"], `"m1|reviewer"`)
		}
		if c.args["task_brief"] != "explain" {
			t.Errorf("reviewer brief %v", c.args["task_brief"])
		}
	}
	if js(byModel) != `{"big":4,"small":2}` {
		t.Errorf("calls per tier %v", byModel)
	}
	if h.labels()[6] != "comparator" {
		t.Errorf("the comparator must run after every reviewer: %v", h.labels())
	}
}

func TestAssumptionMinerTiers(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "assumption-miner",
		slots: []string{
			"miner=" + h.svcBinding("miner", `["a network"]`),
			"comparator=" + h.svcBinding("comparator", `{"universal":["a network"]}`),
		},
		inputs: []string{"material=the spec"},
		json:   `{"tiers": [{"model": "big", "count": 1}, {"model": "small", "count": 2}]}`,
	})
	wantJSON(t, "raw", res["raw_assumptions"], `[[{"tier":"big","assumptions":["a network"]}],[{"tier":"small","assumptions":["a network"]},{"tier":"small","assumptions":["a network"]}]]`)
	miners := h.calls("miner")
	if len(miners) != 3 {
		t.Fatalf("%d miners, want the tier counts' sum 3", len(miners))
	}
	prompt := miners[0].args["prompt"]
	for _, c := range miners {
		if c.args["material"] != "the spec" || c.args["prompt"] != prompt {
			t.Errorf("miner got %s; every miner needs the same material and instructions", js(c.args))
		}
	}
}

func TestCoherenceProbeKeepsCorporaApart(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "coherence-probe",
		slots: []string{
			"reader=" + h.svcBinding("reader", `append:corpus`),
			"sync_analyst=" + h.svcBinding("analyst", `"drift report"`),
		},
		config: []string{"readers_per_direction=2", "label_a=Code"},
		inputs: []string{"corpus_a=CODE-TEXT", "corpus_b=DOC-TEXT"},
	})
	wantJSON(t, "predictions", res["predictions"], `{"a_predicts_b":["CODE-TEXT|reader","CODE-TEXT|reader"],"b_predicts_a":["DOC-TEXT|reader","DOC-TEXT|reader"]}`)
	readers := h.calls("reader")
	if len(readers) != 4 {
		t.Fatalf("%d readers, want 2 per direction", len(readers))
	}
	for _, c := range readers {
		s := js(c.args)
		if strings.Contains(s, "CODE-TEXT") == strings.Contains(s, "DOC-TEXT") {
			t.Errorf("a reader saw both corpora or neither: %s", s)
		}
		if strings.Contains(s, "CODE-TEXT") && c.args["counterpart_label"] != "Corpus B" {
			t.Errorf("reader of A predicts %v, want Corpus B", c.args["counterpart_label"])
		}
	}
	an := h.calls("analyst")
	wantJSON(t, "analyst labels", an[0].args["labels"], `{"label_a":"Code","label_b":"Corpus B"}`)
}

func TestContrastiveProbeMeasuresInIsolation(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "contrastive-probe",
		slots: []string{
			"measurement=" + h.svcBinding("measure", `append:label`),
			"ranker=" + h.svcBinding("ranker", `{"better":"A","magnitude":"clear"}`),
		},
		config: []string{"dimension=clarity", `candidate_a={"doc":"AAA"}`, `candidate_b={"doc":"BBB"}`},
	})
	wantJSON(t, "result", res, `{"result":{"better":"A","magnitude":"clear"},"profile_a":"Candidate A|measure","profile_b":"Candidate B|measure"}`)
	ms := h.calls("measure")
	if len(ms) != 2 {
		t.Fatalf("%d measurements, want 2", len(ms))
	}
	for _, c := range ms {
		s := js(c.args)
		if strings.Contains(s, "AAA") == strings.Contains(s, "BBB") {
			t.Errorf("a measurement saw both candidates or neither: %s", s)
		}
	}
	rk := h.calls("ranker")
	if rk[0].args["dimension"] != "clarity" {
		t.Errorf("ranker args %s", js(rk[0].args))
	}
}
