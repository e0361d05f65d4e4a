package lint_test

import (
	"strings"
	"testing"
)

// An upstream-style pattern without a version is read by the rules its
// own forms select (issue 18, item 31; spec/generation.go): config.NAME,
// a value-form Config item, a ### Returns or ### Parameters section are
// 0.15's. With a version that selects the earlier rules, config.NAME is
// one error that says how to mark the file.
func TestPatternGenerationFromForms(t *testing.T) {
	const body = "\n# Review loop\n\n### Slots\n\n- `drafter`: writes a draft\n- `reviewer`: judges the draft\n\n" +
		"### Config\n\n- `max_rounds`: 4\n\n### Parameters\n\n- Pattern instance receives:\n    brief: string  -- what to write\n\n" +
		"### Returns\n\n- `draft`: the last draft\n\n### Delegation\n\n```prose\nlet draft = null\nrepeat config.max_rounds:\n" +
		"  draft = call drafter\n    brief: brief\n  let notes = call reviewer\n    draft: draft\n  if notes.accepted:\n    break\nreturn { draft: draft }\n```\n"
	pattern := func(version string) string {
		fm := "---\nname: review-loop\nkind: pattern\n"
		if version != "" {
			fm += "version: " + version + "\n"
		}
		return fm + "---\n" + body
	}
	for _, version := range []string{"", "0.15.0"} {
		if got := lintSrc(t, "review-loop.prose.md", pattern(version)); len(got) != 0 {
			t.Errorf("version %q: findings\n%s\nwant none: the file is read by the 0.15 rules", version, strings.Join(got, "\n"))
		}
	}
	got := lintSrc(t, "review-loop.prose.md", pattern("1.2.0"))
	if len(got) == 0 || !strings.HasPrefix(got[0], "check/undefined-name undefined name 'config': config.max_rounds is how OpenProse 0.15 reads a config key") ||
		!strings.Contains(got[0], "write max_rounds, or mark the file `version: 0.15.0`") {
		t.Errorf("version 1.2.0: findings\n%s\nwant the config.NAME error saying how to mark the file", strings.Join(got, "\n"))
	}
	for _, g := range got {
		if strings.Contains(g, "never used") {
			t.Errorf("version 1.2.0: %s: the key is read (by the 0.15 form)", g)
		}
	}

}
