package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/redact"
	"github.com/proselang/prose/run"
)

// Statuses of a run, as result reports them.
const (
	StatusRunning = "running"
	StatusOK      = "ok"
	StatusFailed  = "failed"
	// StatusWaiting is a run with a call waiting for the host to fill it
	// (the pending tool lists it).
	StatusWaiting = "waiting"
)

// job is a run the server started: it ends once, with a result.
type job struct {
	id   string
	done chan struct{}
	res  *run.Result
	err  error
	news *progress // to the requests that watch the run
}

// Outcome is what result and replay return.
type Outcome struct {
	Status string `json:"status" jsonschema:"running, ok, failed, or waiting (a call waits for the host: see pending)"`
	Value  any    `json:"value,omitempty" jsonschema:"the value the run returned, when ok"`
	Error  string `json:"error,omitempty" jsonschema:"why the run failed, as FILE:LINE:COL: message where it has a place"`
	// Pending, when waiting, is what the run waits for: calls of slots
	// bound to host, and gates with their questions.
	Pending []PendingCall `json:"pending,omitempty" jsonschema:"when waiting: the calls and gates waiting, gates with their question (answer them with answer, calls with fill)"`
}

// start runs do in the background and returns the run's id once the run
// is bound and journaled, before any call runs; a run refused before it
// started (an unknown slot, an invalid spec) is the error instead. The
// run's calls are reported as progress to the requests that wait for it
// (progress.go); with watch, req is one from the start, and stop ends
// that (called before req is answered, whatever the error).
func (s *Server) start(ctx context.Context, req *mcp.CallToolRequest, watch bool, do func(context.Context, run.Options) (*run.Result, error)) (id string, stop func(), err error) {
	p := newProgress(redact.ForEnv(s.o.Environ).WithShapes())
	stop = func() {}
	if watch {
		stop = p.watch(ctx, req)
	}
	j := &job{done: make(chan struct{}), news: p}
	started := make(chan string, 1)
	o := s.runOptions()
	o.Started = func(id string) {
		j.id = id
		s.mu.Lock()
		s.jobs[id] = j
		s.mu.Unlock()
		started <- id
	}
	o.Recorders = append(o.Recorders, p)
	o.Elicit = elicitFor(req)
	// j.id is set by Started, before any call runs.
	o.Host = s.hostBinding(func() string { return j.id }, p.notify)
	o.GatePrompt = s.gatePrompt(func() string { return j.id }, p.notify)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		j.res, j.err = do(s.ctx, o)
		close(j.done)
	}()
	select {
	case id := <-started:
		return id, stop, nil
	case <-j.done:
		select {
		case id := <-started:
			return id, stop, nil
		default:
		}
		if j.err == nil {
			j.err = errors.New("the run ended without a journal")
		}
		return "", stop, j.err
	}
}

// outcome is the Outcome of a finished run.
func outcome(res *run.Result, err error) (Outcome, error) {
	if err != nil {
		return Outcome{Status: StatusFailed, Error: err.Error()}, nil
	}
	v, jerr := jsonValue(res.Value)
	if jerr != nil {
		return Outcome{}, jerr
	}
	return Outcome{Status: StatusOK, Value: v}, nil
}

// jsonValue is v as plain JSON data.
func jsonValue(v delegation.Value) (any, error) {
	b, err := delegation.ToJSON(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// wait waits for run id up to d (at most MaxWait) or ctx's end, sending
// the run's progress to req meanwhile. A run this server did not start
// (another server's, the CLI's) is answered from its journal: running
// while it has no final record, else replayed for its value.
func (s *Server) wait(ctx context.Context, req *mcp.CallToolRequest, id string, d time.Duration) (Outcome, error) {
	d = min(max(d, 0), MaxWait)
	s.mu.Lock()
	j := s.jobs[id]
	s.mu.Unlock()
	if j == nil {
		return s.journaled(ctx, id)
	}
	stop := j.news.watch(ctx, req)
	defer stop()
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		// A run whose call waits for the host answers at once: waiting
		// longer would only hold the host that must fill it.
		calls, changed := s.host.pending(id)
		if len(calls) > 0 {
			select {
			case <-j.done:
				return outcome(j.res, j.err)
			default:
			}
			return Outcome{Status: StatusWaiting, Pending: calls}, nil
		}
		select {
		case <-j.done:
			return outcome(j.res, j.err)
		case <-changed:
			continue
		case <-t.C:
		case <-ctx.Done():
		}
		return Outcome{Status: StatusRunning}, nil
	}
}

// journaled is the Outcome of a run known only by its journal.
func (s *Server) journaled(ctx context.Context, id string) (Outcome, error) {
	if err := checkID(id); err != nil {
		return Outcome{}, err
	}
	path := filepath.Join(s.o.RunDir, id, journal.FileName)
	if _, err := os.Stat(path); err != nil {
		return Outcome{}, fmt.Errorf("no run %q in %s (the runs tool lists them)", id, s.o.RunDir)
	}
	switch sum := journal.Summarize(path); sum.Status {
	case journal.StatusRunning:
		return Outcome{Status: StatusRunning}, nil
	case journal.StatusOK:
		return s.replay(ctx, id)
	case journal.StatusWaiting:
		return s.journalWaiting(id, sum.Err), nil
	default:
		msg := sum.Err
		if msg == "" {
			msg = fmt.Sprintf("the run stopped unfinished (%s); the resume tool goes on with it", sum.Status)
		}
		return Outcome{Status: StatusFailed, Error: msg}, nil
	}
}

// replay re-runs id from its journal alone.
func (s *Server) replay(ctx context.Context, id string) (Outcome, error) {
	if err := checkID(id); err != nil {
		return Outcome{}, err
	}
	res, err := run.Replay(ctx, id, s.runOptions())
	var ue *run.UsageError
	if errors.As(err, &ue) {
		return Outcome{}, err
	}
	return outcome(res, err)
}

// checkID refuses a run id that is no name of a directory in the run
// directory.
func checkID(id string) error {
	if id == "" || filepath.Base(id) != id || id == "." || id == ".." {
		return fmt.Errorf("run_id %q: want a run id as run returned it (the runs tool lists them)", id)
	}
	return nil
}
