//go:build !linux

package execsvc

import (
	"os"
	"syscall"
)

// rawPipe makes a pipe whose ends are closed on exec, as descriptors
// (see pipe_linux.go).
func rawPipe() (r, w int, err error) {
	var p [2]int
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(p[:]); err != nil {
		return -1, -1, os.NewSyscallError("pipe", err)
	}
	syscall.CloseOnExec(p[0])
	syscall.CloseOnExec(p[1])
	return p[0], p[1], nil
}
