package procgroup

import "syscall"

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

// Subreap makes this process the reaper of its orphaned descendants: a
// process a program started that outlives the program (a daemon that
// left its process group) is handed to this process instead of init, so
// EndOrphans can end it. It reports whether the system allows it.
func Subreap() bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	return errno == 0
}
