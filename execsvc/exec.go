// Package execsvc runs programs as services: an `exec:COMMAND` slot
// binding calls a Service, which runs COMMAND once per call attempt under
// `/bin/sh -c` in a process group of its own, feeds it the call's
// arguments on stdin and reads its stdout as the call's value (JSON or
// text). CheckProgram looks at a command's program before any call.
//
// Process groups are supervised with internal/procgroup: a group is
// killed when its program exits or is stopped, and by procgroup's
// watchdog when prose dies by any signal (kill -9 included); each started
// group is told to CallRequest.Spawned, so a journal can
// record it for a resume to end.
package execsvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/procgroup"
)

// Defaults of Service.
const (
	// DefaultMaxOutput caps a program's stdout (DESIGN: 8 MiB).
	DefaultMaxOutput = 8 << 20
	// DefaultGrace is how long a canceled program has between SIGTERM
	// and SIGKILL.
	DefaultGrace = time.Second
	// stderrKeep is how much of stderr's end is kept in memory.
	stderrKeep = 16 << 10
	// stderrLines and stderrBytes bound the stderr tail put in an error.
	stderrLines = 20
	stderrBytes = 1800
	// drainWait is how long a pipe may stay silent, after the program
	// has exited and its process group has been killed, before the
	// reader concludes that a process outside the group holds it open.
	// It bounds silence, not the whole read: output that keeps coming
	// is read to its end however long that takes on a loaded machine.
	drainWait = 2 * time.Second
	// drainMax bounds the whole read after exit: a process outside the
	// group that keeps dribbling output would otherwise keep the call
	// alive. The pipe holds at most what the kernel buffers once the
	// group is dead, so reaching it means such a process.
	drainMax = 30 * time.Second
)

// Service runs a program for each call attempt (`--slot NAME=exec:CMD`).
//
// Contract, decided here and documented for service authors:
//
//   - COMMAND is run by `/bin/sh -c COMMAND`, in its own process group, in
//     Dir (the current directory when empty). The call's data never goes
//     into a command line: the named arguments are written to stdin as one
//     JSON object on one line, ended by a newline (`{}` without arguments),
//     then stdin is closed.
//   - The environment is the parent's plus Env plus PROSE_SLOT (the service
//     name, e.g. "advancer" or "candidates[1]"), PROSE_ATTEMPT (1-based)
//     and PROSE_CALL_ID (the stable call id, e.g. "L58/3").
//   - Exit 0: trimmed stdout is the value, decoded as JSON when it is one
//     JSON document, else kept as text. Empty stdout is an error ("produced
//     no output"): a broken service is caught instead of silently yielding
//     null; a service meaning null prints `null`. Output that is not valid
//     UTF-8 and not JSON is an error too. So is output that looks like
//     JSON but does not parse (it starts with `{` followed by `"` or `}`,
//     or with `[` followed by a JSON value's first character): taking
//     `{"verdict": "accept", comments: []` as text would only move the
//     failure to a later step ("needs a model") that cannot name the
//     service. A JSON value followed by log lines is such output too (logs
//     belong on stderr). Like every failed attempt, it is retried where the call
//     has retries: a service that prints JSON by hand may get it right
//     the next time.
//   - Non-zero exit, or death by a signal: the attempt threw; the error
//     message is the last lines of stderr (at most 20 lines, 1800 bytes:
//     the call's error keeps 2000 bytes of a service's message, from the
//     front, so a longer tail would lose its very end).
//   - stdout larger than MaxOutput: the process group is killed at once and
//     the attempt fails with an "output exceeds" error.
//   - ctx done (the call's timeout, Ctrl-C, a sibling's failure): SIGTERM
//     to the process group, SIGKILL after Grace; the error wraps ctx.Err().
//   - When the program exits, whatever it left running in its process group
//     is killed (and reaped, where prose is the subreaper of its
//     descendants) and stdout is read to its end: the value is the whole
//     output or the call fails, never a part of it. A process that left
//     the group (setsid, a daemon) and still holds stdout open makes the
//     end of the output unknowable: after drainWait without a byte the
//     attempt fails saying so, rather than hang or pass on what it has.
//     stderr held that way is abandoned after the same wait (it only
//     feeds error messages).
type Service struct {
	Name    string // service name (slot path)
	Command string // shell command text, as the user wrote it
	// Argv, when set, is run instead of Command: the program Argv[0]
	// (relative to Dir when it holds a slash, else found on PATH) with
	// the arguments Argv[1:], as they are, with no shell between: data
	// put in an argument stays data.
	Argv      []string
	Dir       string   // working directory; "" for the current one
	Env       []string // extra KEY=VALUE entries
	MaxOutput int64    // stdout cap in bytes; 0 means DefaultMaxOutput
	Grace     time.Duration
	// CheckOutput, when set, is given the whole stdout of a program that
	// exited 0, before it is read as the call's value: its error fails the
	// attempt ("the output of NAME: ..."). A caller that refuses what
	// reading loses (a world model's render refuses a lone surrogate
	// escape, which encoding/json reads as U+FFFD) sets it.
	CheckOutput func(out []byte) error
}

// ServiceName implements delegation.Service.
func (s *Service) ServiceName() string { return s.Name }

// errOutputTooLarge reports a stdout cap overrun.
var errOutputTooLarge = errors.New("output too large")

// Call implements Service: it runs the program once.
func (s *Service) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	input := []byte("{}\n")
	if req.Args != nil {
		raw, err := delegation.ToJSON(req.Args)
		if errors.Is(err, delegation.ErrTooLarge) {
			// The evaluator has held the arguments to the run's own size
			// ceiling, which --max-value-bytes may set above the default.
			raw, err = delegation.EncodeJSON(ctx, req.Args, delegation.EncodeOptions{MaxBytes: math.MaxInt64})
		}
		if err != nil {
			return nil, fmt.Errorf("encoding arguments: %v", err)
		}
		// One line, newline-terminated: `read -r line` in a shell service
		// fails on a last line without one.
		input = append(raw, '\n')
	}
	p, err := s.start(req, input)
	if err != nil {
		return nil, err
	}
	waitErr, stop := p.wait(ctx, s.grace())
	out, readErr := p.finish()
	if stop == nil && p.overflowed() {
		stop = errOutputTooLarge // it overflowed, then exited before we saw it
	}
	if stop == nil && waitErr == nil && readErr != nil {
		return nil, s.readError(readErr)
	}
	return s.result(req, out, p.stderr.String(), waitErr, stop)
}

// Output runs the program once, as Call does (its process group, Grace,
// MaxOutput, the environment), with input on stdin, and returns its
// stdout as it is: for a caller that reads it its own way (a connector
// reads one JSON event a line). A non-zero exit, a stop by ctx or output
// over MaxOutput is an error, as for Call.
func (s *Service) Output(ctx context.Context, input []byte) ([]byte, error) {
	p, err := s.start(&delegation.CallRequest{Attempt: 1}, input)
	if err != nil {
		return nil, err
	}
	waitErr, stop := p.wait(ctx, s.grace())
	out, readErr := p.finish()
	if stop == nil && p.overflowed() {
		stop = errOutputTooLarge
	}
	switch {
	case errors.Is(stop, errOutputTooLarge):
		return nil, fmt.Errorf("output exceeds the %s limit; the program was killed", diag.ByteSize(s.maxOutput()))
	case stop != nil:
		return nil, &stoppedError{"canceled; the program was stopped", stop}
	case waitErr != nil:
		return nil, s.exitError(waitErr, p.stderr.String())
	case readErr != nil:
		return nil, s.readError(readErr)
	}
	return out, nil
}

func (s *Service) grace() time.Duration {
	if s.Grace > 0 {
		return s.Grace
	}
	return DefaultGrace
}

func (s *Service) maxOutput() int64 {
	if s.MaxOutput > 0 {
		return s.MaxOutput
	}
	return DefaultMaxOutput
}

// proc is one running program.
type proc struct {
	prog     *procgroup.Program
	inW      *os.File // the rest of stdin's writer (nil: stdin written whole)
	out      *outReader
	errOut   *outReader
	stdout   *capBuffer
	stderr   *tailBuffer
	overflow chan struct{}
}

// feedStdin makes a program's stdin: a pipe holding input. What the
// pipe's buffer takes (64 KiB on Linux) is written before the program
// starts, so an ordinary call needs no writer goroutine; the rest, when
// any, is for the caller to write to w (nil when all of it was written)
// while the program runs.
func feedStdin(input []byte) (r int, w *os.File, rest []byte, err error) {
	rfd, wfd, err := rawPipe(true)
	if err != nil {
		return -1, nil, nil, err
	}
	// One non-blocking pass: a full pipe is left to the writer.
	n := 0
	for n < len(input) {
		m, err := writeFD(wfd, input[n:])
		if err != nil || m <= 0 {
			break
		}
		n += m
	}
	// The program's end blocks, as a program expects of its stdin.
	if err := setBlocking(rfd); err != nil {
		syscall.Close(rfd)
		syscall.Close(wfd)
		return -1, nil, nil, err
	}
	if n == len(input) {
		closeFD(wfd)
		return rfd, nil, nil, nil
	}
	return rfd, os.NewFile(uintptr(wfd), "|1"), input[n:], nil
}

// outPipe makes a pipe a program writes to: prose's end, a non-blocking
// descriptor for readOutput, and the program's end (blocking).
func outPipe() (mine, theirs int, err error) {
	r, w, err := rawPipe(true)
	if err != nil {
		return -1, -1, err
	}
	if err := setBlocking(w); err != nil {
		syscall.Close(r)
		syscall.Close(w)
		return -1, -1, err
	}
	return r, w, nil
}

// pipes makes the stdout and stderr pipes of a program.
func pipes() (outR, outW, errR, errW int, err error) {
	if outR, outW, err = outPipe(); err != nil {
		return
	}
	if errR, errW, err = outPipe(); err != nil {
		syscall.Close(outR)
		syscall.Close(outW)
	}
	return
}

func (s *Service) start(req *delegation.CallRequest, input []byte) (*proc, error) {
	inR, inW, rest, err := feedStdin(input)
	if err != nil {
		return nil, err
	}
	outR, outW, errR, errW, err := pipes()
	if err != nil {
		syscall.Close(inR)
		if inW != nil {
			inW.Close()
		}
		return nil, err
	}
	cmd := exec.Command("/bin/sh", "-c", s.Command)
	if len(s.Argv) > 0 {
		cmd = exec.Command(s.Argv[0], s.Argv[1:]...)
		if strings.Contains(s.Argv[0], "/") && !filepath.IsAbs(s.Argv[0]) && s.Dir != "" {
			cmd.Path = filepath.Join(s.Dir, s.Argv[0])
		}
	}
	cmd.Dir = s.Dir
	cmd.WaitDelay = s.grace()
	cmd.Env = append(append(os.Environ(), s.Env...),
		"PROSE_SLOT="+s.Name,
		"PROSE_ATTEMPT="+strconv.Itoa(req.Attempt),
		"PROSE_CALL_ID="+req.Path.Key())
	// LaunchStdio closes the program's ends.
	prog, err := procgroup.LaunchStdio(cmd, [3]int{inR, outW, errW})
	if err != nil {
		if inW != nil {
			inW.Close()
		}
		syscall.Close(outR)
		syscall.Close(errR)
		return nil, fmt.Errorf("starting %q: %v", s.Command, err)
	}
	p := &proc{
		prog: prog, inW: inW,
		stdout:   &capBuffer{max: s.maxOutput()},
		stderr:   &tailBuffer{keep: stderrKeep},
		overflow: make(chan struct{}),
	}
	if req.Spawned != nil {
		req.Spawned(prog.Group.ID, prog.Group.Ident)
	}
	if inW != nil {
		// A program that exits without reading it all ends the write
		// with EPIPE; finish closes inW for one that leaves it unread.
		go func() { inW.Write(rest); inW.Close() }()
	}
	p.out = readOutput(outR, p.stdout, p.overflow)
	p.errOut = readOutput(errR, p.stderr, nil)
	return p, nil
}

// outReader reads prose's end of one of a program's output pipes into
// w until the pipe's end: on Linux in the one goroutine all pipes share
// (reactor_linux.go), elsewhere, or where that cannot be had, in a
// goroutine of its own (drain).
type outReader struct {
	w        io.Writer
	overflow chan struct{} // closed when w refused output as too large (nil: not told)
	done     chan struct{} // closed once reading ended
	err      error         // how it ended (nil: at the pipe's end); set before done closes
	f        *os.File      // the pipe, when a goroutine of its own reads it
	rc       *reactor      // the shared reader, when it reads the pipe
	fd       int           // the pipe, for rc
	id       uint64        // the pipe's key in rc
	got      uint64        // bytes read, guarded by rc.mu
}

// readOutput starts reading fd, a non-blocking pipe that is the
// reader's from now on, into w.
func readOutput(fd int, w io.Writer, overflow chan struct{}) *outReader {
	o := &outReader{w: w, overflow: overflow, done: make(chan struct{})}
	if rc := sharedReactor(); rc != nil && rc.add(o, fd) {
		return o
	}
	o.f = os.NewFile(uintptr(fd), "|0") // non-blocking: in the poller
	go func() { o.end(drain(o.f, w)) }()
	return o
}

// end records how reading ended and says so. The pipe is closed by then
// where the reactor read it.
func (o *outReader) end(err error) {
	o.err = err
	if o.overflow != nil && errors.Is(err, errOutputTooLarge) {
		close(o.overflow)
	}
	close(o.done)
}

// awaitOutputs reads the pipes of a program that has exited, whose group
// was killed, to their ends, as drain says: a pipe that stays open and
// silent for drainWait, or that is still read drainMax after this began,
// ends in errPipeHeld.
func awaitOutputs(rs ...*outReader) {
	for _, o := range rs {
		if o.f != nil {
			// A deadline already passed wakes a read waiting on the pipe:
			// drain then reads on in windows of its own.
			o.f.SetReadDeadline(time.Now())
		}
	}
	start := time.Now()
	var t *time.Timer
	for _, o := range rs {
		if o.f != nil {
			<-o.done
			o.f.Close()
			continue
		}
		for {
			seen, ended := o.rc.poll(o)
			if ended {
				break
			}
			if t == nil {
				t = time.NewTimer(drainWait)
				defer t.Stop()
			} else {
				t.Reset(drainWait)
			}
			select {
			case <-o.done:
			case <-t.C:
				// The pipe is read here as well, so that a reader scheduled
				// late is never taken for silence: only a window without a
				// byte that ends with the pipe still empty and open is.
				if got, ended := o.rc.poll(o); !ended && (got == seen || time.Since(start) > drainMax) {
					o.rc.abandon(o, errPipeHeld)
				}
			}
		}
	}
}

// readBufs holds drain's read buffers: two per call, 64 KiB each, were
// most of what a call allocated, and most of prose's garbage collection
// in a run of many exec calls.
//
// A read first gets a small buffer, and the large one only once a read
// filled the small one: most programs say a few bytes, and with 512
// calls running, 64 MiB of buffers waiting for them made the heap, and
// so each garbage collection's work and the collections' count, grow
// with the width of the loop.
var (
	readBufs      = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}
	smallReadBufs = sync.Pool{New: func() any { b := make([]byte, 2<<10); return &b }}
)

// errPipeHeld ends the reading of a pipe that stays open, silent, after
// the program exited and its process group was killed.
var errPipeHeld = errors.New("pipe held open after exit")

// drain copies f to w until f's end, for a pipe that has a goroutine of
// its own (where the reactor of reactor_linux.go is not had;
// awaitOutputs keeps the same rule for the reactor's pipes). While the
// program runs, reads wait as long as it takes. awaitOutputs sets a
// deadline in the past once the program has exited, which wakes a
// waiting read; from then on each read gets a fresh drainWait, so output
// still buffered in the pipe is read whole however loaded the machine
// is, and only a pipe that stays silent for a whole window ends in
// errPipeHeld. A window is opened by this goroutine right before its
// read, so a late-scheduled reader never mistakes a deadline that passed
// while it waited for its turn for silence.
func drain(f *os.File, w io.Writer) error {
	pool := &smallReadBufs
	bp := pool.Get().(*[]byte)
	defer func() { pool.Put(bp) }()
	buf := *bp
	draining, gotSome := false, false
	var since time.Time
	for {
		n, err := f.Read(buf)
		if n > 0 {
			gotSome = true
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
			if n == len(buf) && pool == &smallReadBufs {
				pool.Put(bp)
				pool = &readBufs
				bp = pool.Get().(*[]byte)
				buf = *bp
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, os.ErrDeadlineExceeded):
			if draining && (!gotSome || time.Since(since) > drainMax) {
				return errPipeHeld
			}
			if !draining {
				since = time.Now()
			}
			draining, gotSome = true, false
			f.SetReadDeadline(time.Now().Add(drainWait))
		default:
			return err
		}
	}
}

func (p *proc) overflowed() bool {
	select {
	case <-p.overflow:
		return true
	default:
		return false
	}
}

// wait waits for the program to exit, stopping it when ctx is done or its
// output overflows. stop is the reason it was stopped (nil when it exited on
// its own).
func (p *proc) wait(ctx context.Context, grace time.Duration) (waitErr, stop error) {
	select {
	case <-p.prog.Exited():
		return p.prog.Err(), nil
	case <-ctx.Done():
		return p.terminate(grace), ctx.Err()
	case <-p.overflow:
		p.signal(syscall.SIGKILL)
		<-p.prog.Exited()
		return p.prog.Err(), errOutputTooLarge
	}
}

// terminate sends SIGTERM to the process group, then SIGKILL after grace.
// The shell may die of SIGTERM at once while the program it started is
// still cleaning up: the grace period lasts until the whole group is gone,
// not just the shell.
func (p *proc) terminate(grace time.Duration) error {
	p.signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.prog.Exited():
		p.waitGroup(t.C)
		return p.prog.Err()
	case <-t.C:
		p.signal(syscall.SIGKILL)
		<-p.prog.Exited()
		return p.prog.Err()
	}
}

// waitGroup waits until no process is left in the program's process group,
// or until deadline fires.
func (p *proc) waitGroup(deadline <-chan time.Time) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for procgroup.Alive(p.prog.Pid) {
		select {
		case <-deadline:
			return
		case <-tick.C:
		}
	}
}

func (p *proc) signal(sig syscall.Signal) {
	syscall.Kill(-p.prog.Pid, sig)
}

// finish kills what the program left in its process group, reads the
// pipes to their end (see drain) and returns stdout, with the error that
// ended its reading (nil when it was read whole).
func (p *proc) finish() ([]byte, error) {
	p.signal(syscall.SIGKILL)
	awaitOutputs(p.out, p.errOut)
	p.prog.Finish()
	if p.inW != nil {
		p.inW.Close() // unblocks a writer the program left waiting
	}
	return p.stdout.Bytes(), p.out.err
}

// readError is the error of an attempt whose stdout could not be read to
// its end.
func (s *Service) readError(err error) error {
	if errors.Is(err, errPipeHeld) {
		return fmt.Errorf("%s exited, but a process it started still holds its stdout open, outside its process group "+
			"(setsid, nohup, a daemon), so the end of its output cannot be known: make the program wait for its children, "+
			"or start them with their output redirected (cmd >/dev/null 2>&1 &)", s.Name)
	}
	return fmt.Errorf("reading the output of %s: %v", s.Name, err)
}

// result turns what the program did into the call's value or error.
func (s *Service) result(req *delegation.CallRequest, out []byte, stderr string, waitErr, stop error) (delegation.Value, error) {
	switch {
	case errors.Is(stop, errOutputTooLarge):
		return nil, fmt.Errorf("output exceeds the %s limit; the program was killed", diag.ByteSize(s.maxOutput()))
	case stop != nil:
		what := "canceled"
		if errors.Is(stop, context.DeadlineExceeded) {
			what = "timed out"
			if req.Timeout > 0 {
				what += " after " + req.Timeout.String()
			}
		}
		return nil, &stoppedError{what + "; the program was stopped", stop}
	case waitErr != nil:
		return nil, s.exitError(waitErr, stderr)
	}
	if s.CheckOutput != nil {
		if err := s.CheckOutput(out); err != nil {
			return nil, fmt.Errorf("the output of %s: %v", s.Name, err)
		}
	}
	v, err := decodeOutput(s.Name, out)
	if err != nil {
		if tail := stderrTail(stderr); tail != "" {
			err = fmt.Errorf("%v; stderr: %s", err, tail)
		}
	}
	return v, err
}

// stoppedError says a program was stopped and why, in words; it wraps the
// context's error for errors.Is without repeating its text
// ("context deadline exceeded") to the user.
type stoppedError struct {
	msg string
	err error
}

func (e *stoppedError) Error() string { return e.msg }
func (e *stoppedError) Unwrap() error { return e.err }

func (s *Service) exitError(waitErr error, stderr string) error {
	status := waitErr.Error()
	if ws, ok := procgroup.WaitStatus(waitErr); ok {
		if ws.Signaled() {
			status = "killed by signal " + ws.Signal().String()
		} else {
			status = "exit status " + strconv.Itoa(ws.ExitStatus()) + exitHint(ws.ExitStatus())
		}
	}
	tail := stderrTail(stderr)
	if tail == "" {
		return fmt.Errorf("%s (no stderr output)", status)
	}
	return fmt.Errorf("%s: %s", status, tail)
}

// exitHint explains the shell's own exit statuses.
func exitHint(code int) string {
	switch code {
	case 126:
		return " (command not executable)"
	case 127:
		return " (command not found)"
	}
	return ""
}

// decodeOutput is the value of a program's stdout: JSON when it parses,
// else the trimmed text. A leading UTF-8 byte order mark is dropped, and
// JSON colored with terminal escape codes is read as JSON.
func decodeOutput(name string, out []byte) (delegation.Value, error) {
	// A byte order mark (PowerShell, some Windows editors) is not content.
	text := bytes.TrimSpace(bytes.TrimPrefix(out, []byte("\xef\xbb\xbf")))
	if len(text) == 0 {
		return nil, fmt.Errorf("the program produced no output (exit status 0); a service that means null must print null")
	}
	if v, ok := smallJSON(text); ok {
		return v, nil
	}
	v, err := delegation.FromJSON(text)
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, delegation.ErrTooDeep):
		// It is JSON, just too deep to use: passing it on as text would
		// hide the problem from every later step.
		return nil, fmt.Errorf("the program's output: %w", err)
	}
	if bytes.IndexByte(text, 0x1b) >= 0 {
		// Colored JSON (jq -C, a forced color mode): raw escape bytes are
		// never valid JSON, so removing them changes nothing else.
		if v, err := delegation.FromJSON(ansiSeq.ReplaceAll(text, nil)); err == nil {
			return v, nil
		}
	}
	if looksLikeJSON(text) {
		return nil, fmt.Errorf("the output of %s looks like JSON but does not parse: %s", name, jsonProblem(text, err))
	}
	if !utf8.Valid(text) {
		return nil, fmt.Errorf("the program's output is neither JSON nor UTF-8 text (%d bytes)", len(text))
	}
	if i := bytes.IndexByte(text, 0); i >= 0 {
		// Valid UTF-8, so "not UTF-8" would mislead: say what is wrong.
		return nil, fmt.Errorf("the program's output is binary, not JSON or text: a NUL byte at offset %d of %d bytes", i, len(text))
	}
	if at := trailingJSON(text); at > 0 {
		return nil, fmt.Errorf("the output of %s is text followed by JSON (%q, then the JSON from line %d): print log lines to stderr (>&2) and the answer alone on stdout",
			name, clipLine(text[:at]), bytes.Count(text[:at], []byte("\n"))+1)
	}
	return string(text), nil
}

// trailingJSON is the offset of a line, after the first, from which the
// rest of text is one JSON object or array (a progress line printed
// before the answer: `fetching...` then `{"summary": ...}`), or 0.
// Decided: such an output is a failed attempt, as JSON followed by log
// lines is: taken as text it would be the value of a one-output node,
// log line and all, with exit 0.
func trailingJSON(text []byte) int {
	for i := bytes.IndexByte(text, '\n'); i >= 0 && i+1 < len(text); {
		at := i + 1
		if rest := bytes.TrimLeft(text[at:], " \t\r"); len(rest) > 0 && (rest[0] == '{' || rest[0] == '[') {
			if _, err := delegation.FromJSON(rest); err == nil {
				return at
			}
		}
		next := bytes.IndexByte(text[at:], '\n')
		if next < 0 {
			break
		}
		i = at + next
	}
	return 0
}

// clipLine is the first line of text, cut to 60 bytes.
func clipLine(text []byte) string {
	if i := bytes.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	s := strings.TrimSpace(string(text))
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// smallJSON reads the outputs most programs print, an integer that fits
// 64 bits, true, false, null or a string without escapes, as
// delegation.FromJSON does, without a JSON decoder (whose buffers were
// most of a short output's reading); ok is false for anything else.
func smallJSON(text []byte) (v delegation.Value, ok bool) {
	switch string(text) {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	}
	if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
		body := text[1 : len(text)-1]
		for _, c := range body {
			if c < 0x20 || c == '"' || c == '\\' {
				return nil, false
			}
		}
		if !utf8.Valid(body) {
			return nil, false
		}
		return string(body), true
	}
	digits := text
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	// at most 18 digits: always within int64, and FromJSON's int64
	if len(digits) == 0 || len(digits) > 18 || (digits[0] == '0' && len(digits) > 1) {
		return nil, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return nil, false
		}
	}
	i, err := strconv.ParseInt(string(text), 10, 64)
	if err != nil {
		return nil, false
	}
	return i, true
}

// stderrTail keeps the last lines of stderr, bounded in lines and bytes.
func stderrTail(s string) string {
	s = strings.TrimRight(cleanText(s), " \t\r\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > stderrLines {
		lines = lines[len(lines)-stderrLines:]
	}
	out := strings.Join(lines, "\n")
	if len(out) > stderrBytes {
		out = out[len(out)-stderrBytes:]
		for !utf8.ValidString(out) && len(out) > 0 {
			out = out[1:]
		}
		out = "..." + out
	}
	return strings.ToValidUTF8(out, "?")
}

// capBuffer accumulates up to max bytes and fails past that.
type capBuffer struct {
	max int64
	buf bytes.Buffer
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if int64(c.buf.Len()+len(p)) > c.max {
		return 0, errOutputTooLarge
	}
	return c.buf.Write(p)
}

func (c *capBuffer) Bytes() []byte { return c.buf.Bytes() }

// tailBuffer keeps the last keep bytes written to it (safe to read only
// after the writer is done).
type tailBuffer struct {
	keep int
	buf  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.keep {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.keep:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if len(t.buf) > t.keep {
		return string(t.buf[len(t.buf)-t.keep:])
	}
	return string(t.buf)
}

// looksLikeJSON reports whether text was meant as a JSON object or array:
// `{` followed by `"` or `}`, or `[` followed by what a JSON value starts
// with (or `]`). Text such as "[INFO] done" or "{name} is ready" is not.
func looksLikeJSON(text []byte) bool {
	if len(text) < 2 || (text[0] != '{' && text[0] != '[') {
		return false
	}
	rest := bytes.TrimLeft(text[1:], " \t\r\n")
	if len(rest) == 0 {
		return true
	}
	c := rest[0]
	if text[0] == '{' {
		return c == '"' || c == '}'
	}
	return strings.IndexByte(`{["-0123456789]`, c) >= 0 ||
		bytes.HasPrefix(rest, []byte("true")) || bytes.HasPrefix(rest, []byte("false")) || bytes.HasPrefix(rest, []byte("null"))
}

// jsonProblem says what is wrong with text as JSON, and where (line and
// column of the output) when the decoder knows.
func jsonProblem(text []byte, decodeErr error) string {
	var v any
	err := json.Unmarshal(text, &v)
	var syn *json.SyntaxError
	var num *json.UnmarshalTypeError
	switch {
	case errors.As(err, &num) && strings.HasPrefix(num.Value, "number"):
		return fmt.Sprintf("%v: a number too large for a JSON value (at most about 1.8e308); it is taken as neither JSON nor text", err)
	case err == nil && decodeErr != nil:
		// JSON to encoding/json, refused by the value reader (a key
		// twice in one object)
		return strings.TrimPrefix(decodeErr.Error(), "invalid JSON: ") + "; it is taken as neither JSON nor text"
	case err == nil:
		return "its numbers or strings cannot be read as values; it is taken as neither JSON nor text"
	case errors.As(err, &syn) && syn.Offset > 0 && int(syn.Offset) <= len(text) && syn.Error() != "unexpected end of JSON input":
		before := text[:syn.Offset-1]
		line := bytes.Count(before, []byte("\n")) + 1
		col := len(before) - bytes.LastIndexByte(before, '\n')
		hint := ""
		if strings.Contains(syn.Error(), "after top-level value") {
			hint = ": a JSON value followed by more output (write logs to stderr)"
		}
		return fmt.Sprintf("%v (line %d, column %d)%s; it is taken as neither JSON nor text", syn, line, col, hint)
	}
	return fmt.Sprintf("%v (it ends before the JSON value does: is it cut short?); it is taken as neither JSON nor text", err)
}
