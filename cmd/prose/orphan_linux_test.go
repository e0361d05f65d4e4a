package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const sleeperSpec = "---\nname: sleeper\nkind: pattern\n---\n\n# Sleeper\n\nCalls one slow service.\n\n" +
	"### Slots\n\n- `svc`\n\n### Delegation\n\n```prose\nreturn call svc\n```\n"

// When prose is killed outright (kill -9), the program it was running dies
// with it instead of living on beside a resumed run.
func TestKilledRunTakesItsProgramAlong(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the prose binary")
	}
	dir := t.TempDir()
	bin := buildProse(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "sleeper.prose.md"), []byte(sleeperSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--no-journal", "-q", "sleeper.prose.md", "--slot", "svc=exec:echo $$ > pid; exec sleep 60")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := waitForPID(t, filepath.Join(dir, "pid"))
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(time.Minute) // a guard, not a measure
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the service (pid %d) outlived the killed prose", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitForPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a guard, not a measure
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the service never started")
	return 0
}

// alive reports whether pid is a live process (a zombie waiting for its
// reaper counts as dead).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
