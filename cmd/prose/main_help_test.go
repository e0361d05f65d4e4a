package main

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
