package procgroup

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The watchdog.
//
// Decided: one watchdog per prose process, not one supervisor per
// program, started the first time a program is started, in a process
// group of its own, with the read end of a pipe as its stdin. Only prose
// holds the write end (it is close-on-exec, and no program gets it), so
// the pipe reaches its end when prose is gone, however it died: kill -9
// included. Prose writes a line to the pipe for each process group it
// starts ("+ID IDENT") and for each that ended ("-ID"). At the end of its
// input the watchdog ends every group still listed (Group.End: only the
// group that was started, never one that reuses its id), and exits.
//
// Which program is the watchdog. Decided: the small program prose (the
// one that serves lint; cmd/prose calls Watchdog first thing), when the
// program that runs specs was told of it (WatchdogProgram: prose-full and
// prose-temporal name the prose beside them) and it answers this
// package's protocol; otherwise this executable itself, started again
// (Init). The watchdog is started for every run that starts a program,
// and its start is a large part of its cost where a run starts a few
// dozen: prose-full's start (its runtime, the pages of a 28 MB program,
// the package initialisations of MCP, OpenTelemetry...) costs about
// twice the small program's, which links nothing of running specs. The
// watchdog code links nothing the small program does not (no package
// net; TestLeanDependencies holds it to that).
//
// The protocol is checked before the program is used: the watchdog is
// given watchdogProtocol in its environment and sends, as its first
// message on the starter's socket (starter_linux.go), the protocol it
// speaks; one asked for another exits after it. A program that answers
// another protocol, nothing within helloWait, or closes the socket (a
// prose of another version, or no watchdog at all) is killed and this
// executable is started instead, which needs no check to speak its own
// protocol. Where there is no starter socket (other systems than Linux)
// the other program cannot be asked, so it is never used.
//
// A program must not run before the watchdog knows its group: Start
// holds it at a gate (a shell that reads a line from a pipe of its own)
// until the group is written down, and only then lets it go. A prose
// killed between the two leaves a gate that reads the end of its pipe and
// exits, and a kernel parent-death signal ends it even sooner.
//
// What escapes: a process that leaves its program's process group (a
// daemon that calls setsid) is not in any group the watchdog ends. While
// prose lives it is prose's (Subreap, EndOrphans); when prose is killed
// outright it runs on. A later resume ends the groups the killed run
// journaled (a second line, for a watchdog that could not start or was
// killed itself).
//
// Package state: a process has one watchdog and one executable, so both
// are package variables, guarded by a mutex.

const (
	watchdogArg0 = "prose-watchdog"
	watchdogEnv  = "PROSE_WATCHDOG"
	// starterEnv says the watchdog has a starter on descriptor 3
	// (starter_linux.go).
	starterEnv = "PROSE_WATCHDOG_STARTER"
	// protocolEnv holds the protocol prose speaks with its watchdog,
	// watchdogProtocol; a watchdog answers the one it speaks.
	protocolEnv      = "PROSE_WATCHDOG_PROTOCOL"
	watchdogProtocol = "prose-watchdog 1"
	// endWait bounds how long the watchdog waits for a group it killed
	// to be gone.
	endWait = 10 * time.Second
)

// helloWait bounds how long prose waits for a watchdog's first message.
var helloWait = 5 * time.Second

var wd struct {
	mu      sync.Mutex
	self    string   // executable that can be a watchdog ("" not enabled)
	program string   // the program preferred as the watchdog ("": self)
	used    string   // the program started as the watchdog
	w       *os.File // write end of the watchdog's pipe (nil: not started)
	failed  bool     // the watchdog could not be started, or died
	started bool
	exited  chan struct{} // closed once the watchdog was waited for
	starter *starter      // the watchdog's starter (nil: programs start here)
}

// Init is called first thing in a main (or a TestMain). When this process
// was started as a watchdog it runs as one and exits; otherwise it
// enables the watchdog for the programs Start starts, and returns.
// Without Init, Start starts programs without a watchdog: only the
// parent-death signal of their leader, and a later resume, end them when
// prose is killed.
func Init() {
	Watchdog()
	self, err := os.Executable()
	if err != nil {
		return
	}
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		// The running image itself, even when its file was replaced or
		// removed since (an upgrade under a long prose serve).
		self = "/proc/self/exe"
	}
	wd.mu.Lock()
	wd.self = self
	wd.mu.Unlock()
}

// Watchdog runs this process as a watchdog and exits when it was started
// as one; otherwise it returns at once. A program that another names
// with WatchdogProgram calls it first thing in its main (prose does);
// Init calls it.
func Watchdog() {
	if len(os.Args) > 0 && os.Args[0] == watchdogArg0 && os.Getenv(watchdogEnv) == "1" {
		if !watch(pollable(os.Stdin)) {
			os.Exit(2)
		}
		os.Exit(0)
	}
}

// WatchdogProgram makes the program at path, whose main calls Watchdog
// first thing, the watchdog of this process's programs in place of this
// executable, when it answers this package's protocol (see above).
// Call it after Init, before any program starts.
func WatchdogProgram(path string) {
	wd.mu.Lock()
	wd.program = path
	wd.mu.Unlock()
}

// watched is the watchdog's list of the process groups it ends at the
// end of its input, guarded by a mutex: the starter (starter_linux.go)
// adds the groups of the programs it starts from another goroutine.
type watched struct {
	mu     sync.Mutex
	groups map[int]Group
}

func (w *watched) add(g Group) {
	w.mu.Lock()
	w.groups[g.ID] = g
	w.mu.Unlock()
}

func (w *watched) remove(id int) {
	w.mu.Lock()
	delete(w.groups, id)
	w.mu.Unlock()
}

// watch is the watchdog: it reads the groups prose lists from r until
// its end, then ends the ones still listed, and the processes left to it
// as their reaper. It reports false, at once, when it was asked for a
// protocol it does not speak.
func watch(r io.Reader) bool {
	// A terminal's hangup or interrupt that ends prose must not end the
	// watchdog before it has done its work. Its own process group keeps
	// it from a terminal's signals; these are belts and braces. They are
	// caught and dropped, not ignored: an ignored signal stays ignored
	// in the programs the starter starts, which must get prose's
	// dispositions (those prose ignores, the watchdog was started
	// ignoring; it leaves them as they are).
	dropped := make(chan os.Signal, 1)
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGTSTP} {
		if !signal.Ignored(sig) {
			signal.Notify(dropped, sig)
		}
	}
	// It does one thing at a time: with one P, the goroutine a request
	// or a SIGCHLD wakes runs on the thread that received it, and no
	// other thread spins looking for work.
	runtime.GOMAXPROCS(1)
	w := &watched{groups: map[int]Group{}}
	if !serveStarts(w) {
		return false
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		op, rest, _ := strings.Cut(sc.Text(), " ")
		switch op {
		case "+":
			idText, ident, _ := strings.Cut(rest, " ")
			if id, err := strconv.Atoi(idText); err == nil && id > 0 {
				w.add(Group{ID: id, Ident: ident})
			}
		case "-":
			if id, err := strconv.Atoi(rest); err == nil {
				w.remove(id)
			}
		}
	}
	w.mu.Lock() // held to the end: the starter starts nothing more
	for _, g := range w.groups {
		if g.Ident == "" {
			// No identity to check it by: the leader's parent-death
			// signal is all there is. Killing by id alone could end a
			// stranger's group.
			continue
		}
		g.End(endWait)
	}
	// The programs the starter started, and the orphans handed to it,
	// are its children: none is left to its parent.
	EndOrphans()
	return true
}

// startWatchdog starts the watchdog if it is enabled and not started yet:
// the program preferred, else this executable. It returns the pipe to
// it, nil when there is none.
func startWatchdog() *os.File {
	if wd.started || wd.failed || wd.self == "" {
		return wd.w
	}
	wd.started = true
	for _, prog := range []string{wd.program, wd.self} {
		if prog == "" {
			continue
		}
		if w := tryWatchdog(prog, prog == wd.self); w != nil {
			wd.used = prog
			return w
		}
	}
	wd.failed = true
	return nil
}

// tryWatchdog starts prog as the watchdog and returns the pipe to it, or
// nil when it could not be started or, unless it is this executable
// (self), did not answer this package's protocol: it is then ended.
func tryWatchdog(prog string, self bool) *os.File {
	st, theirs := newStarter()
	if st == nil && !self {
		return nil // it cannot be asked what it speaks
	}
	closeStarter := func() {
		if st != nil {
			st.close()
			theirs.Close()
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		closeStarter()
		return nil
	}
	cmd := exec.Command(prog)
	cmd.Args = []string{watchdogArg0}
	cmd.Env = append(os.Environ(), watchdogEnv+"=1", protocolEnv+"="+watchdogProtocol)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if st != nil {
		cmd.ExtraFiles = []*os.File{theirs}
		cmd.Env = append(cmd.Env, starterEnv+"=1")
	}
	err = cmd.Start()
	r.Close()
	if st != nil {
		theirs.Close()
	}
	if err != nil {
		w.Close()
		if st != nil {
			st.close()
		}
		return nil
	}
	if st != nil && !st.hello(watchdogProtocol, helloWait) {
		// No watchdog of this prose. It leads its group (Setpgid) and
		// is not reaped yet, so the group is the one it started; it is
		// killed itself too, in case it left that group.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Process.Kill()
		w.Close()
		st.close()
		cmd.Wait()
		return nil
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() // reaped when it exits, at the end of prose
	wd.w, wd.exited = w, exited
	if st != nil {
		wd.starter = st
		go st.read()
	}
	return w
}

// stopWatchdog ends the watchdog's input, so that it ends what is still
// listed and exits, and waits for it (at most wait): at the end of
// prose, a watchdog already gone is not one more child for EndOrphans to
// look for, and its CPU is counted as prose's.
func stopWatchdog(wait time.Duration) {
	wd.mu.Lock()
	w, exited, st := wd.w, wd.exited, wd.starter
	wd.w, wd.failed, wd.starter = nil, true, nil
	wd.mu.Unlock()
	if w == nil {
		return
	}
	if st != nil {
		st.close()
	}
	w.Close()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
	}
}

// tell writes a line to the watchdog. It reports false when there is no
// watchdog to tell.
func tell(line string) bool {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	w := startWatchdog()
	if w == nil {
		return false
	}
	if err := writeRaw(w, []byte(line)); err != nil {
		// The watchdog died: from now on, programs run without one.
		w.Close()
		wd.w, wd.failed = nil, true
		return false
	}
	return true
}

// gateScript holds a program at a gate until prose writes "go" to the
// pipe at fd, then runs the program ("$@") with the gate closed. A gate
// that reads the end of its pipe (prose is gone) exits with 125.
func gateScript(fd int) string {
	return fmt.Sprintf(`IFS= read -r go <&%d && [ "$go" = go ] || exit 125; exec "$@" %d<&-`, fd, fd)
}

// shellScript is the script of a cmd that is /bin/sh -c SCRIPT, with
// nothing after it ($0 is then the shell's own name).
func shellScript(cmd *exec.Cmd) (string, bool) {
	if cmd.Path != "/bin/sh" || len(cmd.Args) != 3 || cmd.Args[1] != "-c" {
		return "", false
	}
	return cmd.Args[2], true
}

// gatedScript is script held at the gate of gateScript, in the same
// shell: the gate closed and its variable unset before the script's first
// command, so that what runs is what /bin/sh -c script runs. The gate
// leads the script's first line, so the script's lines keep their numbers
// in the shell's messages; a syntax error on that line stops the shell
// before anything ran, as it did without the gate.
func gatedScript(fd int, script string) string {
	return fmt.Sprintf(`IFS= read -r prose_gate <&%d && [ "$prose_gate" = go ] || exit 125; unset prose_gate; exec %d<&-; `, fd, fd) + script
}

// Start starts cmd as the leader of a process group of its own, with the
// kernel's parent-death signal set, and lists its group with the
// watchdog before the program runs (see the package doc): when prose
// dies by any signal, the group is ended. It sets cmd.SysProcAttr and
// adds a file to cmd.ExtraFiles. Call Done with the group once the
// program and what it left in its group are gone.
func Start(cmd *exec.Cmd) (Group, error) {
	release, err := Prepare(cmd)
	if err != nil {
		return Group{}, err
	}
	err = cmd.Start()
	g := release()
	return g, err
}

// Prepare is Start for code that starts cmd itself (an MCP client's
// command transport): it sets cmd up as Start does, and release, called
// once cmd was started (or failed to start), lists its group with the
// watchdog and lets the program run. Until then the program waits at
// its gate. release returns the group (the zero Group when cmd did not
// start); it must be called exactly once.
func Prepare(cmd *exec.Cmd) (release func() Group, err error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	cmd.SysProcAttr = procAttr()
	wd.mu.Lock()
	enabled := wd.self != "" && !wd.failed
	wd.mu.Unlock()
	started := func() (Group, bool) {
		if cmd.Process == nil {
			return Group{}, false
		}
		return Of(cmd.Process.Pid), true
	}
	if !enabled {
		return func() Group { g, _ := started(); return g }, nil
	}
	gr, gw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, gr)
	if script, ok := shellScript(cmd); ok {
		// a shell command line: the gate is the first line of the same
		// shell, one program start fewer a call
		cmd.Args = []string{cmd.Args[0], "-c", gatedScript(fd, script)}
	} else {
		args := append([]string{"/bin/sh", "-c", gateScript(fd), "prose-gate", cmd.Path}, cmd.Args[1:]...)
		cmd.Path, cmd.Args = "/bin/sh", args
	}
	return func() Group {
		gr.Close()
		defer gw.Close()
		g, ok := started()
		if !ok {
			return Group{}
		}
		tell(fmt.Sprintf("+ %d %s\n", g.ID, g.Ident))
		// Whether or not the watchdog heard of it, the program runs:
		// without one, prose is as safe as it was before there was a
		// watchdog.
		io.WriteString(gw, "go\n")
		return g
	}, nil
}

// Done tells the watchdog that group g has ended: its id may be reused.
func Done(g Group) {
	wd.mu.Lock()
	started := wd.w != nil
	wd.mu.Unlock()
	if started {
		tell("- " + strconv.Itoa(g.ID) + "\n")
	}
}
