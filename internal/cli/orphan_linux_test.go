package cli

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

// buildInstalled builds the programs as go install ./cmd/... installs
// them, side by side in dir: prose, which hands a run to prose-full (or
// to the program with the Temporal engine, when this test binary links
// it), which starts that prose as its programs' watchdog. It returns the
// path of prose.
func buildInstalled(t *testing.T, dir string) string {
	t.Helper()
	full := buildProse(t, dir)
	if err := os.Rename(full, filepath.Join(dir, "prose-full")); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "prose")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/proselang/prose/cmd/prose").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// When prose is killed outright (kill -9), the program it was running dies
// with it instead of living on beside a resumed run. Its watchdog, the
// program's parent, is the small program prose installed beside
// prose-full.
func TestKilledRunTakesItsProgramAlong(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the prose binary")
	}
	dir := t.TempDir()
	bin := buildInstalled(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "sleeper.prose.md"), []byte(sleeperSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--no-journal", "-q", "sleeper.prose.md", "--slot",
		"svc=exec:readlink /proc/$PPID/exe > parent; echo $$ > pid; exec sleep 60")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := waitForPID(t, filepath.Join(dir, "pid"))
	if parent, err := os.ReadFile(filepath.Join(dir, "parent")); err != nil || strings.TrimSpace(string(parent)) != bin {
		t.Errorf("the program's parent is %q (%v), want the watchdog %s", parent, err, bin)
	}
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

// resumeSvc is a service for TestResumeEndsWhatAKilledRunLeft. Its first
// run starts a grandchild that would run forever and waits for it; a later
// run writes down whether that grandchild is still alive when it starts,
// leaves a process of its own in its group and a daemon outside it, and
// answers.
const resumeSvc = `if [ -s grandchild.pid ]; then
  p=$(cat grandchild.pid)
  state=dead
  if [ -r /proc/$p/stat ] && ! sed 's/.*) //' /proc/$p/stat | grep -q '^Z'; then state=alive; fi
  echo "$state" > seen
  sleep 100000 >/dev/null 2>&1 &
  echo $! > second.pid
  setsid sh -c 'echo $$ > daemon.tmp; mv daemon.tmp daemon.pid; exec sleep 100000' </dev/null >/dev/null 2>&1 &
  while [ ! -s daemon.pid ]; do sleep 0.01; done
  echo '"done"'
  exit 0
fi
sleep 100000 &
echo $! > grandchild.tmp && mv grandchild.tmp grandchild.pid
wait
`

// A prose killed with SIGKILL together with its watchdog leaves its
// service's descendants running; the resume ends them before it runs the call again, so the call never
// runs twice at once, and nothing the resumed run started outlives it: not
// a process left in the service's group, nor a daemon that left it
// (prose is their subreaper).
func TestResumeEndsWhatAKilledRunLeft(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the prose binary")
	}
	dir := t.TempDir()
	bin := buildProse(t, dir)
	for name, src := range map[string]string{"sleeper.prose.md": sleeperSpec, "svc.sh": resumeSvc} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "run", "-q", "sleeper.prose.md", "--slot", "svc=exec:sh svc.sh")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	grandchild := waitForPID(t, filepath.Join(dir, "grandchild.pid"))
	t.Cleanup(func() { syscall.Kill(grandchild, syscall.SIGKILL) })
	id := waitForProcRecord(t, filepath.Join(dir, ".prose", "runs"))
	// The watchdog would end the group with prose: the second line is
	// for a watchdog that is gone too, so it is killed first, with prose
	// stopped so that it cannot notice.
	cmd.Process.Signal(syscall.SIGSTOP)
	wd := watchdogOf(t, cmd.Process.Pid)
	syscall.Kill(wd, syscall.SIGKILL)
	cmd.Process.Kill()
	cmd.Wait()
	if !alive(grandchild) {
		t.Fatal("the grandchild died with prose: nothing left for the resume to end")
	}

	resume := exec.Command(bin, "resume", id)
	resume.Dir = dir
	out, err := resume.Output()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if strings.TrimSpace(string(out)) != `"done"` {
		t.Errorf("resume printed %q", out)
	}
	if seen, _ := os.ReadFile(filepath.Join(dir, "seen")); strings.TrimSpace(string(seen)) != "dead" {
		t.Errorf("the resumed call started while the killed run's grandchild was %q", seen)
	}
	pids := map[string]int{"the killed run's grandchild": grandchild}
	for _, f := range []string{"second.pid", "daemon.pid"} {
		pid := waitForPID(t, filepath.Join(dir, f))
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
		pids[f] = pid
	}
	for what, pid := range pids {
		if alive(pid) {
			t.Errorf("%s (pid %d) outlived the resumed run", what, pid)
		}
	}
}

// waitForProcRecord waits until the one run under runs has journaled the
// process group of a call, and returns its id.
func waitForProcRecord(t *testing.T, runs string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a guard, not a measure
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir(runs)
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(runs, e.Name(), "journal.jsonl"))
			if strings.Contains(string(b), `"pgid":`) {
				return e.Name()
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the run never journaled its service's process group")
	return ""
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

// watchdogOf is the pid of the watchdog prose pid started.
func watchdogOf(t *testing.T, pid int) int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 || !strings.HasPrefix(string(cmdline), "prose-watchdog\x00") {
			continue
		}
		if f := strings.Fields(string(stat)[i+1:]); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			return p
		}
	}
	t.Fatalf("prose (pid %d) has no watchdog", pid)
	return 0
}
