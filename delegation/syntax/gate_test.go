package syntax

import (
	"strings"
	"testing"
)

func TestParseGates(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"ask_user", `let r = ask_user "Which release?"`, `(let r (ask_user "Which release?"))`},
		{"gate object", `let v = gate { summary: s, options: ["ship", "hold"] }`,
			`(let v (gate (object (summary s) (options (list "ship" "hold")))))`},
		{"clauses", "let v = gate { summary: s }\n  timeout 24h\n  on_fail use \"hold\"",
			`(let v (gate (object (summary s)) (timeout 24h) (on_fail use "hold")))`},
		{"assignment", `v = ask_user "again?"`, `(= v (ask_user "again?"))`},
		// `gate` as a plain name stays a name
		{"name gate", "let gate = 1\nlet x = gate + 1", "(let gate 1)\n(let x (+ gate 1))"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.TrimSpace(Dump(parseOK(t, tc.code)))
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestParseGateBadClause(t *testing.T) {
	_, errs := ParseString("t.prose", "let v = gate { a: 1 }\n  retries 2\n")
	if len(errs) == 0 || !strings.Contains(errs.Error(), "t.prose:2:3") || !strings.Contains(errs.Error(), "timeout DURATION, on_fail use VALUE") {
		t.Fatalf("want a positioned clause error, got %v", errs)
	}
}
