package bind

import (
	"context"
	"fmt"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/shape"
	"github.com/proselang/prose/spec"
)

// A slot whose ensures declares fields (`{accepted: boolean, notes:
// string}`, read by shape.Fields) has every answer checked where it
// arrives, whatever serves the slot: an answer that is text (a program
// printing a log line before its JSON), lacks a declared field (one whose
// type admits null may be left out) or holds a field of another type is an
// error of that attempt, naming the slot, the field and what came back, so
// the call's retries and on_fail apply. Where the ensures declares no
// fields, nothing is checked. An engine replaying runs begun before this
// check sets Env.UncheckedAnswers.

//
// A slot whose requires declares typed fields the same way ("requires:
// `count` (integer) and `topic` (string)", `{count: integer}`) has the
// arguments of each call checked before it is made: an argument of
// another type is an error of that attempt, naming the argument; an
// argument left out or null is not (lint reports an argument the slot
// requires that a call does not pass). Decided: such an error is not
// retried (delegation.NotRetried): every attempt sends the same
// arguments, so every one would fail the same way. An answer failing the
// ensures is retried as the call's retries say, since a model may answer
// otherwise; its error names the ensures line (file:line:col) beside the
// call's.

// checked is a slot's service whose answers are checked against the
// slot's declared fields, and its arguments against its requires.
type checked struct {
	service.Service
	slot   string
	fields []shape.Field
	args   []shape.Field
	// ensuresAt is where the slot's ensures is written, file:line:col.
	ensuresAt string
}

// Call implements service.Service.
func (c *checked) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	if req != nil && req.Args != nil {
		for _, f := range c.args {
			if x, has := req.Args.Get(f.Name); has && x != nil && !shape.Fits(f.Type, x) {
				return nil, delegation.NotRetried(fmt.Errorf("slot %s, whose requires declares %s: the argument %s is %s, not %s", c.slot, shape.Describe(c.args), f.Name, shape.Show(x), f.Type))
			}
		}
	}
	v, err := c.Service.Call(ctx, req)
	if err != nil {
		return v, err
	}
	if c.fields == nil {
		return v, nil
	}
	if err := shape.Check(c.fields, v); err != nil {
		at := ""
		if c.ensuresAt != "" {
			at = " (" + c.ensuresAt + ")"
		}
		return nil, fmt.Errorf("slot %s, whose ensures%s declares %s: %v", c.slot, at, shape.Describe(c.fields), err)
	}
	return v, nil
}

// checkAnswers wraps s so its answers are checked against what sl's
// ensures declares; s is returned as it is when that is nothing.
func checkAnswers(s service.Service, name string, sp *spec.Spec, sl *spec.Slot) service.Service {
	if sl == nil || s == nil {
		return s
	}
	fields, args := shape.Fields(sl.Ensures), shape.Fields(sl.Requires)
	if fields == nil && args == nil {
		return s
	}
	c := &checked{Service: s, slot: name, fields: fields, args: args}
	if sp != nil && sp.File != nil && sl.EnsuresPos > 0 {
		c.ensuresAt = sp.File.Position(sl.EnsuresPos).String()
	}
	return c
}
