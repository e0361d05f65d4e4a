package spec

import (
	"strings"
	"testing"
)

// A session or an agent in a pattern's Delegation is an error at it: the
// pattern has its slots, and nothing would bind the session's model. In
// an Execution both load without a finding.
func TestSessionsOutsideExecution(t *testing.T) {
	pattern := "---\nname: p\nkind: pattern\n---\n\n### Slots\n\n- `worker`: does the work\n\n" +
		"### Delegation\n\n```prose\nagent critic:\n  prompt: \"Be strict.\"\nlet r = session: critic\n  prompt: \"Review\"\nreturn r\n```\n"
	_, diags := Parse("p.prose.md", []byte(pattern))
	var got []string
	for _, d := range diags.Errors() {
		got = append(got, strings.TrimPrefix(d.Position.String(), "p.prose.md:")+" "+d.Code)
	}
	if want := "13:1 spec/unsupported-prosescript,15:9 spec/unsupported-prosescript"; strings.Join(got, ",") != want {
		t.Errorf("errors %v, want %s\n%s", got, want, diags)
	}
	fn := "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `topic`: t\n\n### Returns\n\n- `out`: o\n\n" +
		"### Execution\n\n```prose\nagent critic:\n  prompt: \"Be strict.\"\nlet r = session: critic\n  prompt: \"Review {topic}\"\nreturn r\n```\n"
	s, diags := Parse("f.prose.md", []byte(fn))
	if diags.HasErrors() || s.Execution == nil || s.Execution.Program == nil || len(s.Execution.Program.Agents) != 1 {
		t.Errorf("an Execution's session: %v", diags)
	}
}
