package ui

import (
	"strings"
	"testing"
)

// TestChoiceShown: a choice's judgment shows its criteria and the label
// picked, not the "error" of a judgment without a verdict.
func TestChoiceShown(t *testing.T) {
	r := newRuns(t, "chosen")
	_, ts := newTestServer(t, Options{RunDir: r.runDir})
	_, body := get(t, ts.Client(), ts.URL+"/ui/runs/"+r.ids["chosen"])
	for _, want := range []string{"judgment <q>how to go on after d</q>", "picked &#34;hold&#34;, asked judge-model-1 (30 tokens in, 3 out)", "held"} {
		if !strings.Contains(body, want) {
			t.Errorf("the run's page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "error: ") {
		t.Errorf("the page shows an error:\n%s", body)
	}
}
