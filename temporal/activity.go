package temporal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	tsdk "go.temporal.io/sdk/temporal"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/runhost"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
)

// Activities are what a worker does for the workflow: run one attempt of a
// program or model slot, and ask the model judge. Their zero value runs
// programs; the hooks add models.
type Activities struct {
	// LLM builds the service of an `llm` binding (nil: llm slots fail
	// with an error saying this worker has no model client).
	LLM func(b *bind.Slot) (service.Service, error)
	// Render builds the service that renders a function or
	// responsibility with a model (nil: such calls fail with an error
	// saying this worker has no model client).
	Render func(b *bind.Render) (service.Service, error)
	// ModelJudgeFor builds the model judge for a spec (nil: conditions
	// that need a model fail, naming the condition).
	ModelJudgeFor func(sp *spec.Spec) delegation.Judge
	// Grace is the SIGTERM-to-SIGKILL delay of programs (0: the default).
	Grace time.Duration
	// Env is added to the environment of every program (KEY=VALUE).
	Env []string

	mu    sync.Mutex
	specs map[string]*spec.Spec
}

// MaxValueBytes bounds a call's value as JSON: it must fit in one
// Temporal payload (2 MB by default on a server), with room to spare.
const MaxValueBytes = 2_000_000

// heartbeatWhile records a heartbeat every interval until stop is closed,
// so that the server notices a lost worker and the activity learns of a
// cancellation.
func heartbeatWhile(ctx context.Context, stop <-chan struct{}) {
	t := time.NewTicker(heartbeat)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			activity.RecordHeartbeat(ctx)
		}
	}
}

// Call runs one attempt of a call: registered as CallActivityName.
func (a *Activities) Call(ctx context.Context, in CallInput) (CallOutput, error) {
	stop := make(chan struct{})
	defer close(stop)
	go heartbeatWhile(ctx, stop)

	svc, err := a.service(&in)
	if err != nil {
		return CallOutput{}, err
	}
	req := &delegation.CallRequest{Path: in.ID, Service: svc, Attempt: in.Attempt, Timeout: in.Timeout}
	if len(in.Args) > 0 {
		v, err := delegation.FromJSON(in.Args)
		if err != nil {
			return CallOutput{}, tsdk.NewNonRetryableApplicationError("decoding arguments: "+err.Error(), errNoService, nil)
		}
		if o, ok := v.(*delegation.Object); ok {
			req.Args = o
		}
	}
	cctx := ctx
	if in.Timeout > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, in.Timeout)
		defer cancel()
	}
	v, err := svc.Call(cctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return CallOutput{}, ctx.Err() // cancelled by the workflow
		}
		if in.Timeout > 0 && errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return CallOutput{}, tsdk.NewNonRetryableApplicationError(err.Error(), errTimeout, nil)
		}
		return CallOutput{}, tsdk.NewNonRetryableApplicationError(err.Error(), errCall, nil)
	}
	raw, err := delegation.ToJSON(v)
	if err != nil {
		return CallOutput{}, tsdk.NewNonRetryableApplicationError("encoding the result: "+err.Error(), errCall, nil)
	}
	if len(raw) > MaxValueBytes {
		return CallOutput{}, tsdk.NewNonRetryableApplicationError(
			fmt.Sprintf("its value is %d bytes as JSON; a call's value travels through Temporal, which carries at most %d", len(raw), MaxValueBytes), errCall, nil)
	}
	return CallOutput{Value: raw}, nil
}

// service builds the service of an attempt on this worker.
func (a *Activities) service(in *CallInput) (service.Service, error) {
	switch in.Kind {
	case bind.KindExec:
		if err := findProgram(in.Dir, in.Arg); err != nil {
			return nil, tsdk.NewNonRetryableApplicationError(
				fmt.Sprintf("%s=exec:%s: %v on this worker; install it on every worker of the task queue", in.Name, in.Arg, err),
				errMissingProgram, nil)
		}
		return &service.Exec{Name: in.Name, Command: in.Arg, Dir: in.Dir, Grace: a.Grace, Env: a.Env}, nil
	case bind.KindLLM:
		if a.LLM == nil {
			return nil, tsdk.NewNonRetryableApplicationError(
				fmt.Sprintf("%s=llm%s: this worker has no model client (start it with a model configured)", in.Name, colon(in.Arg)), errNoService, nil)
		}
		b := &bind.Slot{Name: in.Name, Path: in.Name, Kind: bind.KindLLM, Arg: in.Arg, Value: "llm" + colon(in.Arg)}
		if in.Spec != nil {
			sp, err := a.spec(in.Spec)
			if err != nil {
				return nil, tsdk.NewNonRetryableApplicationError(err.Error(), errNoService, nil)
			}
			b.Spec = sp
			for _, s := range sp.Slots {
				if s.Name == in.Slot {
					b.Slot = s
				}
			}
		}
		svc, err := a.LLM(b)
		if err != nil {
			return nil, tsdk.NewNonRetryableApplicationError(fmt.Sprintf("%s: %v", in.Name, err), errNoService, nil)
		}
		return svc, nil
	case kindRender:
		return a.render(in)
	}
	return nil, tsdk.NewNonRetryableApplicationError(fmt.Sprintf("%s: this worker cannot run a %q binding", in.Name, in.Kind), errNoService, nil)
}

// render builds the service that renders the node of a call with this
// worker's model; the node comes from the spec that travelled with the
// run.
func (a *Activities) render(in *CallInput) (service.Service, error) {
	fail := func(format string, args ...any) error {
		return tsdk.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), errNoService, nil)
	}
	if in.Spec == nil {
		return nil, fail("%s: the call carries no spec to render", in.Name)
	}
	sp, err := a.spec(in.Spec)
	if err != nil {
		return nil, fail("%v", err)
	}
	node := sp
	if in.Node != "" {
		if node = sp.Node(in.Node); node == nil {
			return nil, fail("%s: %s has no node %s", in.Name, in.Spec.Name, in.Node)
		}
	}
	if a.Render == nil {
		return nil, fail("%s: rendering %s needs a model, and this worker has no model client (start it with a model configured)", in.Name, node.Name)
	}
	svc, err := a.Render(&bind.Render{Node: node, Name: in.Name, Model: in.Arg})
	if errors.Is(err, bind.ErrNoModel) {
		return nil, fail("%s: rendering %s needs a model, and this worker has none configured (%s)", in.Name, node.Name, runhost.DefaultModelHint)
	}
	if err != nil {
		return nil, fail("%s: %v", in.Name, err)
	}
	return svc, nil
}

func colon(s string) string {
	if s == "" {
		return ""
	}
	return ":" + s
}

// spec parses a spec source once per worker.
func (a *Activities) spec(src *Source) (*spec.Spec, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if sp, ok := a.specs[src.Digest]; ok {
		return sp, nil
	}
	if digestOf(src.Text) != src.Digest {
		return nil, fmt.Errorf("%s: its text does not match its digest", src.Name)
	}
	sp, _ := spec.Parse(src.Name, []byte(src.Text))
	if a.specs == nil {
		a.specs = map[string]*spec.Spec{}
	}
	a.specs[src.Digest] = sp
	return sp, nil
}

// Judge asks the model judge: registered as JudgeActivityName.
func (a *Activities) Judge(ctx context.Context, in JudgeInput) (delegation.Verdict, error) {
	stop := make(chan struct{})
	defer close(stop)
	go heartbeatWhile(ctx, stop)

	j, err := in.judgment()
	if err != nil {
		return delegation.Verdict{}, tsdk.NewNonRetryableApplicationError(err.Error(), errJudge, nil)
	}
	var judge delegation.Judge
	if a.ModelJudgeFor != nil && in.Spec != nil {
		sp, err := a.spec(in.Spec)
		if err != nil {
			return delegation.Verdict{}, tsdk.NewNonRetryableApplicationError(err.Error(), errJudge, nil)
		}
		judge = a.ModelJudgeFor(sp)
	}
	if judge == nil {
		return delegation.Verdict{}, tsdk.NewNonRetryableApplicationError(
			fmt.Sprintf("%s: cannot decide %q: this worker has no model configured (%s)", j.Pos, in.Cond.Text, runhost.DefaultModelHint), errJudge, nil)
	}
	v, err := judge.Judge(ctx, j)
	if err != nil {
		if ctx.Err() != nil {
			return v, ctx.Err()
		}
		var c interface{ Catchable() bool }
		typ := errJudge
		if errors.As(err, &c) && c.Catchable() {
			typ = errJudgeCatchable
		}
		return v, tsdk.NewNonRetryableApplicationError(err.Error(), typ, nil)
	}
	return v, nil
}

// shellWords are commands /bin/sh runs itself: never looked up in PATH.
var shellWords = map[string]bool{
	".": true, ":": true, "cd": true, "echo": true, "eval": true, "exec": true, "exit": true,
	"export": true, "false": true, "printf": true, "read": true, "set": true, "test": true,
	"true": true, "[": true, "trap": true, "unset": true, "wait": true, "command": true,
	// reserved words: a compound command
	"if": true, "while": true, "until": true, "for": true, "case": true, "!": true,
}

// findProgram reports a program the command starts with that this worker
// does not have: a path that does not exist, or a name not in PATH.
// Commands that start with shell syntax are left to the shell.
func findProgram(dir, command string) error {
	fields := strings.Fields(command)
	if len(fields) == 0 {
		return nil
	}
	word := fields[0]
	if strings.ContainsAny(word, "'\"\\$`;|&<>(){}*?[]=~#!") || shellWords[word] {
		return nil
	}
	if strings.Contains(word, "/") {
		path := word
		if !filepath.IsAbs(path) && dir != "" {
			path = filepath.Join(dir, path)
		}
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("program %s not found", word)
		}
		return nil
	}
	if _, err := exec.LookPath(word); err != nil {
		return fmt.Errorf("program %s not found in PATH", word)
	}
	return nil
}
