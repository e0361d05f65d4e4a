package execsvc

import (
	"os"
	"syscall"
)

// rawPipe makes a pipe whose ends are closed on exec, as descriptors.
//
// The pipes of a call are made here rather than with os.Pipe because
// the program's end of each is handed over and closed at once: as an
// os.File made by os.Pipe it would be added to the poller, set
// non-blocking, set blocking again when handed over, and removed from
// the poller when closed, five system calls a pipe for nothing. Made
// from a descriptor that is blocking, it never enters the poller; only
// prose's end, which is read with deadlines, does.
func rawPipe() (r, w int, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return -1, -1, os.NewSyscallError("pipe2", err)
	}
	return p[0], p[1], nil
}
