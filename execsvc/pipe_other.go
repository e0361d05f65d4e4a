//go:build !linux

package execsvc

import (
	"os"
	"syscall"
)

// rawPipe makes a pipe whose ends are closed on exec, as descriptors,
// both non-blocking when nonblock is set (see pipe_linux.go).
func rawPipe(nonblock bool) (r, w int, err error) {
	var p [2]int
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(p[:]); err != nil {
		return -1, -1, os.NewSyscallError("pipe", err)
	}
	syscall.CloseOnExec(p[0])
	syscall.CloseOnExec(p[1])
	if nonblock {
		for _, fd := range p {
			if err := syscall.SetNonblock(fd, true); err != nil {
				syscall.Close(p[0])
				syscall.Close(p[1])
				return -1, -1, os.NewSyscallError("fcntl", err)
			}
		}
	}
	return p[0], p[1], nil
}

// setBlocking makes a descriptor of rawPipe's blocking.
func setBlocking(fd int) error {
	if err := syscall.SetNonblock(fd, false); err != nil {
		return os.NewSyscallError("fcntl", err)
	}
	return nil
}

// reactor is the shared reader of reactor_linux.go, which other systems
// do without: each pipe is read by a goroutine of its own.
type reactor struct{}

func sharedReactor() *reactor                   { return nil }
func (*reactor) add(*outReader, int) bool       { return false }
func (*reactor) poll(*outReader) (uint64, bool) { return 0, true }
func (*reactor) abandon(*outReader, error)      {}

// closeFD closes a descriptor of rawPipe's; writeFD writes to one.
func closeFD(fd int) { syscall.Close(fd) }

func writeFD(fd int, b []byte) (int, error) { return syscall.Write(fd, b) }
