// Package delegation runs the Delegation pseudocode of a pattern spec.
//
// The syntax (scanner, parser, AST) lives in delegation/syntax and the
// static checks in delegation/check. This package holds the run-time side:
// values (Value, List, Object, Service), the host interfaces through which
// the evaluator reaches the world (Caller, Judge, Recorder, Runtime), and
// the tree-walking evaluator itself. The decided semantics are in
// semantics.md beside this file.
package delegation
