package delegation

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// gaterFunc adapts a function to Gater.
type gaterFunc func(req *CallRequest, g *Gate) (Value, error)

func (f gaterFunc) Gate(_ context.Context, req *CallRequest, g *Gate) (Value, error) {
	return f(req, g)
}

// gateCaller dispatches a gate's call to its service, as service.Caller does.
type gateCaller struct{ asked []*CallRequest }

func (c *gateCaller) Call(ctx context.Context, req *CallRequest) (Value, error) {
	c.asked = append(c.asked, req)
	return req.Service.(*Gate).Call(ctx, req)
}

func gateHost(g Gater) (*Host, *gateCaller) {
	c := &gateCaller{}
	return &Host{Caller: c, Judge: fakeJudge(), Runtime: newFakeRuntime(), Gates: g}, c
}

func TestGateAnswerIsItsValue(t *testing.T) {
	choice := jv(t, `{"choice":"ship"}`)
	h, c := gateHost(gaterFunc(func(req *CallRequest, g *Gate) (Value, error) {
		if g.Kind == "ask_user" {
			return "v2", nil
		}
		return choice, nil
	}))
	got := mustRun(t, "let r = ask_user \"Which release?\"\nlet v = gate { summary: r, options: [\"ship\", \"hold\"] }\n  timeout 2h\nreturn { r, v }", nil, h)
	if got != `{"r":"v2","v":{"choice":"ship"}}` {
		t.Fatalf("got %s", got)
	}
	if len(c.asked) != 2 {
		t.Fatalf("asked %d gates, want 2", len(c.asked))
	}
	// each gate is a call of its own path, its question its one argument
	q, _ := c.asked[1].Args.Get("question")
	if js(t, q) != `{"summary":"v2","options":["ship","hold"]}` || c.asked[1].Path.Key() != "L2" || c.asked[0].Path.Key() != "L1" {
		t.Fatalf("gate request: %s %s %s", c.asked[0].Path.Key(), c.asked[1].Path.Key(), js(t, q))
	}
	if g := c.asked[1].Service.(*Gate); g.Timeout.Hours() != 2 {
		t.Fatalf("timeout %s", g.Timeout)
	}
}

func TestGateWaitingIsNotCaught(t *testing.T) {
	h, _ := gateHost(gaterFunc(func(req *CallRequest, g *Gate) (Value, error) {
		return nil, &WaitingError{Path: req.Path, Kind: g.Kind, Question: g.Question}
	}))
	e := runErr(t, "try:\n  let r = ask_user \"Which release?\"\ncatch as e:\n  return \"caught\"\nreturn r", nil, h)
	if e.Kind != KindWaiting || e.Catchable() || Waiting(e) == nil || e.Pos.Line != 2 {
		t.Fatalf("got %s error %v (catchable %v)", e.Kind, e, e.Catchable())
	}
	if !strings.Contains(e.Error(), "ask_user L2 waits for an answer: Which release?") {
		t.Fatalf("message: %v", e)
	}
}

func TestGateTimeoutTakesFallback(t *testing.T) {
	h, _ := gateHost(gaterFunc(func(req *CallRequest, g *Gate) (Value, error) {
		return nil, ErrGateTimeout
	}))
	if got := mustRun(t, "let v = gate { a: 1 }\n  timeout 1h\n  on_fail use \"hold\"\nreturn v", nil, h); got != `"hold"` {
		t.Fatalf("got %s", got)
	}
	// without a fallback: a failed call, which try catches
	got := mustRun(t, "try:\n  let v = gate { a: 1 }\n    timeout 1h\ncatch as e:\n  return e.message\nreturn v", nil, h)
	if !strings.Contains(got, "gate got no answer within 1h0m0s") {
		t.Fatalf("got %s", got)
	}
}

func TestGateErrors(t *testing.T) {
	h, _ := gateHost(nil)
	h.Gates = nil
	e := runErr(t, `let r = ask_user "Which release?"`, nil, h)
	if e.Kind != KindCall || !strings.Contains(e.Error(), "no one to ask") {
		t.Fatalf("no gater: %v", e)
	}
	h.Gates = gaterFunc(func(*CallRequest, *Gate) (Value, error) { return nil, errors.New("unreachable") })
	e = runErr(t, `let r = ask_user { a: 1 }`, nil, h)
	if e.Kind != KindRuntime || !strings.Contains(e.Error(), "test.md:1:18: ask_user asks a string, not object") {
		t.Fatalf("object question: %v", e)
	}
	e = runErr(t, "let r = gate \"x\"\n  timeout 0", nil, h)
	if !strings.Contains(e.Error(), "timeout must be positive") {
		t.Fatalf("zero timeout: %v", e)
	}
}
