package procgroup

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// Program is a program started by Launch, in a process group of its own
// that it leads.
type Program struct {
	Pid   int
	Group Group

	started     chan struct{} // closed once the starter answered (starter only)
	startErr    error
	done        chan struct{} // closed once the program exited and was reaped
	err         error
	fromStarter bool
}

// Exited is closed once the program has exited (and was reaped).
func (p *Program) Exited() <-chan struct{} { return p.done }

// Err is how the program ended, once Exited is closed: nil for exit
// status 0; an *exec.ExitError or an *ExitError (both with a wait
// status) for another status or a signal; another error when its exit
// could not be known.
func (p *Program) Err() error { return p.err }

// Finish is called once the program has exited and its group was
// killed: it reaps what of the group was handed to this process
// (ReapGroup) and tells the watchdog the group has ended (Done).
func (p *Program) Finish() {
	if !p.fromStarter {
		// the watchdog is the reaper of what it started
		ReapGroup(p.Pid)
	}
	Done(p.Group)
}

// Launch starts cmd as Start does (its own process group, the
// parent-death signal, listed with the watchdog before it runs) and
// waits for it: the caller watches Exited instead of calling cmd.Wait.
// Where it can (Linux, stdin, stdout and stderr files, no ExtraFiles or
// SysProcAttr of cmd's own), the watchdog starts the program and is its
// parent (see starter_linux.go); cmd.Process is then nil. Otherwise
// cmd is started here.
func Launch(cmd *exec.Cmd) (*Program, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if st := currentStarter(); st != nil {
		if p, ok, err := st.start(cmd); ok {
			return p, err
		}
	}
	g, err := Start(cmd)
	if err != nil {
		return nil, err
	}
	p := &Program{Pid: cmd.Process.Pid, Group: g, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// LaunchStdio is Launch with the program's stdin, stdout and stderr
// given as descriptors, blocking, as a program expects them (cmd's
// Stdin, Stdout and Stderr are not used), which it closes, whether the program started or not. Where the
// watchdog starts the program, they are handed to it as they are: made
// into files, each would cost prose a system call to make and its
// runtime's work to close.
func LaunchStdio(cmd *exec.Cmd, stdio [3]int) (*Program, error) {
	if cmd.Err == nil {
		if st := currentStarter(); st != nil {
			if p, ok, err := st.startFDs(cmd, stdio); ok {
				for _, fd := range stdio {
					closeRaw(fd)
				}
				return p, err
			}
		}
	}
	files := [3]*os.File{os.NewFile(uintptr(stdio[0]), "|0"), os.NewFile(uintptr(stdio[1]), "|1"), os.NewFile(uintptr(stdio[2]), "|2")}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[1], files[2]
	p, err := Launch(cmd)
	for _, f := range files {
		f.Close()
	}
	return p, err
}

// currentStarter is the watchdog's starter, the watchdog started if it
// is not yet (nil: there is none).
func currentStarter() *starter {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if wd.self == "" || wd.failed {
		return nil
	}
	startWatchdog()
	return wd.starter
}

// ExitError is the exit of a program the watchdog started that did not
// end with status 0, as os/exec's ExitError is for one started here.
type ExitError struct {
	Status syscall.WaitStatus
}

func (e *ExitError) Error() string {
	ws := e.Status
	var s string
	switch {
	case ws.Exited():
		s = "exit status " + strconv.Itoa(ws.ExitStatus())
	case ws.Signaled():
		s = "signal: " + ws.Signal().String()
	default:
		s = fmt.Sprintf("wait status %#x", uint32(ws))
	}
	if ws.CoreDump() {
		s += " (core dumped)"
	}
	return s
}

// WaitStatus is the wait status an error of Program.Err carries, when
// it carries one.
func WaitStatus(err error) (syscall.WaitStatus, bool) {
	switch e := err.(type) {
	case *ExitError:
		return e.Status, true
	case *exec.ExitError:
		ws, ok := e.Sys().(syscall.WaitStatus)
		return ws, ok
	}
	return 0, false
}
