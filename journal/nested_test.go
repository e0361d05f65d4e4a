package journal

import (
	"context"
	"testing"

	"github.com/proselang/prose/delegation"
)

// A service that runs a nested delegation with the same caller: the inner
// call ids ("L1") must not collide with the outer ones.
func TestNestedRunIdsAreScoped(t *testing.T) {
	base := t.TempDir()
	inner := mustParse(t, "let x = call leaf\n  n: 1\nreturn x\n")
	outer := mustParse(t, "let a = call leaf\n  n: 0\nlet b = call nest\n  n: 0\nreturn [a, b]\n")
	leaf := &fakeSvc{name: "leaf", fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		n, _ := req.Args.Get("n")
		return n, nil
	}}
	nest := &fakeSvc{name: "nest", fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		h := *req.Host
		h.Scope = req.NestedScope()
		return delegation.Run(ctx, inner, map[string]delegation.Value{"leaf": leaf}, &h)
	}}
	run := func(r *Run) (delegation.Value, error) {
		host := &delegation.Host{Caller: r.WrapCaller(fakeCaller{}), Runtime: r.WrapRuntime(nil)}
		v, err := delegation.Run(context.Background(), outer, map[string]delegation.Value{"leaf": leaf, "nest": nest}, host)
		r.Finish(v, err)
		r.Close()
		return v, err
	}
	r, _ := Create(base, newHeader("x"), Options{})
	v, err := run(r)
	if err != nil || toJSON(t, v) != "[0,1]" {
		t.Fatalf("live: %s, %v", toJSON(t, v), err)
	}
	l, _ := ReadFile(r.Path())
	ids := map[string]bool{}
	for _, rec := range l.Records {
		if rec.Type == TypeEnd {
			ids[rec.ID.Key()] = true
		}
	}
	if !ids["L1"] || !ids["L3"] || !ids["L3>L1"] || len(ids) != 3 {
		t.Errorf("journaled ids %v, want L1, L3 and L3>L1", ids)
	}
	rp, _ := Replay(base, r.ID(), Options{})
	if v, err := run(rp); err != nil || toJSON(t, v) != "[0,1]" {
		t.Errorf("replay: %s, %v", toJSON(t, v), err)
	}
}
