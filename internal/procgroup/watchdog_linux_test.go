package procgroup

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary be its own watchdog, as prose is, and be
// the prose that TestKilledParentLeavesNoProcess kills.
func TestMain(m *testing.M) {
	if len(os.Args) > 0 && os.Args[0] == watchdogArg0 {
		fakeWatchdog()
	}
	Init()
	if prog := os.Getenv(siblingEnv); prog != "" {
		useSibling(prog)
	}
	if os.Getenv(childEnv) != "" {
		runPrograms()
	}
	if os.Getenv(starterGoneEnv) != "" {
		starterGone()
	}
	if os.Getenv(daemonEnv) != "" {
		startDaemon()
	}
	os.Exit(m.Run())
}

const (
	childEnv  = "PROCGROUP_TEST_CHILD"
	markerEnv = "PROCGROUP_TEST_MARK"
)

// runPrograms is the killed parent: it starts programs that fork
// children (most with Start, some prepared and started otherwise),
// one after another and several at once, ends some of them and leaves
// others running, until it is killed.
func runPrograms() {
	for i := 0; ; i++ {
		cmd := exec.Command("/bin/sh", "-c", "sleep 100 & sleep 100 & wait")
		var g Group
		var err error
		if i%4 == 1 {
			// started by other code (an MCP client's transport)
			var release func() Group
			if release, err = Prepare(cmd); err == nil {
				err = cmd.Start()
				g = release()
			}
		} else {
			g, err = Start(cmd)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		if i%3 == 0 {
			syscall.Kill(-g.ID, syscall.SIGKILL)
			<-exited
			ReapGroup(g.ID)
			Done(g)
		}
		time.Sleep(time.Millisecond)
	}
}

// marked lists the live processes whose environment holds mark.
func marked(mark string) []int {
	var pids []int
	each(func(pid int, s stat) {
		if !s.live() {
			return
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err == nil && bytes.Contains(env, []byte(mark+"\x00")) {
			pids = append(pids, pid)
		}
	})
	return pids
}

// A parent killed with SIGKILL at any point while it starts and ends
// programs (each a shell whose children sleep) leaves none of their
// processes alive, nor its watchdog: no resume is needed.
func TestKilledParentLeavesNoProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(30))
	for point := range 20 {
		mark := markerEnv + "=" + strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(point)
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=1", mark)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Intn(60)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		left := marked(mark)
		deadline := time.Now().Add(time.Minute) // a guard, not a measure
		for len(left) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			left = marked(mark)
		}
		if len(left) > 0 {
			var what []string
			for _, pid := range left {
				cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
				what = append(what, fmt.Sprintf("%d %q", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("point %d: %d processes outlived their killed parent:\n%s", point, len(left), strings.Join(what, "\n"))
		}
	}
}

// A shell command line started with the watchdog runs, gate and all, in
// one shell that is the program: what it sees is what /bin/sh -c sees
// (its name, no gate variable, no gate descriptor, its stdin, its exit
// status, its line numbers), and it runs only once the group is listed.
func TestGatedShellCommand(t *testing.T) {
	script := `echo "0=$0 n=$# gate=${prose_gate-unset}"; if [ -e /proc/self/fd/3 ]; then echo fd3-open; fi; read -r line; echo "in=$line"; echo "pid=$$"
exit 7`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Stdin = strings.NewReader("hello\n")
	var out bytes.Buffer
	cmd.Stdout = &out
	g, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	Done(g)
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Fatalf("exit %v, want 7", err)
	}
	want := fmt.Sprintf("0=/bin/sh n=0 gate=unset\nin=hello\npid=%d\n", g.ID)
	if out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	// a syntax error names the script's own line
	var direct, gated bytes.Buffer
	bad := "echo a\nfi"
	plain := exec.Command("/bin/sh", "-c", bad)
	plain.Stderr = &direct
	plain.Run()
	cmd = exec.Command("/bin/sh", "-c", bad)
	cmd.Stderr = &gated
	if g, err = Start(cmd); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	Done(g)
	if gated.String() != direct.String() || !strings.Contains(direct.String(), "2") {
		t.Errorf("syntax error %q, without the gate %q", gated.String(), direct.String())
	}
}
