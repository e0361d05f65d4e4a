package lint_test

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestRequiresTypoAtSlotsLine: a misspelling in a slot's requires is
// reported on the Slots line that holds it, at the misspelt word, and the
// correct argument of the call draws nothing.
func TestRequiresTypoAtSlotsLine(t *testing.T) {
	src := "---\nname: r\nkind: pattern\n---\n\n# R\n\nOne call.\n\n### Slots\n\n" +
		"- `worker`\n  - requires: task_breif\n  - ensures: a draft\n\n" +
		"### Requires\n\n- Pattern instance receives:\n    task_brief: string -- what to do\n\n" +
		"### Delegation\n\n```prose\nlet d = call worker\n  task_brief: task_brief\nreturn { result: d }\n```\n"
	res := lintFS(t, fstest.MapFS{"r.prose.md": {Data: []byte(src)}})
	out := res.Diags.String()
	want := "r.prose.md:13:15: warning: slot 'worker' requires 'task_breif', which looks like a misspelling of 'task_brief'"
	if !strings.Contains(out, want) {
		t.Errorf("findings:\n%s\nwant %q", out, want)
	}
	if strings.Contains(out, ":25:") {
		t.Errorf("the correct argument (line 25) draws a finding:\n%s", out)
	}
}
