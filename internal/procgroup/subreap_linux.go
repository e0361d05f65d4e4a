package procgroup

import (
	"syscall"
	"unsafe"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

// pAll and wNoWait are P_ALL and WNOWAIT of waitid(2).
const (
	pAll    = 0
	wNoWait = 0x1000000
)

// Subreap makes this process the reaper of its orphaned descendants: a
// process a program started that outlives the program (a daemon that
// left its process group) is handed to this process instead of init, so
// EndOrphans can end it. It reports whether the system allows it.
func Subreap() bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	return errno == 0
}

// hasChildren reports whether this process has a child, running or
// exited and not yet reaped: waitid(P_ALL, WNOHANG|WNOWAIT) fails with
// ECHILD when it has none, and reaps nothing when it has some. It
// reports true when it cannot tell, so that the caller looks.
func hasChildren() bool {
	for {
		var info [128]byte // siginfo_t
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|syscall.WSTOPPED|syscall.WCONTINUED|syscall.WNOHANG|wNoWait, 0, 0)
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.ECHILD:
			return false
		}
		return true
	}
}
