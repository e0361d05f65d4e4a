package testenv

import (
	"bytes"
	"errors"
	"syscall"
	"testing"
	"unsafe"
)

// WatchOpens counts the opens of the files directly in dir from now on,
// as the kernel reports them (inotify): every open by any code of this
// process, whatever package makes it, as strace would show. The function
// it returns gives the opens so far of each file, by name. It skips the
// test where inotify is not available.
func WatchOpens(t testing.TB, dir string) func() map[string]int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	// Closes are watched too, so that two opens of one file in a row are
	// two events (inotify merges an event identical to the last queued).
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN|syscall.IN_CLOSE_NOWRITE|syscall.IN_CLOSE_WRITE); err != nil {
		t.Skipf("inotify: %v", err)
	}
	counts := map[string]int{}
	return func() map[string]int {
		t.Helper()
		buf := make([]byte, 64*1024)
		for {
			n, err := syscall.Read(fd, buf)
			if errors.Is(err, syscall.EAGAIN) || n == 0 {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				end := off + syscall.SizeofInotifyEvent + int(ev.Len)
				name := string(bytes.TrimRight(buf[off+syscall.SizeofInotifyEvent:end], "\x00"))
				if ev.Mask&syscall.IN_OPEN != 0 && name != "" {
					counts[name]++
				}
				off = end
			}
		}
		out := make(map[string]int, len(counts))
		for k, v := range counts {
			out[k] = v
		}
		return out
	}
}
