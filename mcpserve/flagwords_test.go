package mcpserve

import (
	"strings"
	"testing"
)

// A run the run tool could not start is refused in the words of the
// tool's arguments (inputs, slots, config), not of the command line's
// flags, which the tool's caller has none of.
func TestRunToolUsageInItsOwnWords(t *testing.T) {
	w := newHostWorld(t)
	for _, c := range []struct {
		in   RunInput
		want []string
	}{
		{RunInput{File: "std/patterns/ratchet.prose.md", Slots: map[string]any{"advancer": "exec:true", "certifier": "exec:true"}},
			[]string{`missing required input "task_brief": give it in inputs, as {"task_brief": VALUE}`}},
		{RunInput{File: "std/patterns/ratchet.prose.md", Slots: map[string]any{"advancer": "exec:true"}, Inputs: map[string]any{"task_brief": 5}},
			[]string{`inputs.task_brief: want a string`, `add slots {"certifier": "exec:COMMAND"}`}},
		{RunInput{File: "std/patterns/ratchet.prose.md", Slots: map[string]any{"advancer": "exec:", "certifier": "execc:true"}, Inputs: map[string]any{"task_brief": "x"}},
			[]string{`slots.advancer: exec: needs a command`, `slots.certifier: cannot tell what "execc:true" is`}},
	} {
		msg := w.tool(t, "run", c.in, nil)
		for _, want := range c.want {
			if !strings.Contains(msg, want) {
				t.Errorf("run %+v: %q, want it to say %q", c.in, msg, want)
			}
		}
		if strings.Contains(msg, "--") {
			t.Errorf("run %+v: %q names a flag", c.in, msg)
		}
	}
}
