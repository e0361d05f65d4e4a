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
	Init()
	if os.Getenv(childEnv) != "" {
		runPrograms()
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
