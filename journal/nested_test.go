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
	var host *delegation.Host
	nest := &fakeSvc{name: "nest", fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		return delegation.Run(ctx, inner, map[string]delegation.Value{"leaf": leaf}, host)
	}}
	run := func(r *Run) (delegation.Value, error) {
		host = &delegation.Host{Caller: r.WrapCaller(fakeCaller{}), Runtime: r.WrapRuntime(nil)}
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
			ids[rec.ID] = true
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

func TestScopedID(t *testing.T) {
	ctx := context.Background()
	if got := scopedID(ctx, "L5"); got != "L5" {
		t.Errorf("top level: %q", got)
	}
	c1 := withScope(ctx, "L12/2", 1)
	c2 := withScope(ctx, "L12/2", 2)
	cases := []struct {
		ctx  context.Context
		id   string
		want string
	}{
		{c1, "L5", "L12/2>L5"},
		{c2, "L5", "L12/2#2>L5"},
		{c1, "L12/2>L5", "L12/2>L5"},     // the host prefixed it already
		{c2, "L12/2#2>L5", "L12/2#2>L5"}, // likewise for a second attempt
	}
	for _, c := range cases {
		if got := scopedID(c.ctx, c.id); got != c.want {
			t.Errorf("scopedID(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}
