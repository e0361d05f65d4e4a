package service

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

type nameOnly string

func (n nameOnly) ServiceName() string { return string(n) }

func TestCallerDispatch(t *testing.T) {
	var got *delegation.CallRequest
	svc := &Func{Name: "worker", Fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		got = req
		return "done", nil
	}}
	req := &delegation.CallRequest{Path: delegation.MustParsePath("L3"), Service: svc, Attempt: 2}
	if v, err := (Caller{}).Call(context.Background(), req); err != nil || v != "done" || got != req {
		t.Errorf("v=%v err=%v", v, err)
	}
	_, err := (Caller{}).Call(context.Background(), &delegation.CallRequest{Service: nameOnly("ghost")})
	if err == nil || !strings.Contains(err.Error(), "ghost cannot be called") {
		t.Errorf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Caller{}).Call(ctx, req); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled context must not start the service: %v", err)
	}
}
