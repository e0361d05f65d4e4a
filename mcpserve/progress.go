package mcpserve

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/redact"
)

// progress sends one notifications/progress per finished call attempt of
// a run to the session that started it. The token is the one the run (or
// resume) request carried; a request without one gets the run id as
// token, so a host can still tell the runs apart. Notifications go out in
// order from one goroutine; when the session does not keep up, the
// oldest are kept and later ones dropped (the journal has every call,
// progress is only news), so a slow host never slows the run.
type progress struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any
	red     *redact.Redactor // an error's message may quote a secret

	mu    sync.Mutex
	n     int
	queue chan *mcp.ProgressNotificationParams
	wg    sync.WaitGroup
}

// queued is how many notifications wait for the session at most.
const queued = 256

func newProgress(ctx context.Context, req *mcp.CallToolRequest, red *redact.Redactor) *progress {
	p := &progress{ctx: ctx, session: req.Session, token: req.Params.GetProgressToken(), red: red,
		queue: make(chan *mcp.ProgressNotificationParams, queued)}
	p.wg.Add(1)
	go p.send()
	return p
}

// setRun names the run, the token of a request that brought none.
func (p *progress) setRun(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.token == nil {
		p.token = id
	}
}

func (p *progress) send() {
	defer p.wg.Done()
	for n := range p.queue {
		if p.session == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		_ = p.session.NotifyProgress(ctx, n) // a session gone away takes no news
		cancel()
	}
}

// close sends what is queued and stops.
func (p *progress) close() {
	close(p.queue)
	p.wg.Wait()
}

// Record implements delegation.Recorder.
func (p *progress) Record(ev *delegation.Event) {
	if ev.Kind != delegation.EventCallEnd {
		return
	}
	outcome := "ok"
	if ev.Err != nil {
		outcome = "failed: " + p.red.String(ev.Err.Error())
	}
	p.mu.Lock()
	p.n++
	n := &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: float64(p.n),
		Message: fmt.Sprintf("call %s %s attempt %d: %s", ev.Path.Key(), ev.Slot, ev.Attempt, outcome)}
	p.mu.Unlock()
	if n.ProgressToken == nil {
		return // the run's id is not known yet: no call has ended before it
	}
	select {
	case p.queue <- n:
	default:
	}
}

// notify sends msg as the run's next progress notification (a call that
// waits for the host).
func (p *progress) notify(msg string) {
	p.mu.Lock()
	p.n++
	n := &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: float64(p.n), Message: msg}
	p.mu.Unlock()
	if n.ProgressToken == nil {
		return
	}
	select {
	case p.queue <- n:
	default:
	}
}
