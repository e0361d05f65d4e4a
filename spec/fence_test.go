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

// The Delegation's Code is its Lines' texts joined by "\n", whatever the
// fence's indentation, line endings and tabs: taken from the source as it
// stands when the lines follow each other there, built otherwise.
func TestDelegationCodeIsLinesJoined(t *testing.T) {
	code := "let r = call a\n  x: 1\n\n# a comment\nreturn { result: r }\n"
	for name, fence := range map[string]string{
		"plain":          "```prose\n" + code + "```\n",
		"one line":       "```prose\nreturn 1\n```\n",
		"crlf":           strings.ReplaceAll("```prose\n"+code+"```\n", "\n", "\r\n"),
		"indented":       "  ```prose\n  " + strings.ReplaceAll(strings.TrimSuffix(code, "\n"), "\n", "\n  ") + "\n  ```\n",
		"less indented":  "   ```prose\n let r = call a\n    x: 1\n return { result: r }\n   ```\n",
		"tab":            "```prose\nfor x in xs:\n\treturn x\n```\n",
		"tab, indented":  "  ```prose\n  for x in xs:\n\treturn x\n  ```\n",
		"trailing space": "```prose\nreturn 1   \nreturn 2\n```\n",
		"unclosed":       "```prose\n" + code,
	} {
		s, _ := Parse("t.prose.md", []byte(minimal(okSlots, "", fence)))
		d := s.Delegation
		if d == nil || len(d.Lines) == 0 {
			t.Errorf("%s: no code read", name)
			continue
		}
		var texts []string
		for _, ln := range d.Lines {
			texts = append(texts, ln.Text)
		}
		if want := strings.Join(texts, "\n"); d.Code != want {
			t.Errorf("%s: code %q, want the lines joined: %q", name, d.Code, want)
		}
	}
}
