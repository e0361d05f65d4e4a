package std_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/proselang/prose/delegation"
)

// Nested specs as services: a slot bound to another pattern.

func TestRetryWithLearningAroundRefine(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "retry-with-learning",
		slots: []string{
			"target=std/patterns/refine.prose.md",
			"target.refiner=" + h.svcBinding("refiner", "fail:refiner crashed", `"v1"`, `"v2"`),
			"target.evaluator=" + h.svcBinding("evaluator", `{"score":0.4,"suggestions":"more"}`, `{"score":0.7,"suggestions":"ok"}`),
		},
		config: []string{"max_retries=3", "target.max_rounds=2", "target.threshold=0.6"},
		inputs: []string{"task_brief=summarize"},
	})
	// Attempt 1: the inner refiner throws, the nested run fails, the outer
	// pattern records it. Attempt 2: refine runs two rounds and reaches 0.7.
	wantJSON(t, "result", res["result"], `{"result":"v2","score":0.7,"rounds_used":2}`)
	wantJSON(t, "attempts", res["attempts"], `2`)
	hist := js(res["failure_history"])
	if !strings.Contains(hist, "refiner crashed") {
		t.Errorf("failure_history %s lacks the nested failure", hist)
	}
	for _, c := range h.calls("refiner") {
		if c.args["task_brief"] != "summarize" {
			t.Errorf("inner refiner got brief %v, want the outer call's argument", c.args["task_brief"])
		}
	}
	if n := len(h.calls("refiner")); n != 3 {
		t.Errorf("refiner called %d times, want 1 + 2 rounds", n)
	}
}

// ids records the ids of call events.
type ids struct {
	mu  sync.Mutex
	ids []string
}

func (r *ids) Record(ev *delegation.Event) {
	if ev.Kind == "call.start" {
		r.mu.Lock()
		r.ids = append(r.ids, ev.Path.Key()+" "+ev.Slot)
		r.mu.Unlock()
	}
}

func TestNestedCallIDsArePrefixed(t *testing.T) {
	h := newHarness(t)
	rec := &ids{}
	_, err := runWith(h, run{pattern: "guard",
		slots: []string{
			"guard=" + h.svcBinding("guard", `{"proceed":true}`),
			"target=" + filepath.Join("..", "testdata", "std", "wrap.prose.md"),
			"target.inner=" + h.svcBinding("inner", `"deep"`),
		},
		inputs: []string{"task_brief=go"},
	}, rec)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rec.ids, "; ")
	t.Log(got)
	// guard's call, target's call, then the wrapped inner call with the
	// target call's id in front.
	if len(rec.ids) != 3 || !strings.Contains(rec.ids[2], ">") || !strings.HasPrefix(rec.ids[2], strings.Fields(rec.ids[1])[0]+">") {
		t.Errorf("call ids %s: want the nested call's id prefixed by its outer call's", got)
	}
	if !strings.HasSuffix(rec.ids[2], " target.inner") {
		t.Errorf("nested service name in %q, want target.inner", rec.ids[2])
	}
}

func TestNestedBindingErrorsNameDottedPath(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		name  string
		extra []string
		cfg   []string
		want  []string
	}{
		{"typo", []string{"target.refinr=exec:true", "target.evaluator=exec:true"}, nil, []string{`"target.refinr"`, "target.refiner"}},
		{"unbound", []string{"target.refiner=exec:true"}, nil, []string{`"target.evaluator"`}},
		{"config", []string{"target.refiner=exec:true", "target.evaluator=exec:true"}, []string{"target.max_round=2"}, []string{`"target.max_round"`, "max_rounds"}},
		{"bad type", []string{"target.refiner=exec:true", "target.evaluator=exec:true"}, []string{"target.max_rounds=many"}, []string{"target.max_rounds"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.run(run{pattern: "retry-with-learning",
				slots:  append([]string{"target=std/patterns/refine.prose.md"}, tc.extra...),
				config: tc.cfg,
				inputs: []string{"task_brief=x"},
			})
			if err == nil {
				t.Fatal("bound without error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
		})
	}
}

func TestNestedSpecWithErrorsIsRefused(t *testing.T) {
	h := newHarness(t)
	bad := filepath.Join(t.TempDir(), "bad.prose.md")
	src, err := os.ReadFile(filepath.Join("..", "testdata", "std", "wrap.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.Replace(strings.Replace(string(src), "name: wrap", "name: bad", 1), "task_brief: task_brief\n", "task_brief: no_such_name\n", 1))
	if err := os.WriteFile(bad, src, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = h.run(run{pattern: "guard",
		slots:  []string{"guard=exec:true", "target=" + bad, "target.inner=exec:true"},
		inputs: []string{"task_brief=go"},
	})
	if err == nil || !strings.Contains(err.Error(), "target") || !strings.Contains(err.Error(), "no_such_name") {
		t.Errorf("error %v: want the slot path and the nested spec's finding", err)
	}
	if n := len(h.calls()); n != 0 {
		t.Errorf("%d services ran before the bad nested spec was refused", n)
	}
}

// wrapChain binds depth nested copies of wrap.prose.md below a top-level
// wrap, the innermost inner slot to a program.
func wrapChain(h *harness, depth int) run {
	wrap := filepath.Join("..", "testdata", "std", "wrap.prose.md")
	var slots []string
	path := "inner"
	for range depth {
		slots = append(slots, path+"="+wrap)
		path += ".inner"
	}
	slots = append(slots, path+"="+h.svcBinding("leaf", `"leaf"`))
	return run{pattern: wrap, slots: slots, inputs: []string{"task_brief=down"}}
}

func TestNestingDepthIsCapped(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(wrapChain(h, 16))
	want := `"leaf"`
	for range 17 {
		want = `{"result":` + want + `}`
	}
	wantJSON(t, "16 nested specs", res, want)
	_, err := h.run(wrapChain(h, 17))
	if err == nil || !strings.Contains(err.Error(), "16") {
		t.Errorf("17 nested specs: error %v, want the depth limit", err)
	}
}

func TestContrastiveProbeOverNestedStochasticProbe(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "contrastive-probe",
		slots: []string{
			"measurement=std/patterns/stochastic-probe.prose.md",
			"measurement.probe=" + h.svcBinding("probe", `append:material`),
			"measurement.analyst=" + h.svcBinding("analyst", `append:material`),
			"ranker=" + h.svcBinding("ranker", `{"better":"A"}`),
		},
		config: []string{
			"dimension=stability",
			`candidate_a={"task_brief":"meaning?","material":"AAA","sample_size":2}`,
			`candidate_b={"task_brief":"meaning?","material":"BBB","sample_size":3}`,
		},
	})
	wantJSON(t, "profile_a", res["profile_a"], `{"result":"AAA|analyst","responses":["AAA|probe","AAA|probe"]}`)
	wantJSON(t, "profile_b", res["profile_b"], `{"result":"BBB|analyst","responses":["BBB|probe","BBB|probe","BBB|probe"]}`)
	if n := len(h.calls("probe")); n != 5 {
		t.Errorf("%d probe calls, want 2 + 3 (sample_size from each candidate)", n)
	}
}

// runWith is harness.run with extra recorders.
func runWith(h *harness, r run, recs ...delegation.Recorder) (any, error) {
	h.t.Helper()
	return h.runOpts(context.Background(), r, recs)
}
