package execsvc

import "syscall"

// procAttr puts a program in its own process group (so a timeout stops all
// of it) and, on Linux, has the kernel kill it when prose itself dies
// (kill -9 included): a resumed run must not race the killed run's
// programs. The signal reaches the program the shell runs when the shell
// hands over to it (a simple command); children a script starts in the
// background are its own to stop.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
