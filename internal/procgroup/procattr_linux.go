package procgroup

import "syscall"

// procAttr puts a program in a process group of its own and has the
// kernel kill its leader when prose dies: the first line, for a prose
// killed before the watchdog heard of the group.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
