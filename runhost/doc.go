// Package runhost is the host of every kind of run (a pattern, a function,
// a responsibility's Execution, a test's subject): Prepare loads a spec, refuses
// one that cannot run, binds it (package bind) and assembles the
// evaluator's host (caller, judge, recorders, runtime, limits);
// (*Prepared).Run executes it; Run does both, calling RunOptions.Wrap in
// between. It also counts a run's work (Totals) and names how a run ended
// (RunStatus).
//
// Prepare refuses a spec with error-level diagnostics (*callgraph.SpecError),
// and, in one *bind.UsageError listing every problem, bad settings
// (bindings, config, inputs, programs not in PATH when Env.LookPath is
// set) and the conditions a run certainly reaches that need a model when
// none is configured (model.go); a condition it may reach is a warning
// (CodeMayNeedModel). Answers are checked where they arrive: a slot's
// against its ensures' fields (package bind), a function's against its
// declared outputs and types (package callgraph). A function or responsibility
// (Contract Markdown) runs the plan package callgraph makes of it. The
// Prepared's Host is the composition point: a journal replaces its
// Caller, Judge and Runtime with wrappers, without changes here. Services
// reach the run's host through CallRequest.Host (nested specs run with
// it, under the call's scope).
//
// The jobs below the host, one package each, none importing the host:
// package service (what a slot is bound to and how a call reaches it),
// package bind (binding texts into an Instance: services, typed config and
// inputs), package callgraph (nested specs, the callees of Contract
// Markdown, loading specs). A run's trace is written by journal.Trace;
// what a person watching stderr sees is printed by cmd/prose. A Go
// program embeds runs through package run, whose types wrap these.
package runhost
