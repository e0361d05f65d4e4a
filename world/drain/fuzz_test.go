package drain_test

import (
	"testing"

	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/drain"
)

// FuzzParse: any ### Drains section reads without a panic, and a parsed
// one has at least one drain.
func FuzzParse(f *testing.F) {
	f.Add("bind:\n  \"*\": exec:./bus\ndrains:\n  - events: {g: {id: 1}}\n    rendered: all\n")
	f.Add("drains:\n  - ticks: [a]\n    skipped: [a]\n    programs: 0\n")
	f.Add("drains: [{fail: x, failed: [x]}]\n")
	f.Fuzz(func(t *testing.T, body string) {
		src := "---\nname: t\nkind: test\nsubject: s\n---\n\n### Drains\n\n```yaml\n" + body + "\n```\n"
		sp, _ := spec.Parse("t.test.prose.md", []byte(src))
		w, _ := drain.ParseTest(sp)
		if w != nil && len(w.Drains) == 0 {
			t.Errorf("a test with no drain: %q", body)
		}
	})
}
