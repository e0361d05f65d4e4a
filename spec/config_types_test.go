package spec

import (
	"strings"
	"testing"

	"github.com/proselang/prose/diag"
)

// TestConfigTypesAndDurations: an unknown type name is reported where it
// is declared with the name meant; a duration default that no use could
// read is an error at its Config line, not a failure at the first timeout.
func TestConfigTypesAndDurations(t *testing.T) {
	tests := []struct {
		name  string
		extra string
		want  string // "L:C severity code: message part"; "" for none
	}{
		{"typo", "### Config\n\n- `n` (integr, default: 2): n\n", "18:3 error spec/config-syntax: config key \"n\": unknown type \"integr\"; did you mean integer?"},
		{"alias", "### Config\n\n- `n` (int, default: 2): n\n", ""},
		{"list alias", "### Config\n\n- `n` (bool[], default: [true]): n\n", ""},
		{"list typo", "### Config\n\n- `n` (boolen[], default: [true]): n\n", "did you mean boolean?"},
		{"far off", "### Config\n\n- `n` (widget, default: 2): n\n", "unknown type \"widget\"; the types are string, integer"},
		{"bad duration", "### Config\n\n- `wait` (duration, default: five seconds): how long\n", "18:3 error spec/bad-duration: default \"five seconds\" of \"wait\" is not a duration: write one such as 500ms"},
		{"negative duration", "### Config\n\n- `wait` (duration, default: -3s): how long\n", "18:3 error spec/bad-duration: default \"-3s\""},
		{"good duration", "### Config\n\n- `wait` (duration, default: 1m30s): how long\n", ""},
		{"seconds duration", "### Config\n\n- `wait` (duration, default: 30): how long\n", ""},
		{"union", "### Config\n\n- `n` (string | null, default: none): n\n", ""},
		{"input typo", "### Requires\n\n- Pattern instance receives:\n    count: integr -- how many\n", "19:12 error spec/input-syntax: input \"count\": unknown type \"integr\"; did you mean integer?"},
		{"input alias list", "### Requires\n\n- Pattern instance receives:\n    names: str[] -- who\n", ""},
		{"input typo list", "### Requires\n\n- Pattern instance receives:\n    names: strng[] -- who\n", "19:12 error spec/input-syntax: input \"names\": unknown type \"strng\"; did you mean string?"},
		{"input known", "### Requires\n\n- Pattern instance receives:\n    names: string[] -- who\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Parse("t.prose.md", []byte(minimal(okSlots, tt.extra, okCode)))
			var got []string
			for _, d := range diags {
				if strings.HasPrefix(d.Code, "spec/config") || strings.HasPrefix(d.Code, "spec/input") || d.Code == CodeBadDefault || d.Code == CodeBadDuration {
					got = append(got, format(d))
				}
			}
			if tt.want == "" {
				if len(got) != 0 {
					t.Errorf("diagnostics %q, want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Errorf("diagnostics %q, want one holding %q", got, tt.want)
			}
		})
	}
}

func format(d diag.Diagnostic) string {
	return strings.Join([]string{itoa(d.Line) + ":" + itoa(d.Col), d.Severity.String(), d.Code + ":", d.Message}, " ")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
