package temporal

import (
	"strings"
	"testing"
)

// A choice's options cross to the worker's judge activity, and the
// workflow runs the option it picks, as a local run does.
func TestChoiceThroughTheWorkflow(t *testing.T) {
	svc := svcPath(t)
	want := map[string]string{
		"choice-fix":  `{"outcome":{"taken":"fix","result":"parser fixed"}}`,
		"choice-ship": `{"outcome":{"taken":"ship","result":"ready to ship"}}`,
	}
	for _, c := range stdCases() {
		w, ok := want[c.name]
		if !ok {
			continue
		}
		delete(want, c.name)
		remote := runWorkflow(t, &c, svc)
		if remote.err != "" || remote.result != w {
			t.Errorf("%s: got %s (error %q), want %s", c.name, remote.result, remote.err, w)
		}
		if c.name == "choice-ship" && strings.Contains(strings.Join(remote.calls, "\n"), "fixer") {
			t.Errorf("%s: the fix option ran: %v", c.name, remote.calls)
		}
	}
	if len(want) > 0 {
		t.Errorf("cases missing from stdCases: %v", want)
	}
}
