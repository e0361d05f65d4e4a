package syntax

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseChoice(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"options", "choice best recovery path for r:\n  option \"retry\":\n    call retryer\n  option \"abort\":\n    throw \"no\"",
			`(choice (natural "best recovery path for r") (option "retry" (call retryer)) (option "abort" (throw "no")))`},
		{"empty option", "choice what p says:\n  option \"skip\":\n  option \"count\":\n    n = n + 1\nreturn n",
			"(choice (natural \"what p says\") (option \"skip\") (option \"count\" (= n (+ n 1))))\n(return n)"},
		{"empty last option", "choice what p says:\n  option \"count\":\n    n = 1\n  option \"skip\":\nreturn n",
			"(choice (natural \"what p says\") (option \"count\" (= n 1)) (option \"skip\"))\n(return n)"},
		{"empty option at the end", "choice what p says:\n  option \"skip\":",
			`(choice (natural "what p says") (option "skip"))`},
		// the criteria are words even when they read as an expression
		{"criteria one name", "choice severity:\n  option \"high\":\n    return 1",
			`(choice (natural "severity") (option "high" (return 1)))`},
		{"discretion markers", "choice **best path for r**:\n  option \"a\":\n    return 1",
			`(choice (natural "best path for r") (option "a" (return 1)))`},
		{"nested", "for x in xs:\n  choice how to treat x:\n    option \"keep\":\n      append x to kept\n    option \"drop\":\n      continue",
			`(for x xs (choice (natural "how to treat x") (option "keep" (append x kept)) (option "drop" (continue))))`},
		// choice and option stay names elsewhere
		{"names", "let choice = 1\nchoice = choice + 1\nlet option = choice\nreturn { choice: option }",
			"(let choice 1)\n(= choice (+ choice 1))\n(let option choice)\n(return (object (choice option)))"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prog := parseOK(t, tc.code)
			if got := Dump(prog); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	prog := parseOK(t, "let r = 1\nchoice best for r:\n  option \"a\":\n    return 1\n")
	c := prog.Body[1].(*ChoiceStmt)
	last := c.Criteria.Words[len(c.Criteria.Words)-1]
	if !c.Criteria.Choice || last.Path != "r" || last.Binding != prog.Body[0].(*LetStmt).Name.Binding {
		t.Errorf("criteria %+v", c.Criteria)
	}
	if got := strings.Join(c.Labels(), ","); got != "a" {
		t.Errorf("labels %s", got)
	}
}

func TestParseChoiceErrors(t *testing.T) {
	tests := []struct {
		name, code string
		want       string // the diagnostics: LINE:COL [CODE] MESSAGE FRAGMENT
		rest       string
	}{
		{"no criteria", "choice:\n  option \"a\":\n    return 1\nreturn 2", "1:1 [syntax/expected] a choice needs its criteria", "(return 2)"},
		{"no options", "choice best path:\nreturn 2", "1:17 [syntax/empty-block] a choice needs at least one option", "(return 2)"},
		{"not an option", "choice best path:\n  let x = 1\nreturn 2", "2:3 [syntax/option] a choice holds options only", "(return 2)"},
		{"option outside choice", "option \"a\":\n  return 1\nreturn 2", "1:1 [syntax/option] 'option' outside a choice", "(return 2)"},
		{"label not a string", "choice best path:\n  option retry:\n    return 1\nreturn 2", "2:10 [syntax/option] an option's label is a string", "(return 2)"},
		{"choice as a value", "let x = choice best path:\n  option \"a\":\n    1\nreturn 2", "1:9 [syntax/choice-value] a choice is a statement, not a value", "(return 2)"},
		{"label interpolates", "choice best path:\n  option \"{x}\":\n    return 1\nreturn 2", "2:10 [syntax/option] an option's label is fixed text", "(return 2)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prog, errs := ParseString("t.prose", tc.code)
			if len(errs) != 1 {
				t.Fatalf("got %d diagnostics, want 1: %s", len(errs), errs)
			}
			d := errs[0]
			fields := strings.SplitN(tc.want, " ", 3)
			if at := fmt.Sprintf("%d:%d", d.Line, d.Col); at != fields[0] || "["+d.Code+"]" != fields[1] || !strings.Contains(d.Message, fields[2]) {
				t.Errorf("got %s, want %s", d, tc.want)
			}
			if got := Dump(prog); got != tc.rest {
				t.Errorf("rest:\n%s\nwant\n%s", got, tc.rest)
			}
		})
	}
}

// FuzzParseChoice: choices and open loops, broken or not, parse into a
// tree whose index agrees with its walk.
func FuzzParseChoice(f *testing.F) {
	for _, s := range []string{
		"choice best recovery path for r:\n  option \"retry\":\n    call retryer\n  option \"abort\":\n    throw \"no\"",
		"choice what p says:\n  option \"skip\":\n  option \"count\":\n    n = n + 1\nreturn n",
		"choice ***\n  best path\n  for y\n***:\n  option \"a\":\n    return 1\n",
		"choice **x y**:\n  option \"a\":\n",
		"for x in xs:\n  choice how to treat x:\n    option \"keep\":\n      append x to kept\n    option \"drop\":\n      continue",
		"let x = choice best:\n  option \"a\":\n    1",
		"option \"a\":\n  return 1",
		"loop (max: 3) as k:\n  if k > 1:\n    break",
		"loop:\n  break",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		prog, errs := ParseString("f.prose", code)
		checkTree(t, prog.File, prog, errs)
	})
}
