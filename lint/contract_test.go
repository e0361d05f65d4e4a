package lint_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/proselang/prose/lint"
)

// lintSrc lints one file given as source.
func lintSrc(t *testing.T, name, src string) []string {
	t.Helper()
	fsys := fstest.MapFS{name: {Data: []byte(src)}}
	diags, err := lint.File(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range diags {
		out = append(out, d.Code+" "+d.Message)
	}
	return out
}

func TestContractLintRules(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // code and message fragment, in order
	}{
		{"clean function with a node, no title, name not the stem",
			"---\nname: other\nkind: function\n---\n\n### Parameters\n\n- `a`: x\n\n### Returns\n\n- `b`: y\n\n### Strategies\n\n- s\n\n## helper\n\n### Parameters\n\n- `a`: x\n\n### Returns\n\n- `b`: y\n",
			nil},
		{"a responsibility section in a function",
			"---\nname: f\nkind: function\n---\n\n### Returns\n\n- `b`: y\n\n### Continuity\n\n- input-driven\n",
			[]string{"lint/section-kind ### Continuity does not apply to a function"}},
		{"a gateway's Requires is the loader's error, not a second finding",
			"---\nname: g\nkind: gateway\n---\n\n### Requires\n\n- `x`: from `y`\n\n### Maintains\n\n- `b`: y\n",
			[]string{"spec/gateway-requires ### Requires does not apply to a gateway, and prose does not wire it"}},
		{"retired sections name their replacement",
			"---\nname: f\nkind: responsibility\n---\n\n### Maintains\n\n- `b`: y\n\n### Criteria\n\n- c\n\n### Memory\n\n- m\n",
			[]string{"lint/retired-section ### Criteria was retired in 0.15: use postconditions under ### Maintains",
				"lint/retired-section ### Memory was retired"}},
		{"retired kind of a 0.15 file",
			"---\nname: f\nkind: service\nversion: 0.15.0\n---\n\n### Returns\n\n- `b`: y\n",
			[]string{"spec/retired-kind kind: service was renamed in 0.15: write kind: function"}},
		{"retired kind of an unversioned file",
			"---\nname: f\nkind: system\n---\n\n# F\n\n### Description\n\nx\n",
			[]string{"spec/retired-kind kind: system was removed in 0.15: call functions from ### Execution"}},
		{"misspelled kind",
			"---\nname: f\nkind: fuction\n---\n\n# F\n\n### Returns\n\n- `b`: y\n",
			[]string{"spec/unknown-kind unknown kind \"fuction\": did you mean kind: function?"}},
		{"capitalized kind",
			"---\nname: f\nkind: Function\n---\n\n# F\n\n### Returns\n\n- `b`: y\n",
			[]string{"spec/unknown-kind unknown kind \"Function\": did you mean kind: function?"}},
		{"kind far from any",
			"---\nname: f\nkind: workflow\n---\n\n# F\n\n### Returns\n\n- `b`: y\n",
			[]string{"spec/unknown-kind unknown kind \"workflow\": the kinds are pattern, function, responsibility, gateway, test"}},
		{"unknown documentation section, and one close to a canonical name",
			"---\nname: f\nkind: function\n---\n\n### Returns\n\n- `b`: y\n\n### Background\n\nprose\n\n### Stratgies\n\n- s\n",
			[]string{"spec/unknown-section unknown section \"Stratgies\" (kept as documentation); did you mean ### Strategies?"}},
		{"duplicate sections are per node",
			"---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `a`: x\n\n### Returns\n\n- `b`: y\n\n## n\n\n### Parameters\n\n- `a`: x\n\n### Returns\n\n- `b`: y\n",
			nil},
		{"duplicate canonical 0.15 section in one node",
			"---\nname: f\nkind: function\n---\n\n### Returns\n\n- `b`: y\n\n### Strategies\n\n- a\n\n### Strategies\n\n- b\n",
			[]string{"spec/duplicate-section section \"Strategies\" repeats"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := lintSrc(t, "dir/f.prose.md", tc.src)
			if len(got) != len(tc.want) {
				t.Fatalf("findings:\n%s\nwant %d", strings.Join(got, "\n"), len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("finding %d = %q, want %q", i, got[i], w)
				}
			}
		})
	}
}

// Earlier generations keep their rules: a pattern without a 0.15 version
// still needs a title, and an unknown section is reported. Its name may
// differ from its file's stem in every generation (a copy of a library
// pattern under another file name).
func TestEarlierGenerationUnchanged(t *testing.T) {
	src := "---\nname: other\nkind: pattern\n---\n\n### Slots\n\n- `w`\n\n### Strategies\n\n- s\n\n### Delegation\n\n```prose\nreturn call w\n```\n"
	got := strings.Join(lintSrc(t, "dir/p.prose.md", src), "\n")
	for _, code := range []string{"spec/no-title", "spec/unknown-section unknown section \"Strategies\" (kept as documentation)"} {
		if !strings.Contains(got, code) {
			t.Errorf("lacks %s:\n%s", code, got)
		}
	}
	if strings.Contains(got, "name-mismatch") || strings.Contains(got, "error") {
		t.Errorf("a name that differs from the file's stem is a finding:\n%s", got)
	}
}

func TestContractLintInstances(t *testing.T) {
	pattern := "---\nname: loop\nkind: pattern\nversion: 0.15.0\n---\n\n### Slots\n\n- `worker`: works\n- `critic`: judges\n\n### Delegation\n\n```prose\nlet w = call worker\nreturn call critic\n  output: w\n  criteria: \"clear\"\n```\n"
	user := "---\nname: f\nkind: function\n---\n\n### Returns\n\n- `r`: x\n\n### Patterns\n\n```yaml\n" +
		"- name: good\n  pattern: loop\n  with:\n    worker: w\n    critic: std/roles/critic\n" +
		"- name: typo\n  pattern: lop\n" +
		"- name: partial\n  pattern: loop\n  with:\n    workr: w\n    critic: nobody\n" +
		"```\n\n### Execution\n\n```prose\nlet a = call good\nlet b = call partial\nreturn a\n```\n\n## w\n\n### Returns\n\n- `out`: y\n"
	fsys := fstest.MapFS{"d/loop.prose.md": {Data: []byte(pattern)}, "d/f.prose.md": {Data: []byte(user)}}
	diags, err := lint.File(fsys, "d/f.prose.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.Code+" "+d.Message)
	}
	want := []string{
		`lint/unresolved-call pattern instance typo: no pattern "lop" is beside this file or in the library; did you mean "loop"?`,
		`lint/unresolved-call pattern instance partial: loop has no slot "workr"; did you mean "worker"?`,
		`lint/unresolved-call pattern instance partial: slot critic is bound to "nobody"`,
		`lint/unbound-slot pattern instance partial leaves slot worker of loop unbound`,
	}
	if len(got) != len(want) {
		t.Fatalf("findings:\n%s", strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("finding %d = %q\nwant %q", i, got[i], w)
		}
	}
}
