package spec

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/proselang/prose/diag"
)

// TestFrontMatterAgreesWithYAML checks that whatever path decodes the
// front matter, the result is what yaml.v3 decodes.
func TestFrontMatterAgreesWithYAML(t *testing.T) {
	for _, fm := range []string{
		"name: t\nkind: pattern\n",
		"name: t\nkind: pattern\nversion: 0.15.0\n",
		"name: t\nkind: pattern\nversion: 0.15\n",
		"name: t\nkind: pattern\nversion: 1\n",
		"name: t\nkind: pattern\nenabled: yes\n",
		"name: t\nkind: pattern\nflag: off\n",
		"name: t\nkind: pattern\nnothing: null\n",
		"name: t\nkind: pattern\nx: .inf\n",
		"name: t\nkind: pattern # the kind\n",
		"name: t\nkind: pattern\ntags: [a, b]\n",
		"name: t\nkind: pattern\nowner: team/core\n",
		"name: t\nkind: pattern\nversion: 1.2.3-beta\n",
		"name: t\nkind: pattern\nnote: 'quoted'\n",
		"name: t-2\nkind: pattern\nsub-key: v_1\n",
		"name: t\nkind: test\nsubject: ../patterns/race.prose.md\n",
		"name: t\nkind: test\nsubject: ./race.prose.md\n",
		"name: t\nkind: test\nsubject: ...\n",
		"name: t\nkind: test\nsubject: .5\n",
		"name: t\nkind: test\nsubject: ./\n",
		"name: t\nkind: pattern\nid: 067NC4KG01RG50R40M30E20918\n",
		"name: t\nkind: pattern\nid: 12h\n",
		"name: t\nkind: pattern\nid: 1e5\n",
		"name: t\nkind: pattern\nid: 0x1F\n",
		"name: t\nkind: pattern\nid: 0o17\n",
		"name: t\nkind: pattern\nid: 1_000\n",
		"name: t\nkind: pattern\nid: 0b101\n",
		"name: t\nkind: pattern\nid: 2001-12-14\n",
		"name: t\nkind: pattern\nid: 6.8523015e+5\n",
		"name: t\nkind: pattern\nid: 1kg\n",
	} {
		s, diags := Parse("t.prose.md", []byte("---\n"+fm+"---\n# T\n"))
		for _, d := range diags {
			if d.Code == CodeFrontMatter || d.Code == CodeFrontMatterKey {
				t.Errorf("%q: %v", fm, d)
			}
		}
		var want map[string]any
		if err := yaml.Unmarshal([]byte(fm), &want); err != nil {
			t.Fatal(err)
		}
		normalize(want)
		if !reflect.DeepEqual(s.Front, want) {
			t.Errorf("%q: Front %#v, yaml.v3 gives %#v", fm, s.Front, want)
		}
		if v, _ := want["version"].(string); s.Version != v && v != "" {
			t.Errorf("%q: version %q", fm, s.Version)
		}
	}
}

// A file whose front matter is broken or missing is read by the rules its
// body is written in: its Contract items draw no errors of the earlier
// rules (`in` is no type) beside the one that matters.
func TestBrokenFrontMatterDoesNotCascade(t *testing.T) {
	body := "### Parameters\n\n- `x`: in\n\n### Returns\n\n- `y`: out\n"
	for name, src := range map[string]string{
		"not YAML":   "---\nname: a\nkind: function\n  bad: [\n---\n\n" + body,
		"not closed": "---\nname: a\nkind: function\n\n" + body,
		"missing":    "name: a\nkind: function\n\n" + body,
	} {
		_, diags := Parse("a.prose.md", []byte(src))
		var errs []string
		for _, d := range diags {
			if d.Severity == diag.Error {
				errs = append(errs, d.Code)
			}
		}
		if len(errs) != 1 || !strings.Contains(errs[0], "front-matter") {
			t.Errorf("%s: errors %v, want the front matter's alone", name, errs)
		}
	}
}

// A file without a kind: key is read as a pattern; the error says which
// kind its sections are written for, and which sections say so.
func TestMissingKindNamesTheKindOfItsSections(t *testing.T) {
	for body, want := range map[string]string{
		"### Requires\n\n- `n`: from `feed`\n\n### Maintains\n\n- `t`: n\n":  "its ### Requires and ### Maintains are a responsibility's: add kind: responsibility",
		"### Receives\n\n- `{ id }`\n\n### Maintains\n\n- `n`: n\n":          "its ### Receives and ### Maintains are a gateway's: add kind: gateway",
		"### Maintains\n\n- `n`: n\n\n### Continuity\n\n- external-driven\n": "its ### Maintains and ### Continuity are a gateway's: add kind: gateway",
		"### Parameters\n\n- `x`: in\n\n### Returns\n\n- `y`: out\n":         "its ### Parameters and ### Returns are a function's: add kind: function",
		"### Slots\n\n- `writer`: writes\n":                                  "front matter has no kind: key (kind: pattern)",
	} {
		_, diags := Parse("a.prose.md", []byte("---\nname: a\n---\n\n# A\n\n"+body))
		found := false
		for _, d := range diags {
			found = found || d.Code == CodeFrontMatterKey && strings.Contains(d.Message, want)
		}
		if !found {
			t.Errorf("%q: diagnostics %v, want %q", body, diags, want)
		}
	}
}
