package drain_test

import (
	"strings"
	"testing"

	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/drain"
)

func parse(t *testing.T, drains string) (*drain.Test, string) {
	t.Helper()
	src := "---\nname: t\nkind: test\nsubject: s\n---\n\n### Drains\n\n```yaml\n" + drains + "```\n\n### Expects\n\n- `x`: is present\n"
	sp, _ := spec.Parse("t.test.prose.md", []byte(src))
	w, diags := drain.ParseTest(sp)
	return w, diags.String()
}

func TestParseDrains(t *testing.T) {
	w, diags := parse(t, "bind:\n  \"*\": exec:./bus\n  a.f: exec:./f\ndrains:\n  - events: {g: {id: 1}}\n    rendered: all\n  - events: {g: [{id: 1}, {id: 2}]}\n    ticks: a\n    fail: [b]\n    skipped: [a]\n    failed: []\n    programs: 0\n")
	if diags != "" || w == nil {
		t.Fatalf("diagnostics: %s", diags)
	}
	if len(w.Drains) != 2 || w.Bind["*"] != "exec:./bus" || w.Bind["a.f"] != "exec:./f" {
		t.Fatalf("%+v", w)
	}
	d0, d1 := w.Drains[0], w.Drains[1]
	if r, ok := d0.Expect["rendered"]; !ok || r != nil || len(d0.Events["g"]) != 1 {
		t.Errorf("drain 1: %+v", d0)
	}
	if len(d1.Events["g"]) != 2 || d1.Ticks[0] != "a" || d1.Fail[0] != "b" || *d1.Programs != 0 {
		t.Errorf("drain 2: %+v", d1)
	}
	if f, ok := d1.Expect["failed"]; !ok || f == nil || len(f) != 0 {
		t.Errorf("failed: [] is an expectation of none: %#v", d1.Expect)
	}
}

func TestParseDrainsErrors(t *testing.T) {
	for _, tc := range []struct{ drains, want string }{
		{"drains:\n  - rendred: all\n", `t.test.prose.md:11:5: error: a drain has no key "rendred"`},
		{"drains:\n  - ticks: {a: 1}\n", `t.test.prose.md:11:12: error: ticks: want a node id or a list of node ids`},
		{"drain: []\n", `t.test.prose.md:10:1: error: ### Drains: unknown key "drain"`},
		{"drains: []\n", `t.test.prose.md:7:1: error: ### Drains has no drain`},
		{"drains: [\n", `t.test.prose.md:7:1: error: ### Drains is not YAML`},
	} {
		w, diags := parse(t, tc.drains)
		if w != nil || !strings.Contains(diags, tc.want) {
			t.Errorf("%q: got %v\n%s\nwant %s", tc.drains, w, diags, tc.want)
		}
	}
}
