package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/patterns"
)

// runOptions are the flags of `prose run`.
type runOptions struct {
	slots, configs, inputs []string
	inputJSON              string
	trace                  string
	maxParallel            int
	maxSteps               int
	quiet                  bool
	model, baseURL         string
	journal                journalFlags
}

const runLong = `run loads a pattern spec, binds its slots to services, and runs its
Delegation with a real interpreter. The value the Delegation returns is
printed on stdout as indented JSON; progress goes to stderr.

Slots (--slot NAME=BINDING, once per slot; repeat a name for a list slot):
  exec:COMMAND     a program, run by /bin/sh -c COMMAND for each call. The
                   call's named arguments arrive on stdin as one JSON object
                   on one line; $PROSE_SLOT, $PROSE_ATTEMPT and
                   $PROSE_CALL_ID are set; it runs in the current directory.
                   stdout is the value (JSON when it parses, else text);
                   a non-zero exit is a failed attempt whose message is the
                   end of stderr; empty output is an error (print null).
  llm, llm:MODEL   a language model acting in the slot's role.
  PATH.prose.md    another spec run as the service (std/... for the
                   built-in library); bind its own slots and config with
                   dotted names: --slot target.refiner=exec:...,
                   --config target.max_rounds=2.

Config and inputs are typed by the spec's declarations (--config
max_steps=3 is an integer where the spec says integer; a string is taken
verbatim; a duration, for a timeout, is 500ms, 30s, 2m or a number of
seconds; lists and objects are JSON). A list (string[]) also takes one
element per repeated flag: --input xs=a --input xs=b. --input-json sets
several inputs at once. Defaults apply; an input named like a slot is
bound by --slot, one named like a config key by --config. Unknown names,
unbound slots, missing inputs and program files that cannot run (not
executable, a broken #! line) are all reported at once, before anything
runs (exit 2); a program path that does not exist yet is left to the call,
since an earlier step may create it.

Conditions such as "if verdict certifies the proposal" are decided without
a model when the data carries a structured verdict ({"verdict":"certify"});
anything else needs a model: --model or PROSE_MODEL, with OPENAI_API_KEY
and OPENAI_BASE_URL for other OpenAI-compatible servers. The base URL
includes the API version, as in the OpenAI SDKs; a local server needs no
key:
  OPENAI_BASE_URL=http://localhost:11434/v1 prose run ... --model llama3.2
PROSE_MODEL_TIMEOUT (e.g. 90s) bounds each model request.

Progress on stderr: the spec's lint warnings first; then, on a terminal,
one line per call attempt (call id, service, attempt, outcome, duration),
otherwise only failed attempts; then a summary line. --quiet prints none of
it. --trace FILE writes JSON lines: run start and end, every attempt with
its stable call id, every judgment (a file, or /dev/stderr: stdout holds
nothing but the result).

Exit status: 0 the run finished (also with a null result), 1 a runtime
error (printed as FILE:LINE:COL: message), 2 bad usage or an invalid spec,
130 interrupted (Ctrl-C stops every running service).`

const runExample = `  # A ratchet whose advancer and certifier are programs:
  prose run std/patterns/ratchet.prose.md \
    --slot advancer=exec:./advance.sh --slot certifier=exec:./certify.sh \
    --input task_brief="ship release 1.2" --config max_steps=4

  # Fan out to three services (a list slot), at most two at a time:
  prose run std/patterns/fan-out.prose.md --slot delegates=exec:./a.sh \
    --slot delegates=exec:./b.sh --slot delegates=exec:./c.sh \
    --input-json '{"task_brief": "summarize"}' --max-parallel 2

  # Write a JSON-lines trace of every call and judgment:
  prose run retry.prose.md --slot target=exec:./fetch.sh \
    --input task_brief=fetch --trace run.jsonl`

func newRunCmd(s streams) *cobra.Command {
	o := &runOptions{}
	var tf *temporalFlags
	cmd := &cobra.Command{
		Use:     "run FILE [--slot NAME=BINDING]... [--config KEY=VALUE]... [--input KEY=VALUE]...",
		Short:   "Run a pattern spec with its slots bound to programs, models or other specs",
		Long:    runLong,
		Example: runExample,
		Args:    oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			if on, err := tf.on(cmd); on || err != nil {
				if err != nil {
					return err
				}
				opts, err := o.runOptions(args[0])
				if err != nil {
					return err
				}
				return runTemporal(cmd, s, tf, opts, o.model, o.quiet)
			}
			return runRun(cmd, s, o, args[0])
		},
	}
	tf = addTemporalFlags(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&o.slots, "slot", nil, "bind slot `NAME=BINDING` (exec:CMD, llm[:MODEL], PATH.prose.md); repeat a name for a list slot")
	fl.StringArrayVar(&o.configs, "config", nil, "set config `KEY=VALUE`, typed by the spec's declaration; repeat a list key for one element each")
	fl.StringArrayVar(&o.inputs, "input", nil, "set input `KEY=VALUE`, typed by the spec's declaration; repeat a list input for one element each")
	fl.StringVar(&o.inputJSON, "input-json", "", "set inputs from a `JSON` object, e.g. '{\"task\": \"x\", \"limits\": {\"n\": 2}}'")
	fl.StringVar(&o.trace, "trace", "", "write a JSON-lines trace of the run to `FILE`")
	fl.IntVar(&o.maxParallel, "max-parallel", patterns.DefaultMaxParallel, "run at most `N` parallel iterations at once")
	fl.IntVar(&o.maxSteps, "max-steps", patterns.DefaultMaxSteps, "stop the run after `N` statements")
	fl.BoolVarP(&o.quiet, "quiet", "q", false, "print no progress on stderr (the run id line stays: resume needs it)")
	fl.StringVar(&o.model, "model", "", "`MODEL` for natural-language conditions and llm slots (default $PROSE_MODEL)")
	fl.StringVar(&o.baseURL, "base-url", "", "OpenAI-compatible API base `URL` (default $OPENAI_BASE_URL)")
	addJournalFlags(cmd, &o.journal)
	return cmd
}

// runRun is `prose run FILE`.
func runRun(cmd *cobra.Command, s streams, o *runOptions, path string) error {
	opts, err := o.runOptions(path)
	if err != nil {
		return err
	}
	if o.maxParallel < 1 {
		return usageErrorf("--max-parallel must be at least 1, got %d", o.maxParallel)
	}
	if o.maxSteps < 1 {
		return usageErrorf("--max-steps must be at least 1, got %d", o.maxSteps)
	}
	models, err := newModels(o)
	if err != nil {
		return usageErrorf("%v", err)
	}
	models.apply(&opts)
	failed := &patterns.FailedCalls{}
	opts.Recorders = append(opts.Recorders, failed)
	var progress *patterns.Progress
	if !o.quiet {
		progress = patterns.NewProgress(s.err, isTerminal(s.err))
		opts.Recorders = append(opts.Recorders, progress)
	}
	red := journal.NewRedactor(nil)
	opts.Redact = func(line string) string { out, _ := red.Text(line); return out }
	closeTrace, err := openTrace(o.trace, s.err, &opts)
	if err != nil {
		return usageErrorf("--trace: %v", err)
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	jr, ctx := startJournal(ctx, cmd, &o.journal, s.err)
	jr.prepare(&opts)
	opts.Wrap = func(p *patterns.Prepared) error {
		// The spec's warnings (lint's findings short of errors) are worth
		// seeing before the run acts on it.
		if !o.quiet {
			fmt.Fprint(s.err, p.Warnings.String())
		}
		return jr.wrap(p)
	}
	start := time.Now()
	v, runErr := patterns.Run(ctx, opts)
	runErr = jr.finish(v, runErr)
	if err := closeTrace(!ranAtAll(runErr)); err != nil && runErr == nil {
		runErr = &exitError{code: exitFailure, err: fmt.Errorf("--trace: %v", err)}
	}
	return report(ctx, s, v, runErr, failed, func(status string) {
		if progress != nil {
			progress.Summary(time.Since(start), status)
			models.summary(s.err, progress.Totals().DecidedJudgments)
		}
	})
}

// report prints the run's summary (when it got past binding), then its
// result or error, and returns the command's error.
func report(ctx context.Context, s streams, v delegation.Value, runErr error, failed *patterns.FailedCalls, summary func(status string)) error {
	if ranAtAll(runErr) {
		summary(patterns.RunStatus(runErr))
	}
	if runErr != nil {
		return runError(ctx, s.err, runErr, failed)
	}
	return printResult(s.out, v)
}

// runOptions turns the flags into patterns.RunOptions.
func (o *runOptions) runOptions(path string) (patterns.RunOptions, error) {
	var b patterns.Bindings
	var err error
	if b.Slots, err = patterns.ParseAssignments("--slot", o.slots); err != nil {
		return patterns.RunOptions{}, &exitError{code: exitUsage, err: err}
	}
	if b.Config, err = patterns.ParseAssignments("--config", o.configs); err != nil {
		return patterns.RunOptions{}, &exitError{code: exitUsage, err: err}
	}
	if b.Inputs, err = patterns.ParseAssignments("--input", o.inputs); err != nil {
		return patterns.RunOptions{}, &exitError{code: exitUsage, err: err}
	}
	b.InputJSON = o.inputJSON
	env := &patterns.Env{Nested: patterns.NestedSpec}
	return patterns.RunOptions{
		Path: path, Bindings: b, Env: env,
		MaxParallel: o.maxParallel, MaxSteps: o.maxSteps,
	}, nil
}

// openTrace opens the trace file; the returned function closes it, and
// removes it again when the run was refused before it started (discard)
// and the file did not exist before.
func openTrace(path string, stderr io.Writer, opts *patterns.RunOptions) (func(discard bool) error, error) {
	switch path {
	case "":
		return func(bool) error { return nil }, nil
	case "-", "/dev/stdout":
		return nil, fmt.Errorf("stdout holds the result only; write the trace to a file, or to /dev/stderr")
	case "/dev/stderr":
		// Share the stream the progress goes to: opening the path again
		// would truncate a redirected stderr file under the progress lines.
		opts.Trace = stderr
		return func(bool) error { return nil }, nil
	}
	_, statErr := os.Stat(path)
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	opts.Trace = f
	return func(discard bool) error {
		err := f.Close()
		if discard && os.IsNotExist(statErr) {
			os.Remove(path)
		}
		return err
	}, nil
}

// ranAtAll reports whether the run got past binding (a summary of a run
// refused before it started would say nothing).
func ranAtAll(err error) bool {
	var ue *patterns.UsageError
	var se *patterns.SpecError
	var ee *exitError
	return !errors.As(err, &ue) && !errors.As(err, &se) && !errors.As(err, &ee)
}

// runError prints err the way its kind deserves and returns the exit
// status as an *exitError. A failed call inside loops is named by its call
// id, which says which iteration failed.
func runError(ctx context.Context, w io.Writer, err error, failed *patterns.FailedCalls) error {
	var ue *patterns.UsageError
	var se *patterns.SpecError
	var de *delegation.Error
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee
	case errors.As(err, &ue):
		for _, p := range ue.Problems {
			fmt.Fprintf(w, "prose: %s\n", p)
		}
		return &exitError{code: exitUsage}
	case errors.As(err, &se):
		fmt.Fprint(w, se.Diags.String())
		fmt.Fprintf(w, "prose: not run: the spec has %s (see also prose lint)\n", countErrors(len(se.Diags)))
		return &exitError{code: exitUsage}
	case ctx.Err() != nil || (errors.As(err, &de) && de.Kind == delegation.KindCanceled):
		fmt.Fprintln(w, "prose: interrupted")
		return &exitError{code: exitInterrupt}
	case errors.As(err, &de):
		fmt.Fprintln(w, strings.TrimRight(de.Error(), "\n"))
		if id := failed.CallID(err); strings.Contains(id, "/") {
			where := "in call"
			if de.Kind != delegation.KindCall {
				where = "at"
			}
			fmt.Fprintf(w, "\t%s %s (%s)\n", where, id, iterations(id))
		}
		if de.Kind == delegation.KindLimit && strings.Contains(de.Msg, "step budget") {
			fmt.Fprintln(w, "prose: a run may execute at most --max-steps statements; raise it if the loops are meant to be this long")
		}
		return &exitError{code: exitFailure}
	}
	return &exitError{code: exitFailure, err: err}
}

// printResult writes the run's value as indented JSON.
func printResult(w io.Writer, v delegation.Value) error {
	out, err := delegation.ToIndentedJSON(v)
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("the result cannot be printed as JSON: %v", err)}
	}
	if _, err := fmt.Fprintf(w, "%s\n", out); err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("writing the result: %v", err)}
	}
	return nil
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// iterations explains the loop path of a call id: "L33/2/3" is iteration 2
// of the outer loop and 3 of the inner one; ">" separates the call ids of
// nested specs.
func iterations(id string) string {
	last := id[strings.LastIndex(id, ">")+1:]
	_, path, _ := strings.Cut(last, "/")
	parts := strings.Split(path, "/")
	switch {
	case path == "":
		return "made by a nested spec; the id's parts are separated by >"
	case len(parts) == 1:
		return "iteration " + parts[0] + " of its loop"
	}
	return "iterations " + strings.Join(parts, ", ") + " of its loops, outermost first"
}

func countErrors(n int) string {
	if n == 1 {
		return "1 error"
	}
	return fmt.Sprintf("%d errors", n)
}
