package mcpserve

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/redact"
)

// progress is the news of one run: one notifications/progress per
// finished call attempt, and one when a call starts waiting for the host.
//
// Decided, after the protocol ("progress notifications reference a token
// provided in an active request" and "MUST stop after completion"): news
// goes only to the requests that watch the run while they are active (a
// result that waits for it, or a run or resume called with wait_seconds),
// each under the progress token that request carried, in its context (so
// streamable HTTP sends it on that request's stream). A request without a
// token gets none; news while no request watches is dropped (the journal
// has every call; progress is only news). A watcher's notifications are
// all sent before its request is answered. Progress counts the run's news
// from its start, so it increases for every token. When a session does
// not keep up, later notifications are dropped, so a slow host never slows
// the run.
type progress struct {
	red *redact.Redactor // an error's message may quote a secret

	mu       sync.Mutex
	n        int
	watchers map[*mcp.CallToolRequest]*watcher
}

// watcher is one active request that takes a run's news.
type watcher struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any
	queue   chan *mcp.ProgressNotificationParams
	done    chan struct{}
	refs    int // watch calls not yet stopped (under progress.mu)
}

// queued is how many notifications wait for one request at most.
const queued = 256

func newProgress(red *redact.Redactor) *progress {
	return &progress{red: red, watchers: map[*mcp.CallToolRequest]*watcher{}}
}

// watch sends the run's news to req while it is active, under req's
// progress token; the returned stop, called before req is answered,
// sends what is queued and ends it. A request watches once however often
// it calls watch (a run call watches from before its run starts, then
// waits); the last stop ends it. A request without a token, or without a
// session, watches nothing.
func (p *progress) watch(ctx context.Context, req *mcp.CallToolRequest) (stop func()) {
	if req == nil || req.Session == nil || req.Params == nil || req.Params.GetProgressToken() == nil {
		return func() {}
	}
	p.mu.Lock()
	w := p.watchers[req]
	if w == nil {
		w = &watcher{ctx: ctx, session: req.Session, token: req.Params.GetProgressToken(),
			queue: make(chan *mcp.ProgressNotificationParams, queued), done: make(chan struct{})}
		go w.send()
		p.watchers[req] = w
	}
	w.refs++
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		w.refs--
		last := w.refs == 0
		if last {
			delete(p.watchers, req)
		}
		p.mu.Unlock()
		if last {
			close(w.queue)
			<-w.done
		}
	}
}

func (w *watcher) send() {
	defer close(w.done)
	for n := range w.queue {
		if w.ctx.Err() != nil {
			continue // the request was cancelled: it takes no news
		}
		_ = w.session.NotifyProgress(w.ctx, n) // a session gone away takes no news
	}
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
	p.notify(fmt.Sprintf("call %s %s attempt %d: %s", ev.Path.Key(), ev.Slot, ev.Attempt, outcome))
}

// notify sends msg as the run's next notification to each request that
// watches the run.
func (p *progress) notify(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	for _, w := range p.watchers {
		n := &mcp.ProgressNotificationParams{ProgressToken: w.token, Progress: float64(p.n), Message: msg}
		select {
		case w.queue <- n:
		default:
		}
	}
}
