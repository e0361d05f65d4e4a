package tools

import "syscall"

// procAttr puts a tool's program in a process group of its own (its
// timeout stops all of it) and has the kernel kill it when prose dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
