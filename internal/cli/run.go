package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/gate"
	"github.com/proselang/prose/internal/lintcli"
	"github.com/proselang/prose/internal/recovered"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/runhost"
)

// runOptions are the flags of `prose run`.
type runOptions struct {
	slots, configs, inputs []string
	inputJSON              string
	trace                  string
	maxParallel            int
	maxSteps               int
	maxValueBytes          int64
	quiet                  bool
	model, baseURL         string
	maxTurns               int
	mcpConfig              string
	// renderTimeout is --render-timeout of a drain (0: no bound).
	renderTimeout time.Duration
	journal       journalFlags
	otel          otelFlags
	stdin         io.Reader // for --input KEY=@- and --input-json -
}

const runLong = `run loads a spec, binds its slots to services, and runs it with a real
interpreter: a pattern's Delegation, or a function's or responsibility's
Execution (else its inline nodes, else one model render of its contract;
--slot NAME=BINDING binds any callee or render by name, and --input gives
its Parameters or Requires). The value it returns is printed on stdout as
indented JSON; progress goes to stderr. FILE - reads the spec from stdin
(kept by its digest under the user's cache directory, so that resume and
replay find it).

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
                   built-in library): a pattern runs its Delegation, a
                   function or responsibility its Execution, or else one
                   render of its contract by the model
                   (--slot critic=std/roles/critic.prose.md); bind its own
                   slots and config with dotted names:
                   --slot target.refiner=exec:...,
                   --config target.max_rounds=2.

Config and inputs are typed by the spec's declarations (--config
max_steps=3 is an integer where the spec says integer; a string is taken
verbatim; a duration, for a timeout, is 500ms, 30s, 2m or a number of
seconds; lists and objects are JSON). A list (string[]) also takes one
element per repeated flag: --input xs=a --input xs=b. --input-json (one
flag) sets several inputs at once; a name given twice, by both flags or
by a repeated --input of a name that is no list, is refused. An input
typed run takes a run id of --run-dir (or a run directory's path), run[]
ids separated by commas: each is bound to the run (id, directory, root
spec, status), and one that is no run, or has not ended, is refused.
Defaults apply; an input named like a slot is
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
PROSE_MODEL_TIMEOUT (e.g. 90s) bounds each model call, retries included;
PROSE_MAX_TOKENS caps a slot's reply (see the README for the others).

Progress on stderr: the spec's lint warnings first; then, on a terminal,
one line per call attempt (call id, service, attempt, outcome, duration),
otherwise only failed attempts; then a summary line. --quiet prints none of
it. --trace FILE writes the run's records in the journal's format
(journal/FORMAT.md): every attempt with its stable call id and its
arguments, every judgment, every model request of an llm slot (prompt,
reply, tokens), the outcome with totals (a file, or /dev/stderr: stdout
holds nothing but the result).

A gate (ask_user "QUESTION", gate {...}) asks a person: on a terminal the
question is asked and answered in place (a line; for a gate with options,
one of them, or JSON); otherwise the run stops there, journaled, prints
the question and the commands that answer it (prose answer RUN_ID GATE
--value TEXT, then prose resume RUN_ID) and exits 3.

Exit status: 0 the run finished (also with a null result), 1 a runtime
error (printed as FILE:LINE:COL: message), 2 bad usage or an invalid spec,
3 the run waits at a gate for an answer, 130 interrupted (Ctrl-C stops
every running service).`

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
	o := &runOptions{stdin: s.in}
	var tf *temporalFlags
	var wf *worldFlags
	cmd := &cobra.Command{
		Use:     "run FILE [--slot NAME=BINDING]... [--config KEY=VALUE]... [--input KEY=VALUE]...",
		Short:   "Run a pattern, function or responsibility with its slots bound to programs, models or other specs",
		Long:    runLong,
		Example: runExample,
		Args:    oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := o.stdinSpec(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			args = []string{spec}
			if wf.applies(args[0]) {
				return runWorld(cmd.Context(), s, o, wf, args[0])
			}
			eng, err := tf.pick(cmd)
			if err != nil {
				return err
			}
			if onTemporal, err := runOnTemporal(cmd, s, o, tf, eng, args[0]); onTemporal {
				return err
			}
			return runRun(cmd, s, o, eng, args[0])
		},
	}
	tf = addTemporalFlags(cmd)
	wf = addWorldFlags(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&o.slots, "slot", nil, "bind slot `NAME=BINDING` (exec:CMD, llm[:MODEL], PATH.prose.md); repeat a name for a list slot")
	fl.StringArrayVar(&o.configs, "config", nil, "set config `KEY=VALUE`, typed by the spec's declaration; repeat a list key for one element each")
	fl.StringArrayVar(&o.inputs, "input", nil, "set input `KEY=VALUE`, typed by the spec's declaration (KEY=@FILE reads it from a file, @- from stdin); repeat a list input for one element each")
	fl.Var(&onceString{p: &o.inputJSON}, "input-json", "set inputs from a `JSON` object, e.g. '{\"task\": \"x\", \"limits\": {\"n\": 2}}' (@FILE reads it from a file, - from stdin)")
	fl.StringVar(&o.trace, "trace", "", "write a JSON-lines trace of the run to `FILE`")
	fl.IntVar(&o.maxParallel, "max-parallel", runhost.DefaultMaxParallel, "run at most `N` parallel iterations at once")
	fl.IntVar(&o.maxSteps, "max-steps", runhost.DefaultMaxSteps, "stop the run after `N` statements")
	fl.Int64Var(&o.maxValueBytes, "max-value-bytes", 0, "refuse a value larger than `N` bytes as written out (0: the default ceiling)")
	fl.BoolVarP(&o.quiet, "quiet", "q", false, "print no progress on stderr (the run id line stays: resume needs it)")
	fl.StringVar(&o.model, "model", "", "`MODEL` for natural-language conditions and llm slots (default $PROSE_MODEL)")
	fl.StringVar(&o.baseURL, "base-url", "", "OpenAI-compatible API base `URL` (default $OPENAI_BASE_URL)")
	fl.IntVar(&o.maxTurns, "max-turns", llm.DefaultMaxTurns, "stop a render's tool session after `N` model requests")
	fl.StringVar(&o.mcpConfig, "mcp-config", "", "read the MCP servers of ### Tools mcp: declarations from `FILE` (default: .mcp.json at the project root)")
	addRenderTimeoutFlag(cmd, &o.renderTimeout, "for a drain: ")
	addJournalFlags(cmd, &o.journal)
	addOtelFlags(cmd, &o.otel)
	return cmd
}

// runRun is `prose run FILE` on the local engine: flags to a
// run.Request and run.Options, then eng.Run.
func runRun(cmd *cobra.Command, s streams, o *runOptions, eng run.Engine, path string) error {
	if os.Getenv("GOMAXPROCS") == "" {
		// One processor: a run's own work (the interpreter, a program's
		// pipes and answers, the journal) is small beside its programs'
		// and models', which run outside it. With a second, each
		// goroutine that the poller or an answer wakes started a thread
		// to spin for it, a third of prose's context switches in a wide
		// parallel loop of exec calls (BENCHMARKS.md, fan-out). GOMAXPROCS
		// set in the environment is kept.
		defer lintcli.OneProcessor()()
	}
	req, err := o.request(cmd.Context(), path)
	if err != nil {
		return err
	}
	ro, err := o.journal.options()
	if err != nil {
		return err
	}
	endSpans, err := o.otel.open(cmd.Context(), &ro, s.err)
	if err != nil {
		return err
	}
	defer endSpans()
	return execute(cmd.Context(), s, o.trace, o.quiet, ro, func(ctx context.Context, ro run.Options) (*run.Result, error) {
		return eng.Run(ctx, req, ro)
	})
}

// execute runs one of run.Run, run.Resume and run.Replay with the
// progress and trace of the command line, and reports the outcome.
func execute(ctx context.Context, s streams, trace string, quiet bool, ro run.Options, do func(context.Context, run.Options) (*run.Result, error)) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var progress *Progress
	var diags func(diag.List)
	if !quiet {
		progress = NewTerminalProgress(s.err, os.Getenv)
		defer progress.Start()()
		ro.Recorders = append(ro.Recorders, progress)
		diags = progress.Diagnostics
	}
	ro.Notify = notices(s.err, quiet, diags)
	if ro.GatePrompt == nil && readsTerminal(s.in) && IsTerminal(s.err) {
		// a person at a terminal answers gates in place
		ro.GatePrompt = gate.LinePrompt(s.in, s.err)
	}
	closeTrace, err := openTrace(trace, s.err, &ro)
	if err != nil {
		return usageErrorf("--trace: %v", err)
	}
	start := time.Now()
	res, runErr := do(ctx, ro)
	// A trace that could not be written whole (a full disk) does not
	// change the run's outcome, which the journal holds: the result is
	// still printed, and then the trace's failure, with exit status 1.
	traceErr := closeTrace(res == nil)
	// A run refused before it started (a usage error: the run directory
	// cannot be made, a withheld value not given again) has nothing to sum up.
	if res != nil && progress != nil && !errors.As(runErr, new(*run.UsageError)) {
		progress.Summary(time.Since(start), runhost.RunStatus(runErr))
		if res.Mode != journal.Live && res.RunID != "" {
			fmt.Fprintf(s.err, "prose: %d of %d calls answered from the journal, %d run live\n", res.Answered, res.Calls, res.Calls-res.Answered)
		}
		if res.ModelUsage != nil {
			fmt.Fprintf(s.err, "prose: %s\n", res.ModelUsage)
		}
	}
	if w := delegation.Waiting(runErr); w != nil && res != nil && res.RunID != "" {
		fmt.Fprint(s.err, gate.Instructions(res.RunID, runDirFlag(ro.RunDir), w))
		return &exitError{Code: exitWaiting}
	}
	if runErr != nil {
		err := runError(ctx, s.err, runErr)
		if ee, ok := err.(*exitError); ok && ee.Code == exitInterrupt && res != nil && res.RunID != "" && res.Mode != journal.Replaying {
			fmt.Fprintf(s.err, "prose: resume it with: prose resume %s%s\n", res.RunID, runDirFlag(ro.RunDir))
		}
		if traceErr != nil {
			fmt.Fprintf(s.err, "prose: --trace: %v: the trace is incomplete\n", traceErr)
		}
		return err
	}
	if err := printResult(ctx, s.out, res.Value); err != nil {
		return err
	}
	if traceErr != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("--trace: %v: the trace is incomplete", traceErr)}
	}
	return nil
}

// runDirFlag is the --run-dir a resume command needs ("" for the default).
func runDirFlag(dir string) string {
	if dir == "" || dir == run.DefaultRunDir {
		return ""
	}
	// resume and replay make the directory absolute: the default of the
	// current directory needs no flag either.
	if def, err := filepath.Abs(run.DefaultRunDir); err == nil && filepath.Clean(dir) == def {
		return ""
	}
	return " --run-dir " + shellQuote(dir)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// request turns the flags into the run's request, on either engine.
func (o *runOptions) request(ctx context.Context, path string) (run.Request, error) {
	if o.maxParallel < 1 {
		return run.Request{}, usageErrorf("--max-parallel must be at least 1, got %d", o.maxParallel)
	}
	if o.maxSteps < 1 {
		return run.Request{}, usageErrorf("--max-steps must be at least 1, got %d", o.maxSteps)
	}
	if o.maxValueBytes < 0 {
		return run.Request{}, usageErrorf("--max-value-bytes must not be negative, got %d", o.maxValueBytes)
	}
	var b bind.Settings
	var err error
	if b.Slots, err = bind.ParseAssignments("--slot", o.slots); err != nil {
		return run.Request{}, &exitError{Code: exitUsage, Err: err}
	}
	if b.Config, err = bind.ParseAssignments("--config", o.configs); err != nil {
		return run.Request{}, &exitError{Code: exitUsage, Err: err}
	}
	if b.Inputs, err = bind.ParseAssignments("--input", o.inputs); err != nil {
		return run.Request{}, &exitError{Code: exitUsage, Err: err}
	}
	b.InputJSON = o.inputJSON
	if err := readInputFiles(ctx, &b, o.stdin); err != nil {
		if ctx.Err() != nil {
			return run.Request{}, ctx.Err() // interrupted
		}
		return run.Request{}, &exitError{Code: exitUsage, Err: err}
	}
	var slots []run.Slot
	slots, b.Slots = typedSlots(b.Slots)
	return run.Request{
		Spec: path, Bindings: b, Slots: slots, Model: o.model, BaseURL: o.baseURL, MaxTurns: o.maxTurns, MCPConfig: o.mcpConfig,
		Limits: run.Limits{MaxParallel: o.maxParallel, MaxSteps: o.maxSteps, MaxValueBytes: o.maxValueBytes},
	}, nil
}

// typedSlots turns the --slot texts into typed run bindings
// (run.ParseBinding), in order. When one does not parse, or does not read
// back as written (run.Binding.Text), they all stay text (rest), for the
// binder to report every problem at once with the spec's names and a
// did-you-mean, as it words them.
func typedSlots(as []bind.Assignment) (slots []run.Slot, rest []bind.Assignment) {
	for _, a := range as {
		b, err := run.ParseBinding(a.Value)
		if err != nil || b.Text() != a.Value {
			return nil, as
		}
		slots = append(slots, run.Slot{Name: a.Name, Binding: b})
	}
	return slots, nil
}

// openTrace opens the trace file; the returned function closes it, and
// removes it again when the run was refused before it started (discard)
// and the file did not exist before.
func openTrace(path string, stderr io.Writer, opts *run.Options) (func(discard bool) error, error) {
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
	// A new trace is private, as a journal is (0600): it holds the run's
	// arguments and results. An existing file keeps its mode (the user
	// chose it: /dev/null, a pipe, a file shared on purpose).
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	tw := &traceWriter{w: f}
	opts.Trace = tw
	return func(discard bool) error {
		err := f.Close()
		if tw.err != nil {
			err = tw.err
		}
		if discard && os.IsNotExist(statErr) {
			os.Remove(path)
		}
		return err
	}, nil
}

// runError prints err the way its kind deserves and returns the exit
// status as an *exitError: the status and the advice follow the error's
// run.Code; the error's details (problems, diagnostics, the call path)
// are printed from its structure. A failed call inside loops is named by
// its call path, which says which iteration failed.
func runError(ctx context.Context, w io.Writer, err error) error {
	if st := recovered.StackOf(err); st != nil && os.Getenv("PROSE_DEBUG") != "" {
		fmt.Fprintf(w, "prose: the stack of the internal error (PROSE_DEBUG is set):\n%s", st)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee
	}
	var ue *bind.UsageError
	var se *callgraph.SpecError
	var de *delegation.Error
	code := run.CodeOf(err)
	switch {
	case code == run.CodeUsage && errors.As(err, new(*run.UsageError)):
		return &exitError{Code: exitUsage, Err: err}
	case code == run.CodeSpecChanged:
		return &exitError{Code: exitFailure, Err: err}
	case code == run.CodeUsage && errors.As(err, &ue):
		for _, p := range ue.Problems {
			fmt.Fprintf(w, "prose: %s\n", p)
		}
		return &exitError{Code: exitUsage}
	case code == run.CodeInvalidSpec && errors.As(err, &se):
		fmt.Fprint(w, se.Diags.String())
		fmt.Fprintf(w, "prose: not run: the spec has %s (see also prose lint)\n", countErrors(len(se.Diags)))
		return &exitError{Code: exitUsage}
	case ctx.Err() != nil || code == run.CodeCanceled:
		fmt.Fprintln(w, "prose: interrupted")
		return &exitError{Code: exitInterrupt}
	case errors.As(err, &de):
		fmt.Fprintln(w, strings.TrimRight(de.Error(), "\n"))
		if p := de.Path; p.InLoop() {
			where := "in call"
			if de.Kind != delegation.KindCall {
				where = "at"
			}
			fmt.Fprintf(w, "\t%s %s (%s)\n", where, p, iterations(p))
		}
		switch code {
		case run.CodeStepBudget:
			fmt.Fprintln(w, "prose: a run may execute at most --max-steps statements; raise it if the loops are meant to be this long")
		case run.CodeValueSize:
			// The evaluator names its Go option (Host.MaxValueBytes); a
			// user of the command needs the flag.
			fmt.Fprintln(w, "prose: a value may be at most --max-value-bytes bytes as written out; raise it if the values are meant to be this large")
		}
		return &exitError{Code: exitFailure}
	}
	return &exitError{Code: exitFailure, Err: err}
}

// printResult writes the run's value as indented JSON.
//
// The value already fits the run's size ceiling (a return is checked
// against it), so printing sets none of its own; Ctrl-C stops it however
// large the value is written out.
func printResult(ctx context.Context, w io.Writer, v delegation.Value) error {
	out, err := delegation.EncodeJSON(ctx, v, delegation.EncodeOptions{Indent: true, MaxBytes: math.MaxInt64})
	if ctx.Err() != nil {
		return &exitError{Code: exitInterrupt, Err: fmt.Errorf("interrupted while printing the result")}
	}
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("the result cannot be printed as JSON: %v", err)}
	}
	if _, err := fmt.Fprintf(w, "%s\n", out); err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("writing the result: %v", err)}
	}
	return nil
}

// iterations explains the loop path of a call path: "L33/2/3" is
// iteration 2 of the outer loop and 3 of the inner one; ">" separates the
// call paths of nested specs.
func iterations(p delegation.Path) string {
	its := p.Iterations()
	parts := make([]string, len(its))
	for i, n := range its {
		parts[i] = strconv.Itoa(n)
	}
	switch len(parts) {
	case 0:
		return "made by a nested spec; the id's parts are separated by >"
	case 1:
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

// traceWriter keeps the first error writing the trace file: the trace
// writes each record as it comes and cannot stop the run for it.
type traceWriter struct {
	w   io.Writer
	err error
}

func (t *traceWriter) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.w.Write(p)
	t.err = err
	return n, err
}
