//go:build linux && !386

package procgroup

import (
	"syscall"
	"unsafe"
)

// recvRaw receives a message that is there, without waiting (see
// readStat); EAGAIN when there is none.
func recvRaw(fd uintptr, buf, oob []byte) (n, oobn, flags int, errno syscall.Errno) {
	iov := syscall.Iovec{Base: &buf[0]}
	iov.SetLen(len(buf))
	msg := syscall.Msghdr{Iov: &iov, Iovlen: 1, Control: &oob[0]}
	msg.SetControllen(len(oob))
	r, _, errno := syscall.RawSyscall(syscall.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&msg)),
		syscall.MSG_CMSG_CLOEXEC|syscall.MSG_DONTWAIT)
	return int(r), int(msg.Controllen), int(msg.Flags), errno
}

// sendRaw sends a message without waiting for room (see readStat):
// EAGAIN when there is none.
func sendRaw(fd uintptr, m []byte) syscall.Errno {
	_, _, errno := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)),
		syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL, 0, 0)
	return errno
}

// sendRightsRaw sends a message with the control message oob (the
// descriptors of syscall.UnixRights) without waiting for room: EAGAIN
// when there is none.
func sendRightsRaw(fd uintptr, m, oob []byte) syscall.Errno {
	iov := syscall.Iovec{Base: &m[0]}
	iov.SetLen(len(m))
	msg := syscall.Msghdr{Iov: &iov, Iovlen: 1}
	if len(oob) > 0 {
		msg.Control = &oob[0]
		msg.SetControllen(len(oob))
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_SENDMSG, fd, uintptr(unsafe.Pointer(&msg)),
		syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL)
	return errno
}
