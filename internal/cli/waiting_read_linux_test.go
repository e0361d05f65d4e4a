package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
)

// A command that waits for its input (stdin that nothing writes to, or a
// named pipe that nothing opens to write) stops on SIGTERM, exiting 130
// as an interrupted run does, instead of waiting on past the signal.
func TestWaitingReadsStopOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the prose binary")
	}
	root := testenv.MustRoot(t)
	bin := buildProse(t, t.TempDir())
	dir := t.TempDir()
	copyFile(t, filepath.Join(root, "testdata", "run", "release-note.prose.md"), filepath.Join(dir, "release-note.prose.md"))
	world := filepath.Join(dir, "world")
	if err := os.Mkdir(world, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"signals.prose.md", "digest.prose.md", "render.sh"} {
		copyFile(t, filepath.Join(root, "testdata", "world", "digest", f), filepath.Join(world, f))
	}
	fifo := filepath.Join(dir, "nobody-writes")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	note := []string{"run", "--no-journal", "release-note.prose.md", "--input", "audience=users",
		"--slot", "headline-writer=exec:cat", "--slot", "summarizer=exec:cat"}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"input from a named pipe", append(note, "--input", "changes=@"+fifo)},
		{"input from stdin", append(note, "--input", "changes=@-")},
		{"input-json from stdin", append(note, "--input-json", "-")},
		{"spec from stdin", []string{"run", "-", "--no-journal"}},
		{"show from stdin", []string{"show", "-"}},
		{"event from a named pipe", []string{"run", world, "--slot", "*=exec:sh render.sh", "--event", "signals=@" + fifo}},
		{"event from stdin", []string{"run", world, "--slot", "*=exec:sh render.sh", "--event", "signals=-"}},
		{"trigger data from stdin", []string{"trigger", "signals", "--project", world, "--data", "-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Dir = dir
			stdin, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close() // held open: stdin never ends
			cmd.Stdin = stdin
			var errw strings.Builder
			cmd.Stderr = &errw
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stdin.Close()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			if !waitsOnPipe(t, cmd.Process.Pid, exited) {
				t.Fatalf("prose %s ended or never came to wait on its input; stderr:\n%s", strings.Join(tc.args, " "), errw.String())
			}
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err = <-exited:
			case <-time.After(2 * time.Minute): // a guard against the hang, not a measure
				cmd.Process.Kill()
				t.Fatalf("prose %s ignored SIGTERM while it waited for its input; stderr:\n%s", strings.Join(tc.args, " "), errw.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupt || !strings.Contains(errw.String(), "interrupted") {
				t.Errorf("exit: %v, want %d, interrupted; stderr:\n%s", err, exitInterrupt, errw.String())
			}
		})
	}
}

// waitsOnPipe reports, once it is so, that a thread of process pid waits
// in the kernel on a pipe (a read of one, or the open of a named pipe
// that waits for a writer), or false when the process ends first. A
// kernel that does not name where a thread waits skips the test.
func waitsOnPipe(t *testing.T, pid int, exited <-chan error) bool {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a guard, not a measure
	named := false
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "wchan"))
		for _, f := range tasks {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			w := string(b)
			if w != "" && w != "0" {
				named = true
			}
			if strings.Contains(w, "pipe") || strings.Contains(w, "wait_for_partner") || strings.Contains(w, "fifo") {
				return true
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !named {
		t.Skip("this kernel does not say where a thread waits (/proc/PID/task/*/wchan)")
	}
	return false
}
