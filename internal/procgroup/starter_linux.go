package procgroup

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// The starter.
//
// Decided: on Linux the watchdog also starts the programs Launch is
// given, and prose does not fork at all for them. Every program a
// process starts copies that process's descriptor table and then closes
// the copies marked close-on-exec, one by one; prose holds two pipes
// and a process descriptor for each program that runs, so with 512
// programs running each start copied and closed about 1,500 descriptors,
// the largest cost of a wide parallel loop. The watchdog holds a handful.
//
// Prose makes the program's pipes as before and sends their child ends
// with the request (SCM_RIGHTS over a SOCK_SEQPACKET socket pair whose
// other end is the watchdog's descriptor 3); the watchdog forks and
// executes the program with them (Setpgid, the parent-death signal),
// lists its group before it reads the next request, and answers with
// the pid and the group's identity. It is the programs' parent (their
// $PPID is the watchdog's, where it was prose's): it reaps each (one
// SIGCHLD handler, not a thread per waiting program) and sends the wait
// status. It is also the reaper of their orphans (Subreap): a daemon
// that left its group is its child, and it ends it at the end of its
// input, with the groups still listed, also when prose was killed.
//
// The watchdog's work is a few system calls a program, and the Go
// runtime's own work around them was much of its cost, so: nothing it
// waits for holds its one processor while it waits (its socket and its
// input are non-blocking and wait in the runtime's poller, SIGCHLD in
// package signal's goroutine), which the runtime's monitor would have
// to take back before anything else ran; and what never waits
// (receiving a request that is there, its answers, the reaping, closing,
// /proc) is a raw system call, which does not wake that monitor. The package links no networking
// (package net), so that the small program prose can be the watchdog
// (watchdog.go).
//
// No gate is needed on this path: the watchdog lists the group as soon
// as the fork returns, before it reads anything else, so the end of its
// input (prose gone) cannot come before the listing. Only the watchdog's
// own death in that instant would leave a process the program started
// unlisted; its leader then dies by the parent-death signal, and what it
// started goes to prose as their reaper, or to init. A program started
// by the watchdog is the command itself, /bin/sh -c COMMAND, as without
// a watchdog, with prose's signal dispositions (see watch).

// When the watchdog dies while programs run, their calls fail with
// errStarterGone and prose ends their groups itself; later programs
// start from prose (Start), without a watchdog, as when it could not be
// started. A request the socket cannot carry in one message (an
// environment or command line over maxRequest) starts from prose too.

const (
	// maxRequest bounds one start request: it must fit one datagram of
	// the socket's default buffer (212,992 bytes on Linux).
	maxRequest = 128 << 10
	// message kinds
	msgStart   = 'S' // prose: start a program (the request)
	msgStarted = 'P' // watchdog: started, with pid and identity
	msgFailed  = 'E' // watchdog: could not start, with the errno
	msgExited  = 'X' // watchdog: the program exited, with its wait status
	msgHello   = 'H' // watchdog: its protocol, the first message it sends
)

// errStarterGone is the error of a program whose watchdog died.
var errStarterGone = errors.New("prose's watchdog, which started the program and waits for it, died: " +
	"the program's group was ended and its exit status is unknown")

// starter is prose's end of the watchdog's starter.
type starter struct {
	conn    *os.File // non-blocking, in the runtime's poller
	raw     syscall.RawConn
	mu      sync.Mutex
	next    uint64
	pending map[uint64]*Program // started or starting, until they exit
	gone    bool
}

// newStarter makes the socket pair: prose's end, and the end the
// watchdog gets as its descriptor 3 (nil, nil when it cannot be made).
func newStarter() (*starter, *os.File) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil
	}
	theirs := os.NewFile(uintptr(fds[1]), "prose-starter")
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		syscall.Close(fds[0])
		theirs.Close()
		return nil, nil
	}
	mine := os.NewFile(uintptr(fds[0]), "prose-starter") // non-blocking: polled
	raw, err := mine.SyscallConn()
	if err != nil {
		mine.Close()
		theirs.Close()
		return nil, nil
	}
	// Ids start at 1: an answer to a request that could not be read
	// (id 0) is nobody's.
	return &starter{conn: mine, raw: raw, next: 1, pending: map[uint64]*Program{}}, theirs
}

// hello reads the watchdog's first message, at most wait, and reports
// whether it speaks protocol. Anything else (another protocol, no
// message, the end of the socket: a program that is no watchdog of this
// prose) is false.
func (s *starter) hello(protocol string, wait time.Duration) bool {
	buf := make([]byte, 256)
	s.conn.SetReadDeadline(time.Now().Add(wait))
	n, err := s.conn.Read(buf)
	s.conn.SetReadDeadline(time.Time{})
	return err == nil && n >= 9 && buf[0] == msgHello && string(buf[9:n]) == protocol
}

// send sends one message with the descriptors fds, with a raw system
// call (see read).
func (s *starter) send(msg []byte, fds []int) error {
	oob := syscall.UnixRights(fds...)
	var errno syscall.Errno
	werr := s.raw.Write(func(fd uintptr) bool {
		errno = sendRightsRaw(fd, msg, oob)
		return errno != syscall.EAGAIN && errno != syscall.EINTR
	})
	if werr != nil {
		return werr
	}
	if errno != 0 {
		return errno
	}
	return nil
}

func (s *starter) close() {
	s.mu.Lock()
	s.gone = true
	s.mu.Unlock()
	s.conn.Close()
}

// start starts cmd through the watchdog. ok is false when it was not
// tried (cmd needs what only os/exec does, or the watchdog is gone): the
// caller starts cmd itself.
func (s *starter) start(cmd *exec.Cmd) (p *Program, ok bool, err error) {
	var files [3]*os.File
	for i, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if files[i], ok = f.(*os.File); !ok || files[i] == nil {
			return nil, false, nil
		}
	}
	var fds [3]int
	for i, f := range files {
		fds[i] = int(f.Fd()) // blocking, as os/exec hands them over
	}
	p, ok, err = s.startFDs(cmd, fds)
	runtime.KeepAlive(files)
	return p, ok, err
}

// startFDs is start with stdin, stdout and stderr given as descriptors,
// which stay the caller's.
func (s *starter) startFDs(cmd *exec.Cmd, fds [3]int) (p *Program, ok bool, err error) {
	if cmd.SysProcAttr != nil || len(cmd.ExtraFiles) > 0 || cmd.Process != nil || cmd.Cancel != nil {
		return nil, false, nil
	}
	for _, e := range cmd.Env {
		if strings.IndexByte(e, 0) >= 0 {
			return nil, false, nil // os/exec's error for it
		}
	}
	// The watchdog runs in the directory prose started in; the program
	// runs where prose's own start would run it, now.
	dir := cmd.Dir
	if !strings.HasPrefix(dir, "/") {
		wd, err := syscall.Getwd()
		if err != nil {
			return nil, false, nil
		}
		if dir != "" {
			wd += "/" + dir
		}
		dir = wd
	}
	msg := encodeStart(dir, cmd.Path, cmd.Args, cmd.Environ())
	if len(msg) > maxRequest {
		return nil, false, nil
	}
	p = &Program{started: make(chan struct{}), done: make(chan struct{}), fromStarter: true}
	s.mu.Lock()
	if s.gone {
		s.mu.Unlock()
		return nil, false, nil
	}
	id := s.next
	s.next++
	s.pending[id] = p
	s.mu.Unlock()
	binary.LittleEndian.PutUint64(msg[1:9], id)
	if err = s.send(msg, fds[:]); err != nil {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
		return nil, false, nil
	}
	<-p.started
	if errno, isErrno := p.startErr.(syscall.Errno); isErrno {
		return nil, true, &os.PathError{Op: "fork/exec", Path: cmd.Path, Err: errno} // as os/exec says it
	} else if p.startErr != nil {
		return nil, true, p.startErr
	}
	return p, true, nil
}

// read delivers the watchdog's answers until its end. It waits in the
// runtime's poller and receives what is there with raw system calls,
// every answer that is there at one wake-up: as the watchdog's own
// loop does (see serve), so that no receive wakes the runtime's monitor.
func (s *starter) read() {
	buf := make([]byte, 4096)
	oob := make([]byte, syscall.CmsgSpace(3*4)) // answers carry none
	s.raw.Read(func(fd uintptr) bool {
		for {
			n, _, _, errno := recvRaw(fd, buf, oob)
			switch {
			case errno == syscall.EAGAIN:
				return false // wait in the poller
			case errno == syscall.EINTR:
				continue
			case errno != 0 || n == 0:
				return true // the watchdog's end
			}
			s.deliver(buf[:n])
		}
	})
	s.fail()
}

func (s *starter) deliver(m []byte) {
	if len(m) < 9 {
		return
	}
	id := binary.LittleEndian.Uint64(m[1:9])
	rest := string(m[9:])
	s.mu.Lock()
	p := s.pending[id]
	if p == nil {
		s.mu.Unlock()
		return
	}
	switch m[0] {
	case msgStarted:
		pidText, ident, _ := strings.Cut(rest, " ")
		pid, _ := strconv.Atoi(pidText)
		p.Pid, p.Group = pid, Group{ID: pid, Ident: ident}
		close(p.started)
	case msgFailed:
		errno, _ := strconv.Atoi(rest)
		p.startErr = syscall.Errno(errno)
		delete(s.pending, id)
		close(p.started)
	case msgExited:
		status, _ := strconv.ParseUint(rest, 10, 32)
		if ws := syscall.WaitStatus(status); !ws.Exited() || ws.ExitStatus() != 0 {
			p.err = &ExitError{Status: ws}
		}
		delete(s.pending, id)
		close(p.done)
	}
	s.mu.Unlock()
}

// fail ends what the watchdog was starting or waiting for when it is
// gone.
func (s *starter) fail() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone = true
	for id, p := range s.pending {
		delete(s.pending, id)
		select {
		case <-p.started:
			if p.Group.Mine() {
				syscall.Kill(-p.Group.ID, syscall.SIGKILL)
			}
			p.err = errStarterGone
			close(p.done)
		default:
			p.startErr = errStarterGone
			close(p.started)
		}
	}
}

// encodeStart is a start request: its kind, 8 bytes for its id, then
// the directory, the program, the arguments and the environment, each
// string a uvarint length and its bytes, each list a uvarint count.
func encodeStart(dir, path string, args, env []string) []byte {
	n := 16 + len(dir) + len(path)
	for _, a := range args {
		n += 4 + len(a)
	}
	for _, e := range env {
		n += 4 + len(e)
	}
	b := make([]byte, 9, n)
	b[0] = msgStart
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	list := func(l []string) {
		b = binary.AppendUvarint(b, uint64(len(l)))
		for _, s := range l {
			str(s)
		}
	}
	str(dir)
	str(path)
	list(args)
	list(env)
	return b
}

// startRequest is a decoded start request.
type startRequest struct {
	id        uint64
	dir, path string
	args, env []string
}

var errBadRequest = errors.New("a start request that cannot be read")

func decodeStart(b []byte) (startRequest, error) {
	var r startRequest
	if len(b) < 9 || b[0] != msgStart {
		return r, errBadRequest
	}
	r.id = binary.LittleEndian.Uint64(b[1:9])
	b = b[9:]
	bad := false
	str := func() string {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			bad = true
			return ""
		}
		s := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return s
	}
	list := func() []string {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)) {
			bad = true
			return nil
		}
		b = b[k:]
		l := make([]string, 0, n)
		for range n {
			l = append(l, str())
		}
		return l
	}
	r.dir, r.path = str(), str()
	r.args, r.env = list(), list()
	if bad || len(b) != 0 {
		return r, errBadRequest
	}
	return r, nil
}

// server is the watchdog's end of the starter.
type server struct {
	w       *watched
	fd      int             // the socket, non-blocking
	raw     syscall.RawConn // the socket in the runtime's poller
	running map[int]uint64  // pid → request id, guarded by w.mu
}

// starterFD is the watchdog's descriptor of its starter socket.
const starterFD = 3

// serveStarts starts the watchdog's starter when prose gave it one, and
// answers prose's protocol (see watchdog.go) on it first: a watchdog
// asked for another protocol answers its own and reports false (it must
// not watch: the prose that started it speaks another language).
func serveStarts(w *watched) bool {
	if os.Getenv(starterEnv) != "1" {
		return true
	}
	// No program it starts may hold it: prose would not see its end.
	syscall.CloseOnExec(starterFD)
	sv := &server{w: w, fd: starterFD, running: map[int]uint64{}}
	if err := syscall.SetNonblock(starterFD, true); err == nil {
		sv.raw, _ = os.NewFile(starterFD, "prose-starter").SyscallConn()
	}
	if sv.raw == nil {
		return false // prose hears no hello, and starts another watchdog
	}
	sv.send(msgHello, 0, watchdogProtocol)
	if os.Getenv(protocolEnv) != watchdogProtocol {
		return false
	}
	Subreap()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGCHLD)
	go sv.reap(sig)
	go sv.serve()
	return true
}

// serve starts the programs prose asks for, until prose's end.
func (sv *server) serve() {
	buf := make([]byte, maxRequest+1)
	oob := make([]byte, syscall.CmsgSpace(3*4))
	for {
		var n, oobn, flags int
		var errno syscall.Errno
		err := sv.raw.Read(func(fd uintptr) bool {
			n, oobn, flags, errno = recvRaw(fd, buf, oob)
			return errno != syscall.EAGAIN && errno != syscall.EINTR
		})
		if err != nil || errno != 0 || n == 0 {
			return // prose is gone: the end of the watchdog's input follows
		}
		fds := rights(oob[:oobn])
		req, err := decodeStart(buf[:n])
		if err == nil && (flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) != 0 || len(fds) != 3) {
			err = errBadRequest
		}
		if err != nil {
			sv.send(msgFailed, req.id, strconv.Itoa(int(syscall.EINVAL)))
		} else {
			sv.start(req, fds)
		}
		for _, fd := range fds {
			syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0)
		}
	}
}

// rights is the descriptors an SCM_RIGHTS message carried (received
// close-on-exec: serve asks for MSG_CMSG_CLOEXEC).
func rights(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for i := range msgs {
		if got, err := syscall.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

// start starts one program and lists its group, under the watchdog's
// lock: the group is listed before the reaper could reap the program,
// and before the end of the input could be acted on.
func (sv *server) start(req startRequest, fds []int) {
	sv.w.mu.Lock()
	defer sv.w.mu.Unlock()
	pid, err := syscall.ForkExec(req.path, req.args, &syscall.ProcAttr{
		Dir:   req.dir,
		Env:   req.env,
		Files: []uintptr{uintptr(fds[0]), uintptr(fds[1]), uintptr(fds[2])},
		Sys:   procAttr(),
	})
	if err != nil {
		errno, ok := err.(syscall.Errno)
		if !ok {
			errno = syscall.EINVAL
		}
		sv.send(msgFailed, req.id, strconv.Itoa(int(errno)))
		return
	}
	g := Of(pid)
	sv.w.groups[pid] = g
	sv.running[pid] = req.id
	sv.send(msgStarted, req.id, strconv.Itoa(pid)+" "+g.Ident)
}

// reap waits for every child the watchdog has, its programs and the
// orphans handed to it, when SIGCHLD says one exited, and tells prose
// the wait status of its programs. The goroutine that waits for the
// signal holds no processor while it waits (a thread blocked in waitid
// would hold the watchdog's one processor until the runtime's monitor
// took it back, at every program's end, and the next request would wait
// for that). It asks waitid which child exited, without reaping it
// (WNOWAIT), then reaps that child by its pid under the watchdog's lock:
// a program is listed (start holds the lock from its fork) before it is
// reaped. Each is one look at the list of children; reaping any child
// (-1) until none is left looked at every child again for each, most of
// the watchdog's work when 512 programs end.
func (sv *server) reap(sig <-chan os.Signal) {
	for range sig {
		for {
			var info [128]byte // siginfo_t; si_pid stays 0 when none exited
			_, _, errno := syscall.RawSyscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info[0])),
				syscall.WEXITED|syscall.WNOHANG|wNoWait, 0, 0)
			pid := int(*(*int32)(unsafe.Pointer(&info[siPidOffset])))
			if errno != 0 || pid <= 0 {
				break
			}
			sv.w.mu.Lock()
			var ws syscall.WaitStatus
			// raw: WNOHANG never waits (see readStat)
			r, _, errno := syscall.RawSyscall6(syscall.SYS_WAIT4, uintptr(pid), uintptr(unsafe.Pointer(&ws)), syscall.WNOHANG, 0, 0, 0)
			if errno == 0 && int(r) == pid {
				if id, ok := sv.running[pid]; ok {
					delete(sv.running, pid)
					sv.send(msgExited, id, strconv.FormatUint(uint64(ws), 10))
				}
			}
			sv.w.mu.Unlock()
		}
	}
}

// siPidOffset is where siginfo_t holds si_pid: after three ints
// (si_signo, si_errno, si_code), at the alignment of a pointer.
const siPidOffset = (12 + unsafe.Sizeof(uintptr(0)) - 1) &^ (unsafe.Sizeof(uintptr(0)) - 1)

// send sends one message to prose. It is raw when the socket has room
// (it does not wait, see readStat), and waits for room otherwise.
func (sv *server) send(kind byte, id uint64, text string) {
	m := make([]byte, 9, 9+len(text))
	m[0] = kind
	binary.LittleEndian.PutUint64(m[1:9], id)
	m = append(m, text...)
	send := func(fd uintptr) bool {
		errno := sendRaw(fd, m)
		return errno != syscall.EAGAIN && errno != syscall.EINTR
	}
	if !send(uintptr(sv.fd)) {
		sv.raw.Write(send)
	}
}

// pollable is f made non-blocking, so that a read waits in the runtime's
// poller rather than in a thread that holds a processor, and read with
// raw system calls (see above); f itself when it cannot be.
func pollable(f *os.File) io.Reader {
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return f
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	rc, err := nf.SyscallConn()
	if err != nil {
		return nf
	}
	return rawReader{rc}
}

// rawReader reads a non-blocking file in the runtime's poller with raw
// system calls.
type rawReader struct{ rc syscall.RawConn }

func (r rawReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n uintptr
	var errno syscall.Errno
	if err := r.rc.Read(func(fd uintptr) bool {
		n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		return errno != syscall.EAGAIN && errno != syscall.EINTR
	}); err != nil {
		return 0, err
	}
	switch {
	case errno != 0:
		return 0, os.NewSyscallError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

// writeRaw writes b whole to f, a non-blocking file in the runtime's
// poller, with raw system calls (see above): it waits in the poller
// only when the pipe is full.
func writeRaw(f *os.File, b []byte) error {
	rc, err := f.SyscallConn()
	if err != nil {
		_, err = f.Write(b)
		return err
	}
	var errno syscall.Errno
	if err := rc.Write(func(fd uintptr) bool {
		for len(b) > 0 {
			var n uintptr
			n, _, errno = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			switch {
			case errno == syscall.EINTR:
				continue
			case errno != 0:
				return errno != syscall.EAGAIN
			}
			b = b[n:]
		}
		return true
	}); err != nil {
		return err
	}
	if errno != 0 {
		return os.NewSyscallError("write", errno)
	}
	return nil
}

// closeRaw closes a descriptor with a raw system call (see above).
func closeRaw(fd int) { syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0) }
