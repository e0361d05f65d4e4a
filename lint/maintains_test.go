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
		"### Execution\n\n```prose\nreturn { accounts: signals }\n```\n"
	got := lintSrc(t, "dir/r.prose.md", src)
	if len(got) != 1 || !strings.HasPrefix(got[0], "check/output-not-returned declared output 'notes'") {
		t.Fatalf("findings:\n%s\nwant only notes never returned", strings.Join(got, "\n"))
	}
}
