// Package run runs a spec the way `prose run`, `prose resume` and `prose
// replay` do, for any Go program: load and check the spec, bind its slots
// (programs, models, nested specs, and in-process Go services), journal
// the run, trace it, and resume or replay it from its journal.
//
// A Request says what to run (the spec, the bindings as NAME=TEXT, limits,
// model settings); Options say how (where journals live, the trace, the
// in-process services, the environment the model configuration is read
// from). Prepare assembles a run (loads, checks and binds everything it
// reaches) without starting it; (*Run).Start opens its journal and starts
// it, Wait returns its Result; Local{}.Run does all three. The Result's
// RunID names the journal that Resume continues and Replay re-runs. The journal keeps the Request as
// data, secrets withheld, so Resume and Replay rebuild the run from it,
// whatever process or directory they are called from; Overrides give
// withheld values again.
//
// Bindings are typed: Request.Slots binds each slot or callee to an Exec
// (a program), a Func (a Go function of this process), a Model or a Spec
// (another spec file); ParseBinding reads the command line's texts into
// them. A Func is journaled by its name, and a resume or replay in
// another process is given it again in Options.Funcs:
//
//	advance := run.Func{Name: "advance", Fn: func(ctx context.Context, args map[string]any) (any, error) {
//		return "one more step", nil
//	}}
//	res, err := run.Local{}.Run(ctx, run.Request{
//		Spec:  "std/patterns/ratchet.prose.md",
//		Slots: []run.Slot{{Name: "advancer", Binding: advance}, {Name: "certifier", Binding: run.Exec{Command: "./certify.sh"}}},
//		Bindings: run.Bindings{Inputs: []run.Assignment{{Name: "task_brief", Value: "ship 1.2"}}},
//	}, run.Options{RunDir: run.DefaultRunDir})
//
// Engines. Local is the engine of this process, as an Engine: the
// interface a program or `prose run --engine` picks an engine through.
// Package temporal's Engine runs the same Request on a Temporal cluster
// (this package does not depend on it); its workflow assembles the run
// with Prepare too, as a Deterministic run whose programs, models and
// judgments are the workers' (Options.Exec, Models), whose specs come
// from the request (Options.Specs), and which RunHere runs under the
// workflow's own context.
//
// Errors. Every error is a *Error whose Code says why the run gave no
// value (CodeUsage and CodeInvalidSpec before anything runs, CodeFailed,
// CodeCanceled, CodeStepBudget, CodeValueSize, CodeDiverged, ...); a
// program decides by CodeOf(err), never by an error's text. The details
// stay reachable with errors.As: *bind.UsageError (its Problems) and
// *callgraph.SpecError (its diagnostics) before anything runs, *UsageError
// for a request that cannot run as given (a withheld value not given
// again), *delegation.Error for a run-time error of the spec (its
// position and call path), *DivergedError when a resume or replay no
// longer matches its journal, *JournalError when the journal cannot be
// written.
package run
