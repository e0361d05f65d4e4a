package procgroup

import (
	"os"
	"strconv"
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
func readStat(pid int) (stat, bool) {
	var buf [1024]byte
	path, err := syscall.BytePtrFromString("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	fd, _, errno := syscall.RawSyscall6(syscall.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(path)), syscall.O_RDONLY|syscall.O_CLOEXEC, 0, 0, 0)
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
