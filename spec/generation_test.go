package spec_test

import (
	"testing"

	"github.com/proselang/prose/spec"
)

// Each 0.15-only form alone makes an unversioned pattern Contract
// Markdown; a file with none, or a version, keeps the rules its version
// or the earlier generation gives (spec/generation.go).
func TestPatternGeneration(t *testing.T) {
	const slots = "### Slots\n\n- `w` (primary)\n  - requires: x\n  - ensures: y\n\n"
	const earlierConfig = "### Config\n\n- `n` (integer, default: 2): rounds\n\n"
	for _, tc := range []struct {
		name, version, body string
		contract            bool
	}{
		{"config member", "", slots + earlierConfig + "### Delegation\n\n```prose\nrepeat config.n:\n  call w\n    x: 1\n```\n", true},
		{"value-form config", "", slots + "### Config\n\n- `n`: 2\n\n### Delegation\n\n```prose\ncall w\n  x: 1\n```\n", true},
		{"returns section", "", slots + "### Returns\n\n- `r`: the result\n\n### Delegation\n\n```prose\nreturn { r: call w }\n```\n", true},
		{"parameters section", "", slots + "### Parameters\n\n- Pattern instance receives:\n    x: string -- the input\n\n### Delegation\n\n```prose\ncall w\n  x: x\n```\n", true},
		{"maintains section", "", slots + "### Maintains\n\n- `r`: the result\n\n### Delegation\n\n```prose\ncall w\n  x: 1\n```\n", true},
		{"earlier forms", "", slots + earlierConfig + "### Ensures\n\n- `r`: the result\n\n### Delegation\n\n```prose\nlet r = null\nrepeat n:\n  r = call w\n    x: 1\nreturn { r: r }\n```\n", false},
		{"config. in text, not in a prose block", "", slots + "### Description\n\nSet config.n to choose.\n\n```yaml\nconfig.n: 2\n```\n\n" + earlierConfig + "### Delegation\n\n```prose\nrepeat n:\n  call w\n    x: 1\n```\n", false},
		{"a sub-bullet of a config item", "", slots + "### Config\n\n- `n` (integer, default: 2): rounds\n  - `note`: more\n\n### Delegation\n\n```prose\nrepeat n:\n  call w\n    x: 1\n```\n", false},
		{"a version of the earlier rules wins", "1.0.0", slots + earlierConfig + "### Returns\n\n- `r`: r\n\n### Delegation\n\n```prose\nrepeat config.n:\n  call w\n    x: 1\n```\n", false},
		{"a 0.15 version", "0.15.2", slots + earlierConfig + "### Delegation\n\n```prose\ncall w\n  x: 1\n```\n", true},
	} {
		fm := "---\nname: p\nkind: pattern\n"
		if tc.version != "" {
			fm += "version: " + tc.version + "\n"
		}
		s, _ := spec.Parse("p.prose.md", []byte(fm+"---\n\n# P\n\n"+tc.body))
		if s.Contract != tc.contract {
			t.Errorf("%s: Contract = %v, want %v", tc.name, s.Contract, tc.contract)
		}
	}
}
