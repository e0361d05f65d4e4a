package callgraph

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
)

// Arguments of a slot bound to a function.
//
// A function or responsibility bound to a pattern's slot (`--slot
// critic=std/roles/critic.prose.md`, a ### Patterns instance's `critic:
// reviewer`) takes the slot's arguments as its parameters, by name. A
// name that differs (the call passes `brief`, the function declares
// `topic`) would drop the argument and run with the parameter null, a
// plausible wrong answer. So an argument the function does not declare,
// while the call leaves one of its parameters out, and a parameter it
// requires that the call does not pass, are refused
// (spec.Spec.SlotArguments; an extra argument beside parameters all
// filled is context the function does not need):
//
//   - before the run, at the binding, for every `call SLOT` of the
//     pattern's Delegation (the arguments of a call are written out, so
//     they are known), each message at the argument or the call;
//   - at the call, as a usage error (no try and no enclosing pattern takes
//     it for a failed attempt), for a call whose target is not the slot's
//     own name (an element of a list slot, `call delegate` in a loop).

// slotArgProblems checks each `call SLOT` of the Delegation of ps
// against the parameters fn declares; bound is how the binding reads
// in messages ("--slot critic", "pattern instance draft binds critic").
func slotArgProblems(ps *spec.Spec, slot string, fn *spec.Spec, bound string) []string {
	if ps == nil || fn == nil || len(fn.Inputs) == 0 {
		return nil
	}
	b := ps.Body()
	if b == nil || b.Program == nil {
		return nil
	}
	var out []string
	syntax.Walk(b.Program, func(x syntax.Node) bool {
		c, ok := x.(*syntax.CallExpr)
		if !ok {
			return true
		}
		id, ok := c.Target.(*syntax.Ident)
		if !ok || id.Name != slot {
			return true
		}
		keys := make([]string, len(c.Args))
		for i, a := range c.Args {
			keys[i] = a.Key
		}
		for _, p := range argProblems(fn, keys) {
			at := id.NamePos
			if p.arg >= 0 {
				at = c.Args[p.arg].KeyPos
			}
			out = append(out, fmt.Sprintf("%s: call %s: %s (%s)", ps.File.Position(at), slot, p.msg, bound))
		}
		return true
	})
	return out
}

// argProblem is one mismatch between a call's arguments and a function's
// parameters: arg is the index of the argument it is about, -1 for a
// parameter left out.
type argProblem struct {
	arg int
	msg string
}

// argProblems compares the argument names keys with the parameters fn
// declares (spec.Spec.SlotArguments).
func argProblems(fn *spec.Spec, keys []string) []argProblem {
	unknown, leftOut, required := fn.SlotArguments(keys)
	var names []string
	for _, in := range fn.Inputs {
		names = append(names, in.Name)
	}
	var out []argProblem
	for _, k := range unknown {
		out = append(out, argProblem{arg: slices.Index(keys, k), msg: fmt.Sprintf("%s declares no parameter %q%s; its parameters are %s, and the call leaves out %s: rename the argument or the parameter so that they match, or bind a function that takes %q",
			fnLabel(fn), k, suggestion(k, leftOut), strings.Join(names, ", "), strings.Join(leftOut, ", "), k)})
	}
	for _, r := range required {
		out = append(out, argProblem{arg: -1, msg: fmt.Sprintf("%s requires the parameter %q, which the call does not pass (it passes %s): pass %s: VALUE, or bind a function whose parameters are the call's arguments",
			fnLabel(fn), r, passedText(keys), r)})
	}
	return out
}

// fnLabel names fn in a message: its file, or for a ## node of a file
// the node and where it is declared.
func fnLabel(fn *spec.Spec) string {
	if fn.Root() != fn {
		return fmt.Sprintf("%s (%s)", fn.Name, fn.File.Position(fn.Pos))
	}
	return fn.File.Name
}

func passedText(keys []string) string {
	if len(keys) == 0 {
		return "no arguments"
	}
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}

// slotFunc is the service of a slot bound to function fn: it refuses,
// as a usage error, a call whose arguments do not match fn's parameters.
type slotFunc struct {
	service.Service
	fn *spec.Spec
}

// Call implements delegation.Service.
func (s *slotFunc) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	var keys []string
	if req.Args != nil {
		keys = req.Args.Keys()
	}
	if ps := argProblems(s.fn, keys); len(ps) > 0 {
		at := s.fn.Pos
		if len(s.fn.Inputs) > 0 {
			at = s.fn.Inputs[0].Pos
		}
		return nil, &delegation.Error{Pos: s.fn.File.Position(at), Kind: delegation.KindUsage, Msg: ps[0].msg}
	}
	return s.Service.Call(ctx, req)
}

// checkedSlotFunc wraps svc, the service of a slot bound to a function or
// responsibility n, in the check of its calls' arguments.
func checkedSlotFunc(svc service.Service, n *spec.Spec) service.Service {
	if svc == nil || n == nil || len(n.Inputs) == 0 || (n.Kind != spec.KindFunction && n.Kind != spec.KindResponsibility) {
		return svc
	}
	return &slotFunc{Service: svc, fn: n}
}
