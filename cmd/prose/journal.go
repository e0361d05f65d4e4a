package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/patterns"
)

// defaultRunDir is where runs are journaled, relative to the working
// directory.
const defaultRunDir = ".prose/runs"

// journalFlags are the journal's flags of `prose run`. resume, replay and
// force are hidden: `prose resume` and `prose replay` set them when they
// re-run the journaled command line.
type journalFlags struct {
	runDir    string
	noJournal bool
	sync      string
	resume    string
	replay    string
	force     bool
}

// Flags that are not part of the journaled command line: where the
// journal lives, how it is used, and the trace file (a resume writes its
// own).
var unjournaledFlags = map[string]bool{
	"run-dir": true, "no-journal": true, "journal-resume": true,
	"journal-replay": true, "journal-force": true, "journal-sync": true, "trace": true,
}

// addJournalFlags adds --run-dir and --no-journal (and the hidden flags
// of resume and replay) to cmd.
func addJournalFlags(cmd *cobra.Command, f *journalFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.runDir, "run-dir", defaultRunDir, "directory `DIR` holding run journals (one subdirectory per run)")
	fl.BoolVar(&f.noJournal, "no-journal", false, "do not journal this run (it cannot be resumed or replayed)")
	fl.StringVar(&f.sync, "journal-sync", "100ms", "when journal records reach the disk: `WHEN` is always (fsync each before the run goes on) or a group-commit window such as 100ms (a machine crash loses at most that much; a killed process loses nothing)")
	fl.StringVar(&f.resume, "journal-resume", "", "continue the journaled run `ID`")
	fl.StringVar(&f.replay, "journal-replay", "", "re-run the journaled run `ID` from its journal alone")
	fl.BoolVar(&f.force, "journal-force", false, "resume even when the spec or a call diverges from the journal")
	for _, n := range []string{"journal-resume", "journal-replay", "journal-force"} {
		_ = fl.MarkHidden(n)
	}
}

// runJournal connects one `prose run` to its journal. A nil *runJournal
// (--no-journal) does nothing.
type runJournal struct {
	f      *journalFlags
	cmd    *cobra.Command
	stderr io.Writer
	cancel context.CancelCauseFunc
	run    *journal.Run
}

// startJournal prepares the journal of the run that cmd is about to do and
// returns the context the run must use: it is canceled when a resume or a
// replay diverges from the journal. The journal itself is opened by wrap,
// once the spec is loaded and bound.
func startJournal(ctx context.Context, cmd *cobra.Command, f *journalFlags, stderr io.Writer) (*runJournal, context.Context) {
	if f.noJournal && f.resume == "" && f.replay == "" {
		return nil, ctx
	}
	ctx, cancel := context.WithCancelCause(ctx)
	return &runJournal{f: f, cmd: cmd, stderr: stderr, cancel: cancel}, ctx
}

// wrap is a patterns.RunOptions.Wrap: it opens the journal (a new one, or
// the run being resumed or replayed, whose spec must not have changed) and
// wraps the host's caller, judge and runtime.
func (j *runJournal) wrap(p *patterns.Prepared) error {
	if j == nil {
		return nil
	}
	src := p.Spec.File.Source()
	every, err := syncWindow(j.f.sync)
	if err != nil {
		return err
	}
	j.run, err = j.open(p.Path, src, journal.Options{Force: j.f.force, SyncEvery: every, OnDiverge: func(err error) { j.cancel(err) }})
	var sc *journal.SpecChangedError
	var ms *journal.MissingSecretsError
	mode := "resume " + j.f.resume
	if j.f.replay != "" {
		mode = "replay " + j.f.replay
	}
	switch {
	case errors.As(err, &sc):
		return &exitError{code: exitFailure, err: fmt.Errorf("%s: %w", mode, err)}
	case errors.As(err, &ms):
		return usageErrorf("%s: %v", mode, err)
	case err != nil && j.f.resume == "" && j.f.replay == "":
		return &exitError{code: exitFailure, err: fmt.Errorf("%w (--no-journal runs without one)", err)}
	case err != nil:
		return &exitError{code: exitFailure, err: err}
	}
	if err := j.run.SpecChanged(); err != nil {
		fmt.Fprintf(j.stderr, "prose: warning: %v\n", err)
	}
	// The run id is printed even with --quiet: it is what resume needs.
	fmt.Fprintf(j.stderr, "prose: run %s (%s)\n", j.run.ID(), j.describe())
	h := p.Host
	h.Caller = j.run.WrapCaller(h.Caller)
	h.Judge = j.run.WrapJudge(h.Judge)
	h.Runtime = j.run.WrapRuntime(h.Runtime)
	return nil
}

// open opens the journal: a new one, or the run being resumed or
// replayed.
func (j *runJournal) open(path string, src []byte, opt journal.Options) (*journal.Run, error) {
	switch {
	case j.f.replay != "":
		opt.SpecDigest = journal.Digest(src)
		return journal.Replay(j.f.runDir, j.f.replay, opt)
	case j.f.resume != "":
		opt.SpecDigest = journal.Digest(src)
		opt.Argv = j.header(path, src).Argv
		return journal.Resume(j.f.runDir, j.f.resume, opt)
	}
	return journal.Create(j.f.runDir, j.header(path, src), opt)
}

// describe says how the run uses its journal, for the run id line.
func (j *runJournal) describe() string {
	switch j.run.Mode() {
	case journal.Resuming:
		return "resuming; journal " + j.run.Path()
	case journal.Replaying:
		return "replaying from " + j.run.Path()
	}
	return "journal " + j.run.Path()
}

// finish records the outcome (or, for a replay, checks it against the
// journal), closes the journal and returns the error the command should
// report: runErr, a divergence from the journal, or a replay mismatch.
func (j *runJournal) finish(v delegation.Value, runErr error) error {
	if j == nil || j.run == nil {
		return runErr
	}
	defer j.run.Close()
	div := j.run.Err()
	ferr := j.run.Finish(v, runErr)
	switch {
	case div != nil:
		return &exitError{code: exitFailure, err: fmt.Errorf("%s %s stopped: %w", j.run.Mode(), j.run.ID(), div)}
	case j.run.Mode() == journal.Replaying && errors.Is(ferr, journal.ErrUnfinished):
		fmt.Fprintf(j.stderr, "prose: warning: %v\n", ferr)
	case ferr != nil && runErr == nil:
		return &exitError{code: exitFailure, err: ferr}
	case ferr != nil:
		fmt.Fprintf(j.stderr, "prose: %v\n", ferr)
	}
	return runErr
}

// header builds the journal header of a new run from the command line.
func (j *runJournal) header(path string, src []byte) journal.Header {
	red := journal.NewRedactor(nil)
	h := journal.Header{Spec: path, SpecDigest: journal.Digest(src)}
	if wd, err := os.Getwd(); err == nil {
		h.Dir = wd
		if abs, err := filepath.Abs(path); err == nil && fileExists(abs) {
			h.Spec = abs
		}
	}
	j.cmd.Flags().Visit(func(fl *pflag.Flag) {
		if unjournaledFlags[fl.Name] {
			return
		}
		for _, v := range flagValues(fl) {
			if fl.Name == "input-json" {
				h.Argv = append(h.Argv, journalInputJSON(red, &h, v)...)
				continue
			}
			h.Argv = append(h.Argv, "--"+fl.Name+"="+j.journalValue(red, &h, fl.Name, v))
		}
	})
	h.Argv = append(h.Argv, j.cmd.Flags().Args()...)
	return h
}

// journalValue redacts one flag value and files it under the header's
// bindings, config or inputs.
func (j *runJournal) journalValue(red *journal.Redactor, h *journal.Header, name, v string) string {
	var dst *[]journal.KV
	switch name {
	case "slot":
		dst = &h.Bindings
	case "config":
		dst = &h.Config
	case "input":
		dst = &h.Inputs
	}
	if k, val, ok := strings.Cut(v, "="); ok && dst != nil {
		kv := red.KV(k, val)
		*dst = append(*dst, kv)
		if kv.Redacted {
			h.Redacted = append(h.Redacted, name+" "+k)
		}
		return k + "=" + kv.Value
	}
	if journal.IsSecretName(name) {
		h.Redacted = append(h.Redacted, name)
		return journal.Redacted
	}
	out, changed := red.Text(v)
	if changed {
		h.Redacted = append(h.Redacted, name)
		return journal.Redacted
	}
	return out
}

// flagValues lists a flag's values: each element of a repeatable flag.
func flagValues(fl *pflag.Flag) []string {
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return []string{fl.Value.String()}
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// syncWindow reads --journal-sync: "always" or a duration.
func syncWindow(s string) (time.Duration, error) {
	if s == "always" || s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, usageErrorf("--journal-sync %q: want always or a duration such as 100ms", s)
	}
	return d, nil
}

// prepare adjusts the run options before the spec is bound. A replay asks
// no model: llm slots get a stand-in service and conditions a stand-in
// judge, neither ever called (every answer comes from the journal), so a
// run that used a model replays without one configured.
func (j *runJournal) prepare(opts *patterns.RunOptions) {
	if j == nil || j.f.replay == "" {
		return
	}
	opts.ModelJudge, opts.ModelJudgeFor = replayModel{}, nil
	if opts.Env != nil {
		opts.Env.LLM = func(b *patterns.SlotBinding) (patterns.Service, error) {
			return &patterns.FuncService{Name: b.Name, Fn: replayModel{}.Call}, nil
		}
	}
}

// replayModel stands in for a model during a replay.
type replayModel struct{}

var errReplayModel = errors.New("a replay asks no model: this answer is not in the journal")

func (replayModel) Judge(context.Context, *delegation.Judgment) (delegation.Verdict, error) {
	return delegation.Verdict{}, errReplayModel
}

func (replayModel) Call(context.Context, *delegation.CallRequest) (delegation.Value, error) {
	return nil, errReplayModel
}
