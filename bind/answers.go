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

// checked is a slot's service whose answers are checked against the
// slot's declared fields.
type checked struct {
	service.Service
	slot   string
	fields []shape.Field
}

// Call implements service.Service.
func (c *checked) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	v, err := c.Service.Call(ctx, req)
	if err != nil {
		return v, err
	}
	if err := shape.Check(c.fields, v); err != nil {
		return nil, fmt.Errorf("slot %s, whose ensures declares %s: %v", c.slot, shape.Describe(c.fields), err)
	}
	return v, nil
}

// checkAnswers wraps s so its answers are checked against what sl's
// ensures declares; s is returned as it is when that is nothing.
func checkAnswers(s service.Service, name string, sl *spec.Slot) service.Service {
	if sl == nil || s == nil {
		return s
	}
	fields := shape.Fields(sl.Ensures)
	if fields == nil {
		return s
	}
	return &checked{Service: s, slot: name, fields: fields}
}
