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

// TestSlotRequiresTypesLiteralArguments: a literal argument of another
// type than the slot's requires gives it is an error at the argument, as
// the run would refuse the call; one of that type draws nothing.
func TestSlotRequiresTypesLiteralArguments(t *testing.T) {
	src := "---\nname: r\nkind: pattern\n---\n\n# R\n\nOne call.\n\n### Slots\n\n" +
		"- `critic`\n  - requires: `draft` (string) and `round` (integer)\n  - ensures: a score\n\n" +
		"### Delegation\n\n```prose\nlet a = call critic\n  draft: \"d\"\n  round: \"1\"\nlet b = call critic\n  draft: \"d\"\n  round: 2\nreturn [a, b]\n```\n"
	res := lintFS(t, fstest.MapFS{"r.prose.md": {Data: []byte(src)}})
	out := res.Diags.String()
	want := "r.prose.md:21:10: error: argument round of call critic is text, but slot critic requires round (integer)"
	if !strings.Contains(out, want) {
		t.Errorf("findings:\n%s\nwant %q", out, want)
	}
	if strings.Contains(out, ":24:") {
		t.Errorf("the argument of the required type (line 24) draws a finding:\n%s", out)
	}
}
