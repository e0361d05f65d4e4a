package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// prose run - reads the spec from stdin, as lint - does; the run's
// journal finds it again (replay), stdin is then spent for @- inputs,
// and an empty stdin is a usage error.
func TestRunSpecFromStdin(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	runs := filepath.Join(t.TempDir(), "runs")
	main := func(stdin string, args ...string) (int, string, string) {
		var out, errw bytes.Buffer
		code := Main(args, strings.NewReader(stdin), &out, &errw)
		return code, out.String(), errw.String()
	}
	code, out, stderr := main(reentrantSpec, "run", "-", "--slot", "svc=exec:echo from-stdin", "--run-dir", runs, "-q")
	if code != 0 || strings.TrimSpace(out) != `"from-stdin"` {
		t.Fatalf("prose run -: exit %d stdout %q stderr %s", code, out, stderr)
	}
	if code, out, stderr := main("", "replay", "latest", "--run-dir", runs, "-q"); code != 0 || strings.TrimSpace(out) != `"from-stdin"` {
		t.Errorf("replay of a run of a spec from stdin: exit %d stdout %q stderr %s", code, out, stderr)
	}
	code, _, stderr = main(reentrantSpec, "run", "-", "--slot", "svc=exec:cat", "--input", "x=@-", "--no-journal")
	if code != exitUsage || !strings.Contains(stderr, "stdin holds the spec") {
		t.Errorf("--input x=@- with the spec on stdin: exit %d stderr %s", code, stderr)
	}
	code, _, stderr = main("", "run", "-", "--no-journal")
	if code != exitUsage || !strings.Contains(stderr, "stdin is empty") {
		t.Errorf("empty stdin: exit %d stderr %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "prose", "stdin")); err != nil {
		t.Errorf("the spec was not kept: %v", err)
	}
}
