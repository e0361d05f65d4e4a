package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
)

// noteTest is a test of the release-note function, its nodes bound to
// the stand-in programs of testdata/run.
const noteTest = `---
name: note-test
kind: test
subject: release-note
---

# Release note test

### Fixtures

- ` + "`changes`" + `: "a; b; c"
- ` + "`audience`" + `: "users"
- ` + "`headline-writer`" + `: exec:sh ./headline.sh
- ` + "`summarizer`" + `: exec:sh ./summarize.sh

### Expects

- ` + "`change-count`" + `: equals 3
`

// fifoWorld is a directory holding the release-note function, its test,
// its programs and a named pipe called a-pipe.prose.md that nobody writes.
func fifoWorld(t *testing.T) string {
	t.Helper()
	root := testenv.MustRoot(t)
	dir := t.TempDir()
	for _, f := range []string{"release-note.prose.md", "headline.sh", "summarize.sh"} {
		copyFile(t, filepath.Join(root, "testdata", "run", f), filepath.Join(dir, f))
	}
	if err := os.WriteFile(filepath.Join(dir, "note.test.prose.md"), []byte(noteTest), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(dir, "a-pipe.prose.md")); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return dir
}

// A named pipe called *.prose.md beside a spec hangs no command: call
// resolution, lint's walk and the test runner's discovery and subject
// look-up read only regular files.
func TestNamedPipeBesideSpecs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the prose binary")
	}
	bin := buildProse(t, t.TempDir())
	dir := fifoWorld(t)
	for _, tc := range []struct {
		name string
		args []string
		want string // in stdout
	}{
		{"run", []string{"run", "--no-journal", "release-note.prose.md", "--input", "changes=x; y", "--input", "audience=users",
			"--slot", "headline-writer=exec:sh ./headline.sh", "--slot", "summarizer=exec:sh ./summarize.sh"}, `"change-count": 2`},
		{"lint", []string{"lint", "."}, "a named pipe"},
		{"test", []string{"test", "."}, "note-test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A guard against the hang, not a measure.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, tc.args...)
			cmd.Dir = dir
			var out, errw strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errw
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("prose %s hung on the named pipe", tc.name)
			}
			if err != nil {
				t.Fatalf("prose %s: %v\nstdout:\n%s\nstderr:\n%s", tc.name, err, out.String(), errw.String())
			}
			if !strings.Contains(out.String()+errw.String(), tc.want) {
				t.Errorf("prose %s printed no %q:\nstdout:\n%s\nstderr:\n%s", tc.name, tc.want, out.String(), errw.String())
			}
		})
	}
}

// blockTest is a test whose service starts a grandchild that sleeps for
// a day, writes its pid to DIR (services of a test run in a directory of
// their own) and waits for it.
const blockTest = `---
name: block-test
kind: test
subject: release-note
---

# A test that does not end by itself

### Fixtures

- ` + "`changes`" + `: "a"
- ` + "`audience`" + `: "users"
- ` + "`headline-writer`" + `: exec:sleep 100000 & echo $! > DIR/sleep.tmp; mv DIR/sleep.tmp DIR/sleep.pid; wait
- ` + "`summarizer`" + `: exec:sh ./summarize.sh

### Expects

- ` + "`change-count`" + `: equals 1
`

// prose test stops on SIGTERM: it exits 130 and leaves nothing of its
// services running.
func TestTestStopsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the prose binary")
	}
	bin := buildProse(t, t.TempDir())
	dir := fifoWorld(t)
	if err := os.WriteFile(filepath.Join(dir, "note.test.prose.md"), []byte(strings.ReplaceAll(blockTest, "DIR", dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "test", ".")
	cmd.Dir = dir
	var errw strings.Builder
	cmd.Stderr = &errw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	sleeper := waitForPID(t, filepath.Join(dir, "sleep.pid"))
	t.Cleanup(func() { syscall.Kill(sleeper, syscall.SIGKILL) })
	cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case err = <-exited:
	case <-time.After(2 * time.Minute): // a guard against the hang, not a measure
		cmd.Process.Kill()
		t.Fatalf("prose test ignored SIGTERM; stderr:\n%s", errw.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupt {
		t.Errorf("exit: %v, want %d; stderr:\n%s", err, exitInterrupt, errw.String())
	}
	if alive(sleeper) {
		t.Errorf("the service's grandchild (pid %d) outlived prose test", sleeper)
	}
}
