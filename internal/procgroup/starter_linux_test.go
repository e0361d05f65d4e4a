package procgroup

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// starterGoneEnv makes the test binary the prose of
// TestStarterKilledFailsItsPrograms (see TestMain).
const starterGoneEnv = "PROCGROUP_TEST_STARTER_GONE"

// launch starts script under /bin/sh -c with Launch, stdout to a pipe,
// and returns the program and the read end of its stdout.
func launch(t *testing.T, script string) (*Program, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, w, w
	p, err := Launch(cmd)
	w.Close()
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	return p, r
}

// A program Launch starts here is started by the watchdog: its parent is
// the watchdog, not this process; it leads a group of its own whose
// identity is known; its output reaches the pipe it was given; and its
// exit status and death by a signal come back as os/exec reports them.
func TestLaunchThroughTheWatchdog(t *testing.T) {
	p, out := launch(t, `echo "pid=$$"; exit 7`)
	got, _ := io.ReadAll(out)
	out.Close()
	<-p.Exited()
	p.Finish()
	if want := fmt.Sprintf("pid=%d\n", p.Pid); string(got) != want {
		t.Errorf("output %q, want %q", got, want)
	}
	ws, ok := WaitStatus(p.Err())
	if !ok || !ws.Exited() || ws.ExitStatus() != 7 || p.Err().Error() != "exit status 7" {
		t.Errorf("err %v, want exit status 7", p.Err())
	}
	if p.Group.ID != p.Pid || p.Group.Ident == "" {
		t.Errorf("group %+v of pid %d, want the pid with an identity", p.Group, p.Pid)
	}

	p, out = launch(t, `s=$(sed 's/.*) //' /proc/$$/stat); set -- $s; echo "$2 $3"; kill -9 $$`)
	got, _ = io.ReadAll(out)
	out.Close()
	<-p.Exited()
	p.Finish()
	fields := strings.Fields(string(got))
	if len(fields) != 2 {
		t.Fatalf("output %q", got)
	}
	ppid, _ := strconv.Atoi(fields[0])
	if ppid == os.Getpid() || ppid <= 1 || fields[1] != strconv.Itoa(p.Pid) {
		t.Errorf("parent %s and group %s of %d: want the watchdog (not %d) and its own group", fields[0], fields[1], p.Pid, os.Getpid())
	}
	if ws, ok := WaitStatus(p.Err()); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("err %v, want killed by SIGKILL", p.Err())
	}
}

// A program the watchdog starts holds its stdin, stdout and stderr and
// nothing else: not the watchdog's socket, nor the descriptors another
// program's request carried, though another program runs.
func TestLaunchedProgramHoldsOnlyItsOwnDescriptors(t *testing.T) {
	// What this process was given without close-on-exec goes to every
	// program, as it would from os/exec here.
	want := []string{"0", "1", "2"}
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		fd, _ := strconv.Atoi(e.Name())
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if fd > 2 && errno == 0 && flags&syscall.FD_CLOEXEC == 0 {
			want = append(want, e.Name())
		}
	}
	slices.Sort(want)
	var progs []*Program
	for range 2 {
		// The shell reads its stdin once it said it is ready: it is
		// then the program itself, no loader's file open.
		inR, inW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer inW.Close()
		outR, outW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("/bin/sh", "-c", "echo ready; read x")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, outW
		p, err := Launch(cmd)
		inR.Close()
		outW.Close()
		if err != nil {
			t.Fatal(err)
		}
		defer outR.Close()
		line := make([]byte, 6)
		if _, err := io.ReadFull(outR, line); err != nil || string(line) != "ready\n" {
			t.Fatalf("program said %q, %v", line, err)
		}
		progs = append(progs, p)
	}
	for _, p := range progs {
		ents, err := os.ReadDir("/proc/" + strconv.Itoa(p.Pid) + "/fd")
		var fds []string
		for _, e := range ents {
			fds = append(fds, e.Name())
		}
		syscall.Kill(-p.Pid, syscall.SIGKILL)
		<-p.Exited()
		p.Finish()
		slices.Sort(fds)
		if err != nil || !slices.Equal(fds, want) {
			t.Errorf("descriptors of program %d: %v (%v), want %v", p.Pid, fds, err, want)
		}
	}
}

// A program that cannot be started fails as os/exec says it.
func TestLaunchFailsAsExecDoes(t *testing.T) {
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	cmd := exec.Command("/bin/sh", "-c", "true")
	cmd.Dir = "/nonexistent-dir"
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	_, err := Launch(cmd)
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Op != "fork/exec" || !errors.Is(err, syscall.ENOENT) {
		t.Errorf("err %v, want fork/exec ... no such file or directory", err)
	}
}

// When the watchdog dies while its programs run, their calls end with
// an error that says so and their groups are ended (no process is left
// of them), and later programs start from prose itself. It runs in a
// process of its own, whose watchdog it kills.
func TestStarterKilledFailsItsPrograms(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), starterGoneEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "starter gone: ok") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// starterGone is the prose of TestStarterKilledFailsItsPrograms: it exits
// 0 when all went as it should, else 1 with what went wrong.
func starterGone() {
	fail := func(format string, args ...any) {
		fmt.Printf(format+"\n", args...)
		os.Exit(1)
	}
	r, w, _ := os.Pipe()
	null, _ := os.Open(os.DevNull)
	cmd := exec.Command("/bin/sh", "-c", `sleep 100 & echo $!; s=$(sed 's/.*) //' /proc/$$/stat); set -- $s; echo $2; wait`)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, w, null
	p, err := Launch(cmd)
	w.Close()
	if err != nil {
		fail("launch: %v", err)
	}
	var sleeper, watchdog int
	if _, err := fmt.Fscan(r, &sleeper, &watchdog); err != nil {
		fail("reading the program's output: %v", err)
	}
	if watchdog == os.Getpid() {
		fail("the program was started by this process, not by the watchdog")
	}
	syscall.Kill(watchdog, syscall.SIGKILL)
	select {
	case <-p.Exited():
	case <-time.After(time.Minute): // a guard, not a measure
		fail("the program's call did not end when its watchdog died")
	}
	if !errors.Is(p.Err(), errStarterGone) {
		fail("err %v, want errStarterGone", p.Err())
	}
	deadline := time.Now().Add(time.Minute) // a guard, not a measure
	for Alive(p.Group.ID) {
		if time.Now().After(deadline) {
			syscall.Kill(-p.Group.ID, syscall.SIGKILL)
			fail("group %d (sleep %d) outlived the watchdog", p.Group.ID, sleeper)
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.Finish()
	// later programs start from here
	r, w, _ = os.Pipe()
	cmd = exec.Command("/bin/sh", "-c", `s=$(sed 's/.*) //' /proc/$$/stat); set -- $s; echo $2`)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, w, null
	if p, err = Launch(cmd); err != nil {
		fail("launch after the watchdog died: %v", err)
	}
	w.Close()
	var parent int
	fmt.Fscan(r, &parent)
	<-p.Exited()
	p.Finish()
	if p.Err() != nil || parent != os.Getpid() {
		fail("after the watchdog died: parent %d, err %v; want this process, nil", parent, p.Err())
	}
	EndOrphans()
	fmt.Println("starter gone: ok")
	os.Exit(0)
}

// A program the watchdog starts ignores the signals a program started
// here ignores, and no other: the watchdog's own defence against a
// terminal's signals is not inherited.
func TestLaunchedProgramKeepsTheSignalDispositions(t *testing.T) {
	const script = `sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status`
	p, out := launch(t, script)
	got, _ := io.ReadAll(out)
	out.Close()
	<-p.Exited()
	p.Finish()
	direct, err := exec.Command("/bin/sh", "-c", script).Output()
	if err != nil || p.Err() != nil {
		t.Fatal(err, p.Err())
	}
	if string(got) != string(direct) || len(direct) == 0 {
		t.Errorf("ignored signals %q, started here %q", got, direct)
	}
}

// daemonEnv makes the test binary the prose of
// TestKilledParentTakesTheDaemonAlong (see TestMain).
const daemonEnv = "PROCGROUP_TEST_DAEMON"

// A daemon that left its program's group is handed to the watchdog that
// started the program, which ends it when its prose is killed outright.
func TestKilledParentTakesTheDaemonAlong(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), daemonEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var daemon int
	_, err = fmt.Fscan(out, &daemon)
	cmd.Process.Kill()
	cmd.Wait()
	if err != nil || daemon <= 1 {
		t.Fatalf("no daemon pid: %v", err)
	}
	deadline := time.Now().Add(time.Minute) // a guard, not a measure
	for {
		s, ok := readStat(daemon)
		if !ok || !s.live() {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(daemon, syscall.SIGKILL)
			t.Fatalf("the daemon %d outlived its killed prose", daemon)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startDaemon is the prose of TestKilledParentTakesTheDaemonAlong: its
// program leaves a daemon outside its group and waits; it prints the
// daemon's pid and waits to be killed.
func startDaemon() {
	r, w, _ := os.Pipe()
	null, _ := os.Open(os.DevNull)
	cmd := exec.Command("/bin/sh", "-c", `setsid sleep 100 </dev/null >/dev/null 2>&1 & echo $!; sleep 100`)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, w, null
	if _, err := Launch(cmd); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w.Close()
	var pid int
	fmt.Fscan(r, &pid)
	fmt.Println(pid)
	time.Sleep(time.Hour)
}

// LaunchStdio hands the program its stdin, stdout and stderr as
// descriptors, through the watchdog (its parent is the watchdog) and
// without one (Start, when the command needs what only os/exec does), and
// closes them either way: what the program writes reaches each pipe, and
// each pipe's end comes when the program exits.
func TestLaunchStdio(t *testing.T) {
	for _, viaWatchdog := range []bool{true, false} {
		pipe := func() (r *os.File, w int) {
			var p [2]int
			if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
				t.Fatal(err)
			}
			return os.NewFile(uintptr(p[0]), "r"), p[1]
		}
		var in [2]int
		if err := syscall.Pipe2(in[:], syscall.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		syscall.Write(in[1], []byte("fed\n"))
		syscall.Close(in[1])
		outR, outW := pipe()
		errR, errW := pipe()
		cmd := exec.Command("/bin/sh", "-c", `read -r line; echo "$line $PPID"; echo err >&2`)
		if !viaWatchdog {
			cmd.SysProcAttr = &syscall.SysProcAttr{} // only os/exec does it: Start
		}
		p, err := LaunchStdio(cmd, [3]int{in[0], outW, errW})
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(outR) // ends only once every writer is closed: ours too
		errOut, _ := io.ReadAll(errR)
		outR.Close()
		errR.Close()
		<-p.Exited()
		p.Finish()
		fields := strings.Fields(string(out))
		if len(fields) != 2 || fields[0] != "fed" || string(errOut) != "err\n" {
			t.Fatalf("via the watchdog %v: stdout %q, stderr %q", viaWatchdog, out, errOut)
		}
		if fromHere := fields[1] == strconv.Itoa(os.Getpid()); fromHere == viaWatchdog {
			t.Errorf("via the watchdog %v: the program's parent is %s (this process: %d)", viaWatchdog, fields[1], os.Getpid())
		}
		for _, fd := range []int{in[0], outW, errW} {
			if _, err := fcntlGetfd(fd); err != syscall.EBADF {
				t.Errorf("via the watchdog %v: descriptor %d still open", viaWatchdog, fd)
			}
		}
	}
}

func fcntlGetfd(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

// The watchdog's input is read, and prose's lines to it written, with
// raw system calls that wait in the poller: a write to a full pipe waits
// for room rather than failing or writing part, and a read sees every
// byte and then the pipe's end.
func TestRawPipeReadAndWrite(t *testing.T) {
	// the watchdog's input is a blocking pipe, as os/exec hands it over;
	// prose's end is an os.Pipe's
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r := os.NewFile(uintptr(p[0]), "input")
	if err := syscall.SetNonblock(p[1], true); err != nil {
		t.Fatal(err)
	}
	w := os.NewFile(uintptr(p[1]), "prose's end")
	want := bytes.Repeat([]byte("- 12345\n"), 128<<10) // 1 MiB, far over a pipe buffer
	done := make(chan error, 1)
	go func() {
		err := writeRaw(w, want)
		w.Close()
		done <- err
	}()
	got, err := io.ReadAll(pollable(r))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, want %d", len(got), len(want))
	}
}
