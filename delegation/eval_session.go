package delegation

import "github.com/proselang/prose/delegation/syntax"

// A ProseScript session is a call (syntax.Session): its target is a
// hidden name that the runner of a function's or responsibility's
// Execution binds to the session's model service before the run
// (package callgraph), so the evaluator runs it as it runs any call.
// See semantics.md, "Sessions and agents".

// sessionUnbound is the error of a session whose model service nothing
// bound: the program runs where no runner binds one (a Go program's
// own run, a pattern's Delegation).
func (f *frame) sessionUnbound(x *syntax.CallExpr) error {
	return f.errorf(x.Call, KindRuntime, "%s has no model to answer it: a session runs in the Execution of a function or a responsibility, whose run binds its model before it starts", x.Session.Name)
}
