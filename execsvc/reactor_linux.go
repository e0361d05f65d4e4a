package execsvc

import (
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// The reactor.
//
// Decided: on Linux one goroutine reads the output pipes of every
// program that runs, where each pipe had a goroutine of its own (two a
// call). The pipes are in an epoll instance of their own, which is
// itself in the runtime's poller: the goroutine waits there, holding no
// thread, and when it wakes it reads every pipe that has something, with
// raw system calls (a read of a non-blocking pipe never waits, and a raw
// call does not wake the runtime's monitor, sysmon). With 64 programs
// running, the runtime's own work around two goroutines a call (their
// stacks, their wake-ups, the threads woken to run them, each pipe's own
// entry in the poller) cost prose more than reading what the programs
// said.
//
// What drain does with a read deadline, awaitOutputs does with a timer
// in the call's goroutine, and it reads the pipe itself before it
// concludes anything: a pipe is held open only if a whole window passed
// without a byte and the pipe is then still empty and open, however late
// the reactor's goroutine got to run. A program's two pipes are waited
// for one after the other, so a process outside its group that holds
// both open fails the call after two windows, not one.

// reactor is the shared reader.
type reactor struct {
	epfd int
	rc   syscall.RawConn
	mu   sync.Mutex
	// guarded by mu
	next    uint64
	readers map[uint64]*outReader
	buf     []byte // the one read buffer
	broken  bool
}

// maxReads bounds the reads of one pipe at one turn, so that a program
// that writes without pause does not keep the others waiting.
const maxReads = 4

var shared struct {
	once sync.Once
	r    *reactor
}

// sharedReactor is the reactor, started the first time it is asked for
// (nil when it cannot be: each pipe then gets a goroutine of its own).
func sharedReactor() *reactor {
	shared.once.Do(func() {
		if r, f := openReactor(); r != nil {
			shared.r = r
			go r.run(f)
		}
	})
	return shared.r
}

// openReactor makes a reactor and the file of its epoll instance, for
// run (nil when it cannot be made).
func openReactor() (*reactor, *os.File) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, nil
	}
	if err := syscall.SetNonblock(epfd, true); err != nil {
		syscall.Close(epfd)
		return nil, nil
	}
	f := os.NewFile(uintptr(epfd), "prose-outputs")
	// Only a file in the poller takes a deadline: one that is not would
	// make the goroutine wait in a thread of its own.
	if f.SetReadDeadline(time.Time{}) != nil {
		f.Close()
		return nil, nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, nil
	}
	return &reactor{epfd: epfd, rc: rc, next: 1, readers: map[uint64]*outReader{}, buf: make([]byte, 64<<10)}, f
}

// add has the reactor read fd (non-blocking, and the reactor's from now
// on) for o; false when it cannot, and fd is still the caller's.
func (r *reactor) add(o *outReader, fd int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.broken {
		return false
	}
	id := r.next
	r.next++
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN}
	ev.Fd, ev.Pad = int32(uint32(id)), int32(uint32(id>>32))
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_CTL, uintptr(r.epfd), syscall.EPOLL_CTL_ADD, uintptr(fd),
		uintptr(unsafe.Pointer(&ev)), 0, 0); errno != 0 {
		return false
	}
	o.rc, o.fd, o.id = r, fd, id
	r.readers[id] = o
	return true
}

// run reads what the pipes have whenever the epoll instance says some
// have something, until the instance fails (it does not, short of a
// bug: then every reader ends with the error).
func (r *reactor) run(f *os.File) {
	events := make([]syscall.EpollEvent, 64)
	var failed error
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			n, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, fd, uintptr(unsafe.Pointer(&events[0])),
				uintptr(len(events)), 0, 0, 0)
			switch {
			case errno == syscall.EINTR:
				continue
			case errno != 0:
				failed = os.NewSyscallError("epoll_pwait", errno)
				return true
			case n == 0:
				return false // wait in the poller
			}
			r.mu.Lock()
			for _, ev := range events[:n] {
				if o := r.readers[uint64(uint32(ev.Fd))|uint64(uint32(ev.Pad))<<32]; o != nil {
					r.pump(o, maxReads)
				}
			}
			r.mu.Unlock()
			if int(n) < len(events) {
				return false
			}
		}
	})
	if failed == nil {
		failed = err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.broken = true
	for _, o := range r.readers {
		r.end(o, failed)
	}
	f.Close()
}

// pump reads o's pipe until it is empty (at most reads times; 0: no
// bound), or at its end. r.mu is held.
func (r *reactor) pump(o *outReader, reads int) {
	for i := 0; reads == 0 || i < reads; i++ {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(o.fd), uintptr(unsafe.Pointer(&r.buf[0])), uintptr(len(r.buf)))
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			return
		case errno != 0:
			r.end(o, os.NewSyscallError("read", errno))
			return
		case n == 0:
			r.end(o, nil)
			return
		}
		o.got += uint64(n)
		if _, err := o.w.Write(r.buf[:n]); err != nil {
			r.end(o, err)
			return
		}
	}
}

// poll reads what o's pipe holds now, and says how many bytes were read
// from it in all and whether its reading has ended.
func (r *reactor) poll(o *outReader) (got uint64, ended bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o.fd >= 0 && !r.broken {
		r.pump(o, 0)
	}
	return o.got, o.fd < 0
}

// abandon ends the reading of o's pipe with err.
func (r *reactor) abandon(o *outReader, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o.fd >= 0 {
		r.end(o, err)
	}
}

// end closes o's pipe, which takes it out of the epoll instance, and
// ends its reading with err. r.mu is held.
func (r *reactor) end(o *outReader, err error) {
	delete(r.readers, o.id)
	syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(o.fd), 0, 0)
	o.fd = -1
	o.end(err)
}
