package execsvc

import (
	"os"
	"syscall"
	"unsafe"
)

// rawPipe makes a pipe whose ends are closed on exec, as descriptors,
// both non-blocking when nonblock is set.
//
// The pipes of a call are made here rather than with os.Pipe because
// the program's end of each is handed over and closed at once: as an
// os.File made by os.Pipe it would be added to the poller, set
// non-blocking, set blocking again when handed over, and removed from
// the poller when closed, five system calls a pipe for nothing. Both
// ends are made non-blocking at once, and the program's end is made
// blocking again by one fcntl (setBlocking): where each end was made
// blocking, prose's end took two more (fcntl's get and set).
func rawPipe(nonblock bool) (r, w int, err error) {
	var p [2]int
	flags := syscall.O_CLOEXEC
	if nonblock {
		flags |= syscall.O_NONBLOCK
	}
	if err := syscall.Pipe2(p[:], flags); err != nil {
		return -1, -1, os.NewSyscallError("pipe2", err)
	}
	return p[0], p[1], nil
}

// setBlocking makes a descriptor of rawPipe's blocking: its status flags
// are O_NONBLOCK alone (a pipe has no other), so one fcntl sets them.
func setBlocking(fd int) error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFL, 0); errno != 0 {
		return os.NewSyscallError("fcntl", errno)
	}
	return nil
}

// closeFD closes a descriptor of rawPipe's; writeFD writes to one that
// is non-blocking. Both are raw system calls: they never wait, and a
// raw call does not wake the runtime's monitor (see reactor_linux.go).
func closeFD(fd int) {
	syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0)
}

func writeFD(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
