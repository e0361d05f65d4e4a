package procgroup

import "syscall"

// recvRaw receives a message that is there, without waiting; EAGAIN
// when there is none. On 386 the socket calls go through socketcall,
// which only package syscall's own functions make.
func recvRaw(fd uintptr, buf, oob []byte) (n, oobn, flags int, errno syscall.Errno) {
	n, oobn, flags, _, err := syscall.Recvmsg(int(fd), buf, oob, syscall.MSG_CMSG_CLOEXEC|syscall.MSG_DONTWAIT)
	if err != nil {
		errno, _ = err.(syscall.Errno)
		if errno == 0 {
			errno = syscall.EINVAL
		}
	}
	return n, oobn, flags, errno
}

// sendRaw sends a message without waiting for room; EAGAIN when there
// is none.
func sendRaw(fd uintptr, m []byte) syscall.Errno {
	if err := syscall.Sendto(int(fd), m, syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL, nil); err != nil {
		errno, _ := err.(syscall.Errno)
		if errno == 0 {
			return syscall.EINVAL
		}
		return errno
	}
	return 0
}

// sendRightsRaw sends a message with the control message oob without
// waiting for room; EAGAIN when there is none.
func sendRightsRaw(fd uintptr, m, oob []byte) syscall.Errno {
	if err := syscall.Sendmsg(int(fd), m, oob, nil, syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL); err != nil {
		errno, _ := err.(syscall.Errno)
		if errno == 0 {
			return syscall.EINVAL
		}
		return errno
	}
	return 0
}
