package procgroup

import (
	"os"
	"strconv"
	"sync"
	"syscall"
	"unsafe"
)

// atFDCWD is AT_FDCWD of openat(2).
const atFDCWD = ^uintptr(99) // -100

// readStat reads /proc/PID/stat with three system calls into a buffer
// of its own: it is read for every program started (Of) and for every
// process of a scan (each), where os.ReadFile's stat, poller and
// allocations were most of the cost.
//
// The calls are raw (the scheduler is not told): none of them waits, and
// each told one let the runtime's monitor hand the goroutine's P to
// another thread when it took a little long, a thread woken for nothing.
//
// The path is opened relative to /proc, opened once (a walk of one
// component fewer a read).
func readStat(pid int) (stat, bool) {
	var buf [1024]byte
	var name [40]byte
	b := name[:0]
	dir := procDir()
	if dir == atFDCWD {
		b = append(b, "/proc/"...)
	}
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, "/stat\x00"...)
	fd, _, errno := syscall.RawSyscall6(syscall.SYS_OPENAT, dir, uintptr(unsafe.Pointer(&b[0])), syscall.O_RDONLY|syscall.O_CLOEXEC, 0, 0, 0)
	if errno != 0 {
		return stat{}, false
	}
	r, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	syscall.RawSyscall(syscall.SYS_CLOSE, fd, 0, 0)
	n := int(r)
	if errno != 0 || n <= 0 || n == len(buf) {
		// A line longer than any the kernel writes: read it whole.
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return stat{}, false
		}
		return parseStat(raw)
	}
	return parseStat(buf[:n])
}

// procDir is a descriptor of /proc, opened once a process; AT_FDCWD
// with the whole path when it cannot be opened.
var procDir = sync.OnceValue(func() uintptr {
	fd, err := syscall.Open("/proc", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return atFDCWD
	}
	return uintptr(fd)
})
