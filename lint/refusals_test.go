package lint_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/proselang/prose/lint"
)

// A pattern's own checks of its config (`throw usage`) run with the config
// a ### Patterns instance gives it, when they read only config: the value
// the run would refuse is lint/config-value at the instance's config line.
// A check that reads an input is left to the run.
func TestInstanceConfigThePatternRefuses(t *testing.T) {
	pattern := "---\nname: loop\nkind: pattern\nversion: 0.15.0\n---\n\n### Slots\n\n- `worker`: works\n\n" +
		"### Config\n\n- `rounds` (integer, default: 2): rounds\n- `tiers` (object[], default: [{\"model\": \"m\", \"count\": 1}]): groups\n\n" +
		"### Delegation\n\n```prose\nif rounds < 1:\n  throw usage \"rounds is {rounds}, give at least 1\"\n" +
		"for group, position in tiers:\n  if group.model is null:\n    throw usage \"tier {position} names no model\"\n" +
		"if task_brief is null:\n  throw usage \"no brief\"\n" +
		"let w = call worker\n  task_brief: task_brief\nreturn w\n```\n"
	user := func(cfg string) string {
		return "---\nname: f\nkind: function\n---\n\n### Returns\n\n- `r`: x\n\n### Patterns\n\n```yaml\n" +
			"- name: looped\n  pattern: loop\n  with:\n    worker: w\n" + cfg + "```\n\n### Execution\n\n```prose\nreturn call looped\n  task_brief: \"b\"\n```\n\n## w\n\n### Parameters\n\n- `task_brief`: b\n\n### Returns\n\n- `out`: y\n"
	}
	for _, tc := range []struct {
		cfg, want string
	}{
		{"  config:\n    rounds: 0\n", `d/f.prose.md:18:5: error: pattern instance looped: loop refuses this config at d/loop.prose.md:20:3: rounds is 0, give at least 1`},
		{"  config:\n    tiers: [{\"modle\": \"m\", \"count\": 1}]\n", `d/f.prose.md:18:5: error: pattern instance looped: loop refuses this config at d/loop.prose.md:23:5: tier 0 names no model`},
		{"  config:\n    rounds: 3\n", ""},
		{"", ""},
	} {
		fsys := fstest.MapFS{"d/loop.prose.md": {Data: []byte(pattern)}, "d/f.prose.md": {Data: []byte(user(tc.cfg))}}
		diags, err := lint.File(fsys, "d/f.prose.md")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range diags {
			if d.Code == lint.CodeConfigValue {
				got = append(got, d.String())
			}
		}
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%q: unexpected %v", tc.cfg, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
			t.Errorf("%q: got %v, want %s", tc.cfg, got, tc.want)
		}
	}
}
