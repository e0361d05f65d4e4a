package lintcli

import (
	"bytes"
	"strings"
	"testing"
)

// TestServes: lint and version are served here, and --version alone;
// everything else, root flags before a command included, is handed off.
func TestServes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"lint", "x.prose.md"}, true},
		{[]string{"lint", "--format", "json", "a", "--allow-empty", "b"}, true},
		{[]string{"lint", "--format=sarif", "-", "--", "--odd-name.prose.md"}, true},
		{[]string{"lint"}, false},
		{[]string{"lint", "--help"}, false},
		{[]string{"lint", "-h", "x"}, false},
		{[]string{"lint", "--formt", "json", "x"}, false},
		{[]string{"lint", "x", "--format"}, false},
		{[]string{"lint", "--allow-empty=false", "x"}, false},
		{[]string{"version"}, true},
		{[]string{"version", "x"}, false},
		{[]string{"--version"}, true},
		{[]string{"-v"}, true},
		{[]string{"--version", "lint"}, false},
		{nil, false},
		{[]string{"--help"}, false},
		{[]string{"run", "lint"}, false},
		{[]string{"show", "x.prose.md"}, false},
		{[]string{"__complete", "lint", ""}, false},
	} {
		if got := Serves(tc.args); got != tc.want {
			t.Errorf("Serves(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestHandOffWithoutFullProgram: without prose-full beside prose or on
// PATH, a command prose does not serve fails (exit 1) naming the command
// and saying how to install the program.
func TestHandOffWithoutFullProgram(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errw bytes.Buffer
	code := HandOff([]string{"--quiet", "run", "x.prose.md"}, strings.NewReader(""), &out, &errw)
	if code != ExitFailure || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q", code, out.String())
	}
	for _, want := range []string{"prose run is served by prose-full", "go install github.com/proselang/prose/cmd/...@latest", "go install ./cmd/..."} {
		if !strings.Contains(errw.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errw.String())
		}
	}
}

// TestHandOffRefusesItself: a prose started as prose-full (a prose
// installed under that name) fails naming itself rather than handing the
// command to itself forever.
func TestHandOffRefusesItself(t *testing.T) {
	t.Setenv(HandedOffEnv, "1")
	var out, errw bytes.Buffer
	code := HandOff([]string{"run", "x.prose.md"}, strings.NewReader(""), &out, &errw)
	if code != ExitFailure || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q", code, out.String())
	}
	if !strings.Contains(errw.String(), "was started as prose-full but is prose") {
		t.Errorf("stderr: %s", errw.String())
	}
}
