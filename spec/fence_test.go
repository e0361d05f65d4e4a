package spec

import (
	"strings"
	"testing"
)

// An unclosed Delegation fence runs to the end of the file in CommonMark;
// the sections after it must not be parsed as code, so the fence error is
// the only finding, and the code stops where the next section starts.
func TestUnclosedFenceStopsAtNextSection(t *testing.T) {
	tests := []struct {
		name      string
		after     string // Markdown after the unclosed code
		wantCode  string
		wantCodes []string
	}{
		{name: "notes section", after: "\n### Notes\n\nSmall and plain.\n",
			wantCode: "let r = call a\n  x: 1\nreturn { result: r }\n", wantCodes: []string{"spec/unterminated-fence"}},
		{name: "closing hashes", after: "\n## Errors ##\n\nNone, really.\n",
			wantCode: "let r = call a\n  x: 1\nreturn { result: r }\n", wantCodes: []string{"spec/unterminated-fence"}},
		{name: "a comment is still code", after: "# the end.\nreturn { result: 2 }\n",
			wantCode: "let r = call a\n  x: 1\nreturn { result: r }\n# the end.\nreturn { result: 2 }", wantCodes: []string{"spec/unterminated-fence"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := minimal(okSlots, "", "```prose\nlet r = call a\n  x: 1\nreturn { result: r }\n"+tt.after)
			s, diags := Parse("t.prose.md", []byte(src))
			checkPositions(t, s, diags)
			var got []string
			for _, d := range diags {
				got = append(got, d.Code)
			}
			if strings.Join(got, " ") != strings.Join(tt.wantCodes, " ") {
				t.Errorf("codes %v, want %v\n%s", got, tt.wantCodes, diags)
			}
			if want := strings.TrimRight(tt.wantCode, "\n"); strings.TrimRight(s.Delegation.Code, "\n") != want {
				t.Errorf("code %q, want %q", s.Delegation.Code, want)
			}
			if s.Delegation.Program == nil {
				t.Errorf("the code before the next section was not parsed")
			}
		})
	}
}

// A syntax error in the code of an unclosed fence, before the next
// section, is still reported at its own line.
func TestUnclosedFenceKeepsRealSyntaxErrors(t *testing.T) {
	src := minimal(okSlots, "", "```prose\nlet r = (1\n\n### Notes\n\nplain words.\n")
	_, diags := Parse("t.prose.md", []byte(src))
	var got []string
	for _, d := range diags {
		got = append(got, d.Code)
		if d.Line > 20 {
			t.Errorf("finding inside the Notes section: %s", d)
		}
	}
	if len(got) != 2 {
		t.Errorf("got %v, want the fence error and one syntax error\n%s", got, diags)
	}
}
