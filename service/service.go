// Package service is what a slot is bound to and how a call reaches it:
// the Service interface every binding builds, the Caller that dispatches
// each call attempt to its request's Service, and the plain services (a
// program run per call, Exec; a Go function, Func; a list slot's
// services, List).
package service

import (
	"context"
	"fmt"

	"github.com/proselang/prose/delegation"
)

// Service is a callable slot binding: a program, a model acting in the
// slot's role, a nested spec, or a Go function.
type Service interface {
	delegation.Service
	// Call performs one attempt. An error means the attempt threw (the
	// evaluator may retry it); when ctx is done the service must stop
	// promptly and return an error wrapping ctx.Err().
	Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error)
}

// Caller is the delegation.Caller that dispatches each attempt to the
// request's Service. Wrappers (a journal, a recorder) can wrap it.
type Caller struct{}

// Call implements delegation.Caller.
func (Caller) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	s, ok := req.Service.(Service)
	if !ok {
		name := "<nil>"
		if req.Service != nil {
			name = req.Service.ServiceName()
		}
		return nil, fmt.Errorf("%s cannot be called: it is not bound to a service", name)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.Call(ctx, req)
}

// Func is a Service backed by a Go function.
type Func struct {
	Name string
	Fn   func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error)
}

// ServiceName implements delegation.Service.
func (f *Func) ServiceName() string { return f.Name }

// Call implements Service.
func (f *Func) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	return f.Fn(ctx, req)
}

// List is the value of a list slot: its services in order.
func List(services ...Service) *delegation.List {
	elems := make([]delegation.Value, len(services))
	for i, s := range services {
		elems[i] = s
	}
	return delegation.NewList(elems...)
}
