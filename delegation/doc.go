// Package delegation runs the Delegation pseudocode of a pattern spec.
//
// The syntax (scanner, parser, AST) lives in delegation/syntax and the
// static checks in delegation/check. This package holds the run-time side:
// values (Value, List, Object, Service), the host interfaces through which
// the evaluator reaches the world (Caller, Judge, Recorder, Runtime), and
// the tree-walking evaluator itself. The decided semantics are in
// semantics.md beside this file.
//
// Entry points: Run executes a parsed Program against top-level bindings
// and a Host; DefaultRuntime is the Runtime of a local run (goroutines, the
// real clock, hashed jitter); Deadliner optionally lets a Runtime own call
// timeouts. Run-time failures are *Error values carrying the .md position,
// a Kind (call, throw, runtime, judge, limit, canceled) and, for failed
// calls, the slot and attempt count.
package delegation
