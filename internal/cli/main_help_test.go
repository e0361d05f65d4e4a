package cli

import (
	"strings"
	"testing"
)

// The root command's help says what prose runs: patterns' Delegation and
// Contract Markdown's functions and responsibilities, and prose test.
func TestRootHelpNamesWhatRuns(t *testing.T) {
	code, out, errs := runMain(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"### Delegation", "Contract Markdown", "### Execution", "responsibilities", "'prose test'"} {
		if !strings.Contains(out, want) {
			t.Errorf("prose --help does not say %q:\n%s", want, out)
		}
	}
}

// run --help and show --help speak of functions and responsibilities too,
// not of patterns alone.
func TestRunAndShowHelpNameContracts(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want []string
	}{
		{"run", []string{"function's or responsibility's", "Execution", "inline nodes", "render"}},
		{"show", []string{"a function, a responsibility", "inline nodes", "needs"}},
	} {
		code, out, errs := runMain(t, c.cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d: %s", c.cmd, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("prose %s --help does not say %q", c.cmd, w)
			}
		}
	}
}
