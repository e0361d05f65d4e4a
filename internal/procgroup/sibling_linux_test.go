package procgroup

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// siblingEnv makes the test binary the prose of TestWatchdogProgram: the
// program it names is its preferred watchdog.
const siblingEnv = "PROCGROUP_TEST_SIBLING"

// The copies of the test binary that TestWatchdogProgram names are, by
// their file's name: a watchdog of this package (watchdogCopy), one that
// answers another protocol, one that answers nothing and waits, and one
// that exits at once.
const (
	watchdogCopy = "prose"
	otherCopy    = "speaks-another-protocol"
	silentCopy   = "answers-nothing"
	exitsCopy    = "exits-at-once"
)

// fakeWatchdog is a copy of the test binary started as a watchdog: it
// behaves as its name says, or returns when it is a real one.
func fakeWatchdog() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	switch filepath.Base(exe) {
	case otherCopy:
		m := append([]byte{msgHello, 0, 0, 0, 0, 0, 0, 0, 0}, "prose-watchdog 0"...)
		syscall.Write(starterFD, m)
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case silentCopy:
		time.Sleep(time.Hour)
		os.Exit(0)
	case exitsCopy:
		os.Exit(0)
	}
}

// A program named with WatchdogProgram is the watchdog, the parent of
// the programs Launch starts, when it answers this package's protocol.
// One that answers another, answers nothing, exits, or is not there is
// not used: it is ended, and this executable is the watchdog, as
// without it. Each case runs in a process of its own (the watchdog is
// started once a process).
func TestWatchdogProgram(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, _ = filepath.EvalSymlinks(self)
	bin, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{watchdogCopy, otherCopy, silentCopy, exitsCopy} {
		if err := os.WriteFile(filepath.Join(dir, name), bin, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ name, want string }{
		{watchdogCopy, filepath.Join(dir, watchdogCopy)},
		{otherCopy, self},
		{silentCopy, self},
		{exitsCopy, self},
		{"not-there", self},
	} {
		prog := filepath.Join(dir, c.name)
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), siblingEnv+"="+prog)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", c.name, err, out)
			continue
		}
		if got := strings.TrimSpace(string(out)); got != "watchdog "+c.want {
			t.Errorf("%s: %q, want the watchdog %s", c.name, got, c.want)
		}
		// what was not used is gone: killed and reaped
		each(func(pid int, s stat) {
			if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe == prog && s.live() {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("%s: process %d left running", c.name, pid)
			}
		})
	}
}

// useSibling is the prose of TestWatchdogProgram: it launches a program
// that names its parent's executable, and prints it.
func useSibling(prog string) {
	WatchdogProgram(prog)
	if filepath.Base(prog) == silentCopy {
		helloWait = 200 * time.Millisecond // a watchdog answers at once; this one never
	}
	r, w, _ := os.Pipe()
	null, _ := os.Open(os.DevNull)
	cmd := exec.Command("/bin/sh", "-c", `readlink /proc/$PPID/exe`)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, w, w
	p, err := Launch(cmd)
	w.Close()
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	out, _ := io.ReadAll(r)
	<-p.Exited()
	p.Finish()
	if p.Err() != nil {
		fmt.Println(p.Err())
		os.Exit(1)
	}
	EndOrphans()
	fmt.Printf("watchdog %s", out)
	os.Exit(0)
}
