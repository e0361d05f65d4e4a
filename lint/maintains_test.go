package lint_test

import (
	"strings"
	"testing"
)

// A Maintains is read as one truth: its facets need not be returned by an
// Execution, a field must be, and canonicalization bullets are no fields.
func TestLintMaintainsFacets(t *testing.T) {
	src := "---\nname: r\nkind: responsibility\n---\n\n### Requires\n\n- `signals`: in\n\n### Maintains\n\n" +
		"- `accounts`: per-account truth\n- `notes`: free text\n- immaterial everywhere: scan timestamps\n" +
		"- freshness: each account carries `valid_until`\n- postcondition: every level is supported\n" +
		"- each account has: a level\n\n#### risk\n\nMaterial: the level.\n\n#### history\n\nPrior decisions.\n\n" +
		"### Continuity\n\n- self-driven: recheck when `valid_until` lapses\n\n" +
		"### Execution\n\n```prose\nreturn { accounts: signals }\n```\n"
	got := lintSrc(t, "dir/r.prose.md", src)
	// (the return rule makes the missing field an error at the return)
	if len(got) != 1 || !strings.HasPrefix(got[0], "check/return-shape this object lacks the output 'notes'") {
		t.Fatalf("findings:\n%s\nwant only notes missing from the return", strings.Join(got, "\n"))
	}
}

// An Execution that reads its own truth by its Maintains names (the
// prior truth) lints clean: the names are defined, nothing is unused.
func TestLintExecutionReadsItsOwnTruth(t *testing.T) {
	src := "---\nname: r\nkind: responsibility\n---\n\n### Requires\n\n- `evidence`: in\n\n### Maintains\n\n" +
		"- `controls`: the controls\n- `count`: how many\n\n#### history\n\nPast decisions.\n\n" +
		"### Execution\n\n```prose\nlet next = call merge\n  evidence: evidence\n  prior-controls: controls\n  prior-history: history\n" +
		"return { controls: next, count: count }\n```\n\n## merge\n\n### Parameters\n\n- `evidence`: e\n- `prior-controls`: c\n- `prior-history`: h\n\n### Returns\n\n- `merged`: m\n"
	if got := lintSrc(t, "dir/r.prose.md", src); len(got) != 0 {
		t.Fatalf("findings:\n%s", strings.Join(got, "\n"))
	}
}
