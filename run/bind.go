package run

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/service"
)

// Bindings are a request's slots, config and inputs as text (NAME=TEXT),
// as the command line writes them and the journal keeps them.
type Bindings = bind.Settings

// Assignment is one NAME=TEXT of Bindings.
type Assignment = bind.Assignment

// ModelUsage counts a run's model requests and tokens.
type ModelUsage = llm.Usage

// A Binding is what serves a slot or a callee (Request.Slots): a program
// (Exec), a Go function of this process (Func), a model (Model) or
// another spec (Spec). ParseBinding reads the command line's texts into
// one.
type Binding interface {
	// Text is the binding as the command line writes it and the journal
	// keeps it (a Func is kept by its name).
	Text() string
}

// Exec binds a program, run by /bin/sh -c Command in the request's
// directory: its stdin is the call's arguments as JSON, its stdout the
// value.
type Exec struct{ Command string }

// Model binds a model acting in the slot's role (a function or
// responsibility: rendering its contract). Name "" is the configured
// model.
type Model struct{ Name string }

// Spec binds another spec file (PATH.prose.md, or std/... of the
// library), run as the slot's service.
type Spec struct{ Path string }

// Func binds a Go function of this process. Name identifies it in the
// journal: a resume or replay in another process finds it again in
// Options.Funcs by that name.
type Func struct {
	Name string
	// Fn serves each call: args are the call's arguments as JSON-like Go
	// values (map[string]any, []any, string, float64, bool, nil); the
	// result is converted the same way back (a struct goes through its
	// JSON encoding).
	Fn func(ctx context.Context, args map[string]any) (any, error)
}

// Host binds the agent host connected to prose mcp: it fills the slot's
// calls (Options.Host serves them; package mcpserve sets it).
type Host struct{}

func (b Exec) Text() string { return "exec:" + b.Command }
func (b Spec) Text() string { return b.Path }
func (b Func) Text() string { return "go:" + b.Name }
func (b Host) Text() string { return "host" }
func (b Model) Text() string {
	if b.Name == "" {
		return "llm"
	}
	return "llm:" + b.Name
}

// Slot binds the slot or callee Name (dotted for a nested spec's slot:
// "target.refiner"; given again for each element of a list slot).
type Slot struct {
	Name    string
	Binding Binding
}

// ParseBinding reads a binding as the command line writes it: exec:CMD,
// llm or llm:MODEL, a PATH.prose.md or std/... path. A Go function cannot
// be written as text (go:NAME names one only in a journal).
func ParseBinding(text string) (Binding, error) {
	v := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(v, "go:"):
		return nil, fmt.Errorf("%q: a Go function is bound from a Go program (run.Func), not by text", text)
	case strings.HasPrefix(v, "exec:"):
		cmd := strings.TrimSpace(strings.TrimPrefix(v, "exec:"))
		if cmd == "" {
			return nil, fmt.Errorf("exec: needs a command, as in exec:./advance.sh")
		}
		return Exec{Command: cmd}, nil
	case v == "llm":
		return Model{}, nil
	case v == "host":
		return Host{}, nil
	case strings.HasPrefix(v, "llm:"):
		return Model{Name: strings.TrimSpace(strings.TrimPrefix(v, "llm:"))}, nil
	case strings.HasSuffix(v, ".prose.md") || strings.HasPrefix(v, "std/"):
		return Spec{Path: v}, nil
	}
	return nil, bind.UnknownBinding(text)
}

// typed adds req.Slots to req.Bindings as text, and returns the services
// of its Func bindings and of o.Funcs by name.
func (r Request) typed(o Options) (Request, map[string]service.Service, error) {
	services := map[string]service.Service{}
	for k, s := range o.Services {
		services[k] = s
	}
	add := func(f Func) error {
		if f.Name == "" || f.Fn == nil {
			return &UsageError{fmt.Errorf("a run.Func needs a Name and an Fn")}
		}
		services[f.Name] = funcService(f)
		return nil
	}
	for _, f := range o.Funcs {
		if err := add(f); err != nil {
			return r, nil, err
		}
	}
	if len(r.Slots) > 0 {
		slots := append([]Assignment(nil), r.Bindings.Slots...)
		for _, s := range r.Slots {
			if f, ok := s.Binding.(Func); ok {
				if err := add(f); err != nil {
					return r, nil, err
				}
			}
			if s.Binding == nil {
				return r, nil, &UsageError{fmt.Errorf("slot %s has no binding", s.Name)}
			}
			slots = append(slots, Assignment{Name: s.Name, Value: s.Binding.Text()})
		}
		r.Bindings.Slots, r.Slots = slots, nil
	}
	return r, services, nil
}

// funcService serves a Func.
func funcService(f Func) service.Service {
	return &service.Func{Name: f.Name, Fn: func(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		args := map[string]any{}
		if req.Args != nil {
			raw, err := delegation.ToJSON(req.Args)
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, err
			}
		}
		out, err := f.Fn(ctx, args)
		if err != nil {
			return nil, err
		}
		if v, err := delegation.FromGo(out); err == nil {
			return v, nil
		}
		raw, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("%s: its result cannot be written as JSON: %w", f.Name, err)
		}
		return delegation.FromJSON(raw)
	}}
}

// JSON is the run's value as JSON (null when the run gave none).
func (r *Result) JSON() ([]byte, error) { return delegation.ToJSON(r.Value) }
