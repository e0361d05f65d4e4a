package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/internal/procgroup"
)

// cliSchema is the arguments of every cli: tool: an argument vector,
// never a shell string, and optional stdin.
var cliSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"args":{"type":"array","items":{"type":"string"},"description":"the arguments after the program's name, one string each (no shell: no quoting, globbing or pipes)"},` +
	`"stdin":{"type":"string","description":"text given to the program on its standard input (none when absent)"}},` +
	`"required":["args"],"additionalProperties":false}`)

// grace is how long a cli: tool stopped at its timeout has between
// SIGTERM and SIGKILL.
const grace = time.Second

// cliTool runs a cli: declaration's program.
type cliTool struct {
	b    *Box
	decl Decl
}

func (t *cliTool) ServiceName() string { return t.decl.Text }

// Call runs the program once with the argv of req's arguments, in the
// run's directory with its environment, in a process group of its own
// that is ended with the call, under the box's timeout and output cap.
// Its value is {"exit_code", "stdout", "stderr"} (plus "truncated" when
// output was cut), redacted; an exit code other than 0 is a result the
// model reads, not an error. An error is a program that could not run or
// was stopped at its timeout.
func (t *cliTool) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	argv, stdin, err := cliArgs(req.Args)
	if err != nil {
		return nil, err
	}
	path, err := t.b.opt.Registry.LookPathOf(t.decl.Name)
	if err != nil {
		return nil, fmt.Errorf("%s: no program %q on PATH", t.decl.Text, t.decl.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, t.b.opt.Timeout)
	defer cancel()
	out := &capped{max: t.b.opt.MaxOutput}
	errOut := &capped{max: t.b.opt.MaxOutput}
	cmd := exec.Command(path, argv...)
	cmd.Dir = t.b.opt.Dir
	cmd.Env = append(os.Environ(), t.b.opt.Env...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.WaitDelay = 2 * time.Second // a pipe held by a process that left the group
	g, err := procgroup.Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("%s: starting %s: %v", t.decl.Text, path, err)
	}
	pid := cmd.Process.Pid
	if req.Spawned != nil {
		req.Spawned(g.ID, g.Ident)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-exited:
	case <-ctx.Done():
		syscall.Kill(-pid, syscall.SIGTERM)
		select {
		case waitErr = <-exited:
		case <-time.After(grace):
			syscall.Kill(-pid, syscall.SIGKILL)
			waitErr = <-exited
		}
	}
	syscall.Kill(-pid, syscall.SIGKILL) // what it left in its group
	procgroup.ReapGroup(pid)
	procgroup.Done(g)
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: stopped at its timeout of %s", t.decl.Text, t.b.opt.Timeout)
		}
		return nil, ctx.Err()
	}
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(waitErr, &exit):
		code = exit.ExitCode()
	case waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay):
		return nil, fmt.Errorf("%s: %v", t.decl.Text, waitErr)
	}
	res := delegation.NewObject()
	res.Set("exit_code", int64(code))
	res.Set("stdout", t.b.redact(out.String()))
	res.Set("stderr", t.b.redact(errOut.String()))
	if out.cut || errOut.cut {
		res.Set("truncated", fmt.Sprintf("output past %d bytes per stream was cut", t.b.opt.MaxOutput))
	}
	return res, nil
}

// cliArgs reads a cli: call's {"args": [...], "stdin": "..."}.
func cliArgs(args *delegation.Object) (argv []string, stdin string, err error) {
	v, _ := args.Get("arguments")
	o, ok := v.(*delegation.Object)
	if !ok {
		return nil, "", errors.New(`the arguments must be a JSON object {"args": ["..."], "stdin": "..."}`)
	}
	a, _ := o.Get("args")
	if a != nil {
		list, ok := a.(*delegation.List)
		if !ok {
			return nil, "", errors.New(`"args" must be a list of strings`)
		}
		for _, e := range list.Elems() {
			s, ok := e.(string)
			if !ok {
				return nil, "", errors.New(`"args" must be a list of strings`)
			}
			argv = append(argv, s)
		}
	}
	if s, ok := o.Get("stdin"); ok && s != nil {
		if stdin, ok = s.(string); !ok {
			return nil, "", errors.New(`"stdin" must be a string`)
		}
	}
	return argv, stdin, nil
}

// capped keeps the first max bytes written to it.
type capped struct {
	max int
	buf []byte
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - len(c.buf); room < len(p) {
		c.buf = append(c.buf, p[:max(room, 0)]...)
		c.cut = true
		return len(p), nil
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

func (c *capped) String() string { return strings.ToValidUTF8(string(c.buf), "\uFFFD") }
