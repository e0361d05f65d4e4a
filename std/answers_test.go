package std_test

import (
	"strings"
	"testing"
)

// Answers a user's own services give that are not exactly what a slot's
// ensures asks for, and inputs that do not fit together: each pattern
// either does the sensible thing or fails with a clear message.

func TestOversightAdjustWithoutBriefKeepsTheBrief(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "oversight",
		slots: []string{
			"actor=" + h.svcBinding("actor", "append:task_brief"),
			"observer=" + h.svcBinding("observer", `"ok"`),
			"arbiter=" + h.svcBinding("arbiter", `{"decision":"adjust","reason":"try again"}`),
		},
		config: []string{"max_cycles=2"},
		inputs: []string{"task_brief=migrate"},
	})
	wantJSON(t, "result", res, `{"result":"migrate|actor","cycles":2,"abort_reason":null}`)
	for _, c := range h.calls("actor") {
		if c.args["task_brief"] != "migrate" {
			t.Errorf("actor got brief %v after an adjust without a revised brief", c.args["task_brief"])
		}
	}
}

func TestOversightAbortWithoutReasonReportsTheAnswer(t *testing.T) {
	h := newHarness(t)
	res := h.mustRun(run{pattern: "oversight",
		slots: []string{
			"actor=" + h.svcBinding("actor", `"half done"`),
			"observer=" + h.svcBinding("observer", `"it broke the build"`),
			"arbiter=" + h.svcBinding("arbiter", "abort"),
		},
		inputs: []string{"task_brief=migrate"},
	})
	wantJSON(t, "result", res, `{"result":"half done","cycles":1,"abort_reason":"abort"}`)
}

func TestRefineEvaluatorWithoutScoreFails(t *testing.T) {
	h := newHarness(t)
	_, err := h.run(run{pattern: "refine",
		slots: []string{
			"refiner=" + h.svcBinding("refiner", `"draft"`),
			"evaluator=" + h.svcBinding("evaluator", "0.9"),
		},
		inputs: []string{"task_brief=write"},
	})
	if err == nil || !strings.Contains(err.Error(), "refine.prose.md:") || !strings.Contains(err.Error(), "{score, suggestions}") {
		t.Errorf("err = %v, want the evaluator's expected answer with the position", err)
	}
}

func TestFanOutBriefsMustFitTheDelegates(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inputs []string
		json   string
		want   string
	}{
		{"no brief", nil, "", "needs briefs (one per delegate) or a task_brief"},
		{"too few", nil, `{"briefs":["only one"]}`, "exactly one brief per delegate"},
		{"too many", nil, `{"briefs":["a","b","c"]}`, "exactly one brief per delegate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			_, err := h.run(run{pattern: "fan-out",
				slots:  []string{"delegates=" + h.svcBinding("d0", `"x"`), "delegates=" + h.svcBinding("d1", `"y"`)},
				inputs: tc.inputs, json: tc.json,
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fan-out.prose.md:") {
				t.Errorf("err = %v, want %q with the position", err, tc.want)
			}
			if n := len(h.calls()); n != 0 {
				t.Errorf("%d delegates ran", n)
			}
		})
	}
}
