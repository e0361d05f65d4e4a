package patterns

import (
	"context"
	"time"

	"github.com/proselang/prose/delegation"
)

// prefixHost returns a copy of h whose caller, judge, recorder and
// runtime see every id with prefix in front: the hooks of a nested run.
func prefixHost(h *delegation.Host, prefix string) *delegation.Host {
	c := *h
	if c.Caller != nil {
		c.Caller = prefixCaller{next: c.Caller, prefix: prefix}
	}
	if c.Judge != nil {
		c.Judge = prefixJudge{next: c.Judge, prefix: prefix}
	}
	if c.Recorder != nil {
		c.Recorder = prefixRecorder{next: c.Recorder, prefix: prefix}
	}
	rt := c.Runtime
	if rt == nil {
		rt = delegation.DefaultRuntime()
	}
	c.Runtime = prefixRuntime{Runtime: rt, prefix: prefix}
	return &c
}

type prefixCaller struct {
	next   delegation.Caller
	prefix string
}

func (p prefixCaller) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	r := *req
	r.ID = p.prefix + req.ID
	return p.next.Call(ctx, &r)
}

type prefixJudge struct {
	next   delegation.Judge
	prefix string
}

func (p prefixJudge) Judge(ctx context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	c := *j
	c.ID = p.prefix + j.ID
	return p.next.Judge(ctx, &c)
}

type prefixRecorder struct {
	next   delegation.Recorder
	prefix string
}

func (p prefixRecorder) Record(ev *delegation.Event) {
	e := *ev
	if e.ID != "" {
		e.ID = p.prefix + e.ID
	}
	p.next.Record(&e)
}

// prefixRuntime prefixes the ids of First and Jitter and keeps the inner
// runtime's deadline policy.
type prefixRuntime struct {
	delegation.Runtime
	prefix string
}

func (p prefixRuntime) First(ctx context.Context, id string, n, limit int, fn func(ctx context.Context, i int) (bool, error)) (int, error) {
	return p.Runtime.First(ctx, p.prefix+id, n, limit, fn)
}

func (p prefixRuntime) Jitter(id string) float64 { return p.Runtime.Jitter(p.prefix + id) }

func (p prefixRuntime) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := p.Runtime.(delegation.Deadliner); ok {
		return dl.WithTimeout(ctx, d)
	}
	return context.WithTimeout(ctx, d)
}
