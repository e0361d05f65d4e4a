package lint_test

import (
	"strings"
	"testing"
	"testing/fstest"
)

// One mistake, one finding: a config bullet the loader cannot read is
// reported once, and the Delegation's uses of its name are not reported
// as undefined on top of it.
func TestMalformedConfigIsOneFinding(t *testing.T) {
	tests := []struct{ name, bullet string }{
		{"bad type", "- `n` (whole number, default: 2): how many"},
		{"bad default clause", "- `n` (integer, 2): how many"},
		{"words after the name", "- `n` then words"},
		{"no backticks", "- n (integer, default: 2): how many"},
		{"no backticks, colon", "- n: how many"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(specText("c", "repeat n:\n  let r = call w\nreturn { r }"),
				"### Delegation", "### Config\n\n"+tt.bullet+"\n\n### Delegation", 1)
			res := lintFS(t, fstest.MapFS{"c.prose.md": {Data: []byte(src)}})
			var codes []string
			for _, d := range res.Diags {
				codes = append(codes, d.Code)
			}
			if len(codes) != 1 || codes[0] != "spec/config-syntax" {
				t.Errorf("got %v, want only spec/config-syntax\n%s", codes, res.Diags)
			}
		})
	}
}

// A Config bullet of plain prose is one malformed-bullet error, not also a
// config key named after its first word that is never used.
func TestProseConfigBulletDeclaresNothing(t *testing.T) {
	src := strings.Replace(specText("c", "let r = call w\nreturn { r }"),
		"### Delegation", "### Config\n\n- Nothing to set here\n\n### Delegation", 1)
	res := lintFS(t, fstest.MapFS{"c.prose.md": {Data: []byte(src)}})
	if len(res.Diags) != 1 || res.Diags[0].Code != "spec/config-syntax" {
		t.Errorf("got %v, want only spec/config-syntax", res.Diags)
	}
}
