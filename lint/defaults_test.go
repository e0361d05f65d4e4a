package lint_test

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestDefaultOutsideItsUses: a config default that its use as a repeat
// count, a retry budget or a timeout would refuse at run time is an error
// at its Config line, under the code of that use's check; one whose line
// already has a loader error is left to it.
func TestDefaultOutsideItsUses(t *testing.T) {
	src := "---\nname: d\nkind: pattern\n---\n\n# D\n\nOne loop.\n\n### Slots\n\n- `w`\n\n" +
		"### Config\n\n" +
		"- `rounds` (integer, default: -1): how many rounds\n" + // line 16
		"- `tries` (number, default: 1.5): retries\n" + // line 17
		"- `wait` (number, default: 0): seconds per call\n" + // line 18
		"- `pause` (duration, default: soon): never a duration\n" + // line 19
		"- `fine` (integer, default: 2): a good count\n\n" + // line 20
		"### Delegation\n\n```prose\nlet out = []\nrepeat rounds:\n  repeat fine:\n    let r = call w\n      retries tries\n      timeout wait\n    append r to out\nlet s = call w\n  timeout pause\nreturn { result: out, s: s }\n```\n"
	res := lintFS(t, fstest.MapFS{"d.prose.md": {Data: []byte(src)}})
	out := res.Diags.String()
	for _, want := range []string{
		"d.prose.md:16:4: error: default -1 of config 'rounds' is the repeat count on line 26, which must be a non-negative integer [check/loop-count]",
		"d.prose.md:17:4: error: default 1.5 of config 'tries' is retries on line 29, which must be a non-negative integer [check/retries]",
		"d.prose.md:18:4: error: default 0 of config 'wait' is the timeout on line 30, which must be a positive duration",
		"d.prose.md:19:3: error: default \"soon\" of \"pause\" is not a duration",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("findings lack %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "d.prose.md:19:") != 1 || strings.Contains(out, ":20:") {
		t.Errorf("want one finding on line 19 and none on line 20:\n%s", out)
	}
}
