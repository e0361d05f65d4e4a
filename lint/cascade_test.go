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

// A line of the inputs block at the entries' indentation that is not an
// entry is reported where it stands (not folded into the previous
// comment); when its name is readable, its uses are not undefined too.
func TestMalformedInputLine(t *testing.T) {
	tests := []struct {
		name, line string
		want       []string
	}{
		{"no colon", "    topic string the subject", []string{"spec/input-syntax", "check/undefined-name"}},
		{"unknown type", "    topic: two words -- the subject", []string{"spec/input-syntax"}},
		{"continuation deeper", "        and more words", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(specText("i", "let r = call w\n  topic: topic\nreturn { r }"),
				"### Delegation", "### Requires\n\n- Pattern instance receives:\n    w: string -- the worker\n"+tt.line+"\n\n### Delegation", 1)
			if tt.want == nil {
				src = strings.Replace(src, "    w: string -- the worker\n", "    topic: string -- the subject\n    w: string -- the worker\n", 1)
			}
			res := lintFS(t, fstest.MapFS{"i.prose.md": {Data: []byte(src)}})
			line := strings.Count(src[:strings.Index(src, tt.line)], "\n") + 1
			var codes []string
			for _, d := range res.Diags {
				codes = append(codes, d.Code)
				if d.Code == "spec/input-syntax" && (d.Line != line || d.Col != 5) {
					t.Errorf("input-syntax at %d:%d, want %d:5", d.Line, d.Col, line)
				}
			}
			if strings.Join(codes, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %v, want %v\n%s", codes, tt.want, res.Diags)
			}
		})
	}
}
