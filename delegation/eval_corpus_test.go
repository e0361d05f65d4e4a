package delegation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

func TestCorpusRetryWithLearning(t *testing.T) {
	prog := corpusPattern(t, "retry-with-learning")
	for _, tc := range []struct {
		name      string
		fails     int
		result    string
		attempts  int64
		histories int
	}{
		{"fails twice then succeeds", 2, `"output 3"`, 3, 2},
		{"always fails", 1000, "null", 3, 3},
		{"succeeds at once", 0, `"output 1"`, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			var seenHistory []int
			var lastArgs *Object
			c := newCaller().on("target", func(_ context.Context, req *CallRequest) (Value, error) {
				k := n.Add(1)
				h, _ := req.Args.Get("failure_history")
				seenHistory = append(seenHistory, h.(*List).Len())
				lastArgs = req.Args
				if int(k) <= tc.fails {
					return nil, fmt.Errorf("attempt %d crashed", k)
				}
				return fmt.Sprintf("output %d", k), nil
			})
			g := map[string]Value{"target": svc("target"), "task_brief": "do it", "max_retries": int64(3), "failure_criteria": nil}
			v, err := Run(context.Background(), prog, g, &Host{Caller: c, Judge: fakeJudge(), Runtime: newFakeRuntime()})
			if err != nil {
				t.Fatal(err)
			}
			o := v.(*Object)
			res, _ := o.Get("result")
			att, _ := o.Get("attempts")
			hist, _ := o.Get("failure_history")
			if js(t, res) != tc.result || att != tc.attempts || hist.(*List).Len() != tc.histories {
				t.Errorf("got %s", js(t, v))
			}
			// Arguments are a snapshot: the history recorded after the
			// last call does not show in what that call received.
			if h, _ := lastArgs.Get("failure_history"); h.(*List).Len() != len(seenHistory)-1 {
				t.Errorf("last call's history grew to %d after the call", h.(*List).Len())
			}
			for i, h := range seenHistory {
				if h != i {
					t.Errorf("attempt %d saw %d history entries, want %d", i+1, h, i)
				}
			}
			if tc.histories > 0 {
				first, _ := hist.(*List).Index(0)
				if s := js(t, first); !strings.Contains(s, `"reason":{"message":"call 'target' failed after 1 attempt: attempt 1 crashed","kind":"call"`) {
					t.Errorf("first history entry %s", s)
				}
			}
		})
	}
}

func TestCorpusRatchet(t *testing.T) {
	prog := corpusPattern(t, "ratchet")
	var proposals, feedbacks []string
	var k atomic.Int64
	c := newCaller().on("advancer", func(_ context.Context, req *CallRequest) (Value, error) {
		fb, _ := req.Args.Get("rejection_feedback")
		feedbacks = append(feedbacks, js(t, fb))
		p := fmt.Sprintf("step %d", k.Add(1))
		proposals = append(proposals, p)
		return p, nil
	}).on("certifier", func(_ context.Context, req *CallRequest) (Value, error) {
		step, _ := req.Args.Get("proposed_step")
		o := NewObject()
		if strings.HasSuffix(step.(string), "2") || strings.HasSuffix(step.(string), "3") {
			o.Set("verdict", "reject")
			o.Set("reason", "not "+step.(string))
		} else {
			o.Set("verdict", "certify")
		}
		return o, nil
	})
	g := map[string]Value{"advancer": svc("advancer"), "certifier": svc("certifier"), "task_brief": "climb",
		"max_steps": int64(5), "certified_progress": jv(t, `["step 0"]`)}
	v, err := Run(context.Background(), prog, g, &Host{Caller: c, Judge: fakeJudge(), Runtime: newFakeRuntime()})
	if err != nil {
		t.Fatal(err)
	}
	if got := js(t, v); got != `{"result":["step 0","step 1","step 4","step 5"]}` {
		t.Errorf("got %s", got)
	}
	if len(proposals) != 5 {
		t.Errorf("%d proposals, want max_steps = 5", len(proposals))
	}
	want := []string{"null", "null", `{"verdict":"reject","reason":"not step 2"}`, `{"verdict":"reject","reason":"not step 3"}`, "null"}
	if strings.Join(feedbacks, "|") != strings.Join(want, "|") {
		t.Errorf("feedback seen by the advancer:\n%s\nwant\n%s", strings.Join(feedbacks, "\n"), strings.Join(want, "\n"))
	}
}

func TestCorpusBlindReview(t *testing.T) {
	prog := corpusPattern(t, "blind-review")
	c := newCaller().on("reviewer", func(_ context.Context, req *CallRequest) (Value, error) {
		m, _ := req.Args.Get("material")
		prior, _ := req.Args.Get("prior_understanding")
		model, _ := req.Args.Get("model")
		return fmt.Sprintf("%v:%v<%v", model, m, prior), nil
	}).on("comparator", func(_ context.Context, req *CallRequest) (Value, error) {
		return jv(t, `{"divergences":["none"]}`), nil
	})
	g := map[string]Value{"reviewer": svc("reviewer"), "comparator": svc("comparator"), "task_brief": "read",
		"tiers": jv(t, `[{"model":"big","count":2},{"model":"small","count":1}]`), "materials": jv(t, `["a","b"]`), "output_dir": nil}
	v, err := Run(context.Background(), prog, g, &Host{Caller: c, Runtime: newFakeRuntime()})
	if err != nil {
		t.Fatal(err)
	}
	reviews, _ := v.(*Object).Get("reviews")
	want := `[[{"tier":"big","reports":["big:a<","big:b<big:a<"]},{"tier":"big","reports":["big:a<","big:b<big:a<"]}],[{"tier":"small","reports":["small:a<","small:b<small:a<"]}]]`
	if got := js(t, reviews); got != want {
		t.Errorf("reviews\n%s\nwant\n%s", got, want)
	}
	if d, _ := v.(*Object).Get("divergences"); js(t, d) != `["none"]` {
		t.Errorf("divergences %s", js(t, d))
	}
}

func TestCorpusRace(t *testing.T) {
	prog := corpusPattern(t, "race")
	c := newCaller().on("c1", func(context.Context, *CallRequest) (Value, error) { return nil, errors.New("down") }).
		on("c2", func(context.Context, *CallRequest) (Value, error) { return "answer", nil })
	g := map[string]Value{"candidates": NewList(svc("c1"), svc("c2")), "task_brief": "go", "acceptance_criteria": nil}
	v, err := Run(context.Background(), prog, g, &Host{Caller: c, Judge: fakeJudge(), Runtime: newFakeRuntime()})
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*Object)
	res, _ := o.Get("result")
	win, _ := o.Get("winner")
	hist, _ := o.Get("failure_history")
	if res != "answer" || win != svc("c2") || hist.(*List).Len() != 2 {
		t.Errorf("got %s", js(t, v))
	}
	first, _ := hist.(*List).Index(0)
	if e, _ := first.(*Object).Get("error"); !strings.Contains(js(t, e), `"slot":"c1"`) {
		t.Errorf("first attempt %s", js(t, first))
	}
}
