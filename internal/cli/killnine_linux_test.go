package cli

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
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

// forkingSvc is a program that forks two children and waits for them: a
// call that never ends, with processes its shell does not lead.
const forkingSvc = `exec:touch "$PROSE_KILLNINE_STARTED"; sleep 100 & sleep 100 & wait`

// forkingQuickSvc forks two children, answers after a moment and leaves
// them in its group: calls that end, one after another.
const forkingQuickSvc = `exec:touch "$PROSE_KILLNINE_STARTED"; sleep 100 & sleep 100 & sleep 0.2; echo '"ok"'`

// orphanMark is the environment variable that marks every process one
// kill point's prose started, however deep: a process inherits it.
const orphanMark = "PROSE_KILLNINE_MARK"

// markedProcs lists the live processes whose environment holds mark.
func markedProcs(mark string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && bytes.Contains(env, []byte(mark+"\x00")) && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killNine starts cmd marked with mark, lets it run for a while the rng
// picks (up to most), kills it with SIGKILL and counts the processes of
// its that are alive once they have had time to go (left), and those
// that were alive when it was killed (before).
func killNine(t *testing.T, cmd *exec.Cmd, mark string, rng *rand.Rand, most int, during func()) (before, left int) {
	t.Helper()
	started := filepath.Join(t.TempDir(), "started")
	cmd.Env = append(append(os.Environ(), cmd.Env...), mark, "PROSE_KILLNINE_STARTED="+started)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		if during != nil {
			during()
		}
		<-stop
	}()
	// The kill point: a random time after the first program started
	// (each program touches the file $PROSE_KILLNINE_STARTED names).
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	for wait := time.Now().Add(time.Minute); time.Now().Before(wait); {
		if _, err := os.Stat(started); err == nil {
			break
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before it started a program", cmd.Args[:2])
		case <-time.After(5 * time.Millisecond):
		}
	}
	time.Sleep(time.Duration(rng.Intn(most)) * time.Millisecond)
	before = len(markedProcs(mark))
	cmd.Process.Kill()
	<-exited
	close(stop)
	<-done
	alive := markedProcs(mark)
	deadline := time.Now().Add(time.Minute) // a guard, not a measure
	for len(alive) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		alive = markedProcs(mark)
	}
	for _, pid := range alive {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		t.Logf("alive: %d %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return before, len(alive)
}

// kill -9 of prose at 20 points chosen by a seeded RNG, for a pattern, a
// parallel fan-out, a world drain (prose run DIR), prose serve and prose
// mcp, each running programs that fork: none of their processes is alive
// afterwards, with no resume.
func TestKillNineLeavesNoProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the prose binary")
	}
	dir := t.TempDir()
	bin := buildInstalled(t, dir)
	root := testenv.MustRoot(t)
	if err := os.WriteFile(filepath.Join(dir, "sleeper.prose.md"), []byte(sleeperSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	const points = 20
	check := func(t *testing.T, seed int64, most int, mk func(point int) (*exec.Cmd, func())) {
		rng := rand.New(rand.NewSource(seed))
		busy := 0
		for point := range points {
			cmd, during := mk(point)
			mark := fmt.Sprintf("%s=%d-%s-%d", orphanMark, os.Getpid(), t.Name(), point)
			before, left := killNine(t, cmd, mark, rng, most, during)
			if left > 0 {
				t.Errorf("point %d: %d processes outlived the killed prose", point, left)
			}
			// prose and its watchdog, and at least a program's shell
			if before > 2 {
				busy++
			}
		}
		// The test means something only where the kills found programs
		// running.
		if busy < points/2 {
			t.Errorf("only %d of %d kills found programs running", busy, points)
		}
	}
	t.Run("pattern", func(t *testing.T) {
		check(t, 1, 400, func(int) (*exec.Cmd, func()) {
			cmd := exec.Command(bin, "run", "-q", "sleeper.prose.md", "--slot", "svc="+forkingSvc)
			cmd.Dir = dir
			return cmd, nil
		})
	})
	t.Run("fan-out", func(t *testing.T) {
		check(t, 2, 600, func(int) (*exec.Cmd, func()) {
			args := []string{"run", "-q", filepath.Join(root, "std", "patterns", "fan-out.prose.md"), "--input", "task_brief=sum", "--max-parallel", "3"}
			for range 6 {
				args = append(args, "--slot", "delegates="+forkingQuickSvc)
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			return cmd, nil
		})
	})
	t.Run("mcp", func(t *testing.T) {
		check(t, 3, 600, func(point int) (*exec.Cmd, func()) {
			cmd := exec.Command(bin, "mcp", "--run-dir", filepath.Join(dir, "mcp-runs"))
			cmd.Dir = dir
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdout = io.Discard
			return cmd, func() {
				io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"killnine","version":"1"}}}`+"\n"+
					`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
					`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run","arguments":{"file":"sleeper.prose.md","slots":{"svc":"`+strings.ReplaceAll(forkingSvc, `"`, `\"`)+`"}}}}`+"\n")
				// stdin stays open: prose mcp serves until it is killed
			}
		})
	})
	project := testenv.Corpus015(t, "examples/basic-unit-suite")
	bus := filepath.Join(dir, "bus")
	if out, err := exec.Command("go", "build", "-o", bus, filepath.Join(root, "testdata", "world", "bus")).CombinedOutput(); err != nil {
		t.Fatalf("building bus: %v\n%s", err, out)
	}
	// Every node's render forks two children that stay in its group.
	worldSlot := `*=exec:touch "$PROSE_KILLNINE_STARTED"; sleep 100 & sleep 100 & sleep 0.2; exec ` + bus
	t.Run("run-dir", func(t *testing.T) {
		ev := filepath.Join(dir, "event.json")
		os.WriteFile(ev, []byte(worldSteps[0]), 0o644)
		check(t, 4, 1000, func(point int) (*exec.Cmd, func()) {
			state := filepath.Join(dir, "drain-"+strconv.Itoa(point))
			return exec.Command(bin, "run", project, "--state", state, "--slot", worldSlot, "--event", "counter-events=@"+ev), nil
		})
	})
	t.Run("serve", func(t *testing.T) {
		check(t, 5, 1000, func(point int) (*exec.Cmd, func()) {
			port := freePort(t)
			state := filepath.Join(dir, "serve-"+strconv.Itoa(point))
			cmd := exec.Command(bin, "serve", project, "--state", state, "--slot", worldSlot, "--http", "127.0.0.1:"+strconv.Itoa(port))
			return cmd, func() {
				c := &http.Client{Timeout: 5 * time.Second}
				posted := 0
				for try := 0; try < 500 && posted < 200; try++ {
					e := fmt.Sprintf(`{"id":"k%d","kind":"click","value":1}`, posted)
					resp, err := c.Post("http://127.0.0.1:"+strconv.Itoa(port)+"/trigger/counter-events", "application/json", strings.NewReader(e))
					if err != nil {
						if posted > 0 {
							return // killed
						}
						time.Sleep(10 * time.Millisecond) // not listening yet
						continue
					}
					resp.Body.Close()
					posted++
				}
			}
		})
	})
}

// freePort is a loopback TCP port no one listens on (for a moment).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
