package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// digestWorld is a copy of testdata/world/digest with its state
// directory, drained by a built prose.
type digestWorld struct {
	t                   *testing.T
	prose, dir, project string
	state               string
}

func newDigestWorld(t *testing.T) *digestWorld {
	t.Helper()
	if testing.Short() {
		t.Skip("builds prose and drains a world many times")
	}
	dir := t.TempDir()
	project := filepath.Join(dir, "digest")
	os.MkdirAll(project, 0o755)
	src := filepath.Join(testenv.MustRoot(t), "testdata", "world", "digest")
	for _, f := range []string{"digest.prose.md", "signals.prose.md", "render.sh"} {
		copyFile(t, filepath.Join(src, f), filepath.Join(project, f))
	}
	os.Chmod(filepath.Join(project, "render.sh"), 0o755)
	return &digestWorld{t: t, prose: buildProse(t, dir), dir: dir, project: project, state: filepath.Join(dir, "state")}
}

// run is `prose run` of the project with one event, not yet started.
func (w *digestWorld) run(headline string, extra ...string) *exec.Cmd {
	ev := filepath.Join(w.dir, "event-"+headline+".json")
	os.WriteFile(ev, []byte(`{"headline":"`+headline+`"}`), 0o600)
	args := append([]string{"run", w.project, "--state", w.state, "--slot", "*=exec:" + filepath.Join(w.project, "render.sh"), "--event", "signals=@" + ev}, extra...)
	return exec.Command(w.prose, args...)
}

// externalReceipts counts the gateway's rendered receipts: each drain
// given a new event leaves one (the first woken by boot, the others by
// the event).
func (w *digestWorld) externalReceipts() int {
	w.t.Helper()
	st, err := store.Open(w.state)
	if err != nil {
		w.t.Fatal(err)
	}
	rs, err := st.Ledger("signals")
	if err != nil {
		w.t.Fatal(err)
	}
	n := 0
	for _, r := range rs {
		if r.Status == receipt.Rendered && r.Events != "" {
			n++
		}
	}
	return n
}

func (w *digestWorld) verify() {
	w.t.Helper()
	st, err := store.Open(w.state)
	if err != nil {
		w.t.Fatal(err)
	}
	if ps, err := st.Verify(nil, nil); err != nil || len(ps) > 0 {
		w.t.Fatalf("verify: %v %v", ps, err)
	}
}

// Two prose run DIR of one state at once, 20 trials: each is a drain
// that commits its event whole, or a refusal that names the holder; with
// --wait both commit. No event an exit 0 acknowledged is lost, no chain
// is torn.
func TestWorldTwoDrainsOneState(t *testing.T) {
	w := newDigestWorld(t)
	committed, refused := 0, 0
	for trial := 0; trial < 20; trial++ {
		var extra []string
		if trial%2 == 1 {
			extra = []string{"--wait"}
		}
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		for i := 0; i < 2; i++ {
			c := w.run(fmt.Sprintf("t%d-%d", trial, i), extra...)
			var out bytes.Buffer
			c.Stdout, c.Stderr = &out, &out
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, c), append(outs, &out)
		}
		for i, c := range cmds {
			err := c.Wait()
			switch {
			case err == nil:
				committed++
			case strings.Contains(outs[i].String(), "is being written by pid") && strings.Contains(outs[i].String(), "prose run"):
				if extra != nil {
					t.Errorf("trial %d: refused with --wait:\n%s", trial, outs[i])
				}
				refused++
			default:
				t.Fatalf("trial %d: %v\n%s", trial, err, outs[i])
			}
		}
		if got := w.externalReceipts(); got != committed {
			t.Fatalf("trial %d: %d drains committed an event, the gateway's ledger holds %d", trial, committed, got)
		}
	}
	w.verify()
	if committed+refused != 40 || committed < 30 {
		t.Errorf("%d committed, %d refused of 40", committed, refused)
	}
	t.Logf("%d committed, %d refused", committed, refused)
}

// prose run DIR beside a prose serve of the same state: refused every
// time, naming the server; serve's own drains stay whole.
func TestWorldDrainBesideServe(t *testing.T) {
	w := newDigestWorld(t)
	serveCmd := exec.Command(w.prose, "serve", w.project, "--state", w.state, "--slot", "*=exec:"+filepath.Join(w.project, "render.sh"), "--http", "127.0.0.1:0")
	stderr, _ := serveCmd.StderrPipe()
	if err := serveCmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	listening := make(chan bool, 1)
	exited := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
			if listenRE.MatchString(sc.Text()) {
				listening <- true
			}
		}
		exited <- serveCmd.Wait()
	}()
	select {
	case <-listening:
	case err := <-exited:
		t.Fatalf("prose serve exited: %v %v", err, lines)
	case <-time.After(time.Minute):
		t.Fatal("prose serve did not listen within a minute")
	}
	defer func() {
		serveCmd.Process.Signal(syscall.SIGINT)
		<-exited
		w.verify()
	}()
	for trial := 0; trial < 20; trial++ {
		c := w.run(fmt.Sprintf("beside-%d", trial))
		out, err := c.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "is being written by pid") || !strings.Contains(string(out), "prose serve") ||
			!strings.Contains(string(out), "--server URL") || strings.Contains(string(out), "--wait") {
			t.Fatalf("trial %d: prose run beside prose serve: %v\n%s", trial, err, out)
		}
	}
	if got := w.externalReceipts(); got != 0 {
		t.Errorf("the refused drains left %d receipts", got)
	}
}

// TestServeAndTriggerLockBeforeReading: a local prose serve or prose
// trigger refused by another writer's lock has read and written nothing
// of the state directory (no FORMAT made there).
func TestServeAndTriggerLockBeforeReading(t *testing.T) {
	w := newDigestWorld(t)
	release, err := store.Lock(t.Context(), w.state, store.LockOptions{Command: "test holder"})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	render := "*=exec:" + filepath.Join(w.project, "render.sh")
	for _, args := range [][]string{
		{"serve", w.project, "--state", w.state, "--slot", render, "--http", "127.0.0.1:0"},
		{"trigger", "signals", "--project", w.project, "--state", w.state, "--slot", render, "--data", `{"headline":"x"}`},
	} {
		out, err := exec.Command(w.prose, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "test holder") {
			t.Fatalf("prose %s beside a held lock: %v\n%s", args[0], err, out)
		}
		if _, err := os.Stat(filepath.Join(w.state, "FORMAT")); !os.IsNotExist(err) {
			t.Fatalf("prose %s refused by the lock still opened the store: FORMAT %v", args[0], err)
		}
	}
}
