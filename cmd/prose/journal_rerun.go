package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/journal"
)

// rerunOptions are the flags of `prose resume` and `prose replay`.
type rerunOptions struct {
	runDir string
	force  bool
	trace  string
	// Overrides of journaled --slot/--config/--input values (needed for
	// the ones withheld as secrets).
	slots, configs, inputs []string
	inputJSON              string
	quiet                  bool
	// Replacements of the journaled --base-url and --model.
	baseURL, model string
}

func addRerunFlags(cmd *cobra.Command, o *rerunOptions, resume bool) {
	fl := cmd.Flags()
	fl.StringVar(&o.runDir, "run-dir", defaultRunDir, "directory `DIR` holding run journals")
	fl.StringVar(&o.trace, "trace", "", "write a JSON-lines trace of this re-run to `FILE` (the journaled run's own --trace is not reused)")
	fl.StringArrayVar(&o.slots, "slot", nil, "bind slot `NAME=BINDING` instead of the journaled binding (repeat for a list slot)")
	fl.StringArrayVar(&o.configs, "config", nil, "set config `KEY=VALUE` instead of the journaled value")
	fl.StringArrayVar(&o.inputs, "input", nil, "set input `KEY=VALUE` instead of the journaled value")
	fl.StringVar(&o.inputJSON, "input-json", "", "set inputs from a `JSON` object instead of the journaled --input-json")
	fl.StringVar(&o.baseURL, "base-url", "", "use the OpenAI-compatible API at `URL` instead of the journaled --base-url")
	fl.StringVar(&o.model, "model", "", "use `MODEL` instead of the journaled --model")
	fl.BoolVarP(&o.quiet, "quiet", "q", false, "print no progress lines (the run id and errors still go to stderr)")
	if resume {
		fl.BoolVar(&o.force, "force", false, "go on although the spec changed or a call diverges from the journal (diverging calls run live)")
	}
}

// rerun re-executes the journaled command line of run id through `prose
// run`, in the run's working directory, with the journal in resume or
// replay mode.
func rerun(ctx context.Context, s streams, id string, mode journal.Mode, o *rerunOptions) error {
	base, err := filepath.Abs(o.runDir)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if id, err = resolveRunID(base, o.runDir, id, mode); err != nil {
		return err
	}
	l, err := journal.ReadFile(filepath.Join(base, id, journal.FileName))
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("%s: %w", mode, err)}
	}
	argv, err := rerunArgv(l.Argv(), base, id, mode, o)
	if err != nil {
		return err
	}
	if dir := l.Header.Dir; dir != "" {
		if err := os.Chdir(dir); err != nil {
			return &exitError{code: exitFailure, err: fmt.Errorf("%s %s: the run's directory: %w", mode, id, err)}
		}
	}
	if sp := l.Header.Spec; filepath.IsAbs(sp) {
		if _, err := os.Stat(sp); err != nil {
			return &exitError{code: exitFailure, err: fmt.Errorf("%s %s: %w", mode, id, &journal.SpecChangedError{Spec: sp, Unreadable: err})}
		}
	}
	run := newRunCmd(s)
	run.SilenceErrors, run.SilenceUsage = true, true
	run.SetArgs(argv)
	run.SetIn(s.in)
	run.SetOut(s.out)
	run.SetErr(s.err)
	err = run.ExecuteContext(ctx)
	if missing := stillRedacted(argv); err != nil && mode == journal.Replaying && len(missing) > 0 {
		err = withheldHint(err, id, missing)
	}
	return err
}

// withheldHint adds to a failed replay's error that values were withheld
// from the journal as secrets: a call that used one cannot match its
// journaled arguments until the value is given again.
func withheldHint(err error, id string, missing []string) error {
	code := exitFailure
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err == nil {
			return err
		}
		code = ee.code
	}
	return &exitError{code: code, err: fmt.Errorf("%w; %s not journaled because it looked like a secret, and a call that used it differs until it is given again, e.g. prose replay %s --%s",
		err, strings.Join(missing, ", "), id, missing[0]+"=...")}
}

// rerunArgv is the `prose run` command line of a resume or a replay: the
// journaled one with o's overrides, o's trace file, and the journal flags.
func rerunArgv(journaled []string, base, id string, mode journal.Mode, o *rerunOptions) ([]string, error) {
	argv, err := overrideArgv(journaled, o)
	if err != nil {
		return nil, usageErrorf("%s %s: %v", mode, id, err)
	}
	if mode == journal.Replaying {
		argv = dropRedactedPlain(argv)
	}
	if missing := stillRedacted(argv); len(missing) > 0 && mode == journal.Resuming {
		return nil, usageErrorf("resume %s: %s not journaled because it looked like a secret; pass it again, e.g. prose resume %s --%s",
			id, strings.Join(missing, ", "), id, missing[0]+"=...")
	}
	if o.trace != "" {
		t, err := filepath.Abs(o.trace)
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		argv = append(argv, "--trace="+t)
	}
	if o.quiet {
		argv = append(argv, "--quiet")
	}
	argv = append(argv, "--run-dir="+base)
	if mode == journal.Replaying {
		argv = append(argv, "--journal-replay="+id)
	} else {
		argv = append(argv, "--journal-resume="+id)
	}
	if o.force {
		argv = append(argv, "--journal-force")
	}
	return argv, nil
}

// overrideArgv replaces the journaled values of the --slot, --config and
// --input keys that o sets again (every journaled entry of that key: a
// list slot is given again whole).
func overrideArgv(argv []string, o *rerunOptions) ([]string, error) {
	repl := map[string][]string{} // "slot advancer" -> new flag values
	for flag, vals := range map[string][]string{"slot": o.slots, "config": o.configs, "input": o.inputs} {
		for _, v := range vals {
			k, _, ok := strings.Cut(v, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("--%s %q: want KEY=VALUE", flag, v)
			}
			repl[flag+" "+k] = append(repl[flag+" "+k], "--"+flag+"="+v)
		}
	}
	var out []string
	if o.inputJSON != "" {
		out = append(out, "--input-json="+o.inputJSON)
	}
	plain := map[string]string{"base-url": o.baseURL, "model": o.model}
	for _, name := range []string{"base-url", "model"} {
		if plain[name] != "" {
			out = append(out, "--"+name+"="+plain[name])
		}
	}
	done := map[string]bool{}
	for _, a := range argv {
		if o.inputJSON != "" && strings.HasPrefix(a, "--input-json=") {
			continue
		}
		if name, _, ok := strings.Cut(strings.TrimPrefix(a, "--"), "="); ok && plain[name] != "" && strings.HasPrefix(a, "--") {
			continue
		}
		key := argKey(a)
		if nv, ok := repl[key]; ok {
			if !done[key] {
				out = append(out, nv...)
				done[key] = true
			}
			continue
		}
		out = append(out, a)
	}
	// Keys the run did not set go first, in a fixed order, so the same
	// resume journals the same command line.
	var added []string
	for _, key := range slices.Sorted(maps.Keys(repl)) {
		if !done[key] {
			added = append(added, repl[key]...)
		}
	}
	return append(added, out...), nil
}

// argKey is "slot NAME" for --slot=NAME=..., likewise for config and
// input; "" otherwise.
func argKey(a string) string {
	for _, flag := range []string{"slot", "config", "input"} {
		if rest, ok := strings.CutPrefix(a, "--"+flag+"="); ok {
			k, _, _ := strings.Cut(rest, "=")
			return flag + " " + k
		}
	}
	return ""
}

// dropRedactedPlain removes a withheld --base-url or --model from a
// replay's command line: a replay asks no model, so it needs neither, and
// the placeholder is no URL.
func dropRedactedPlain(argv []string) []string {
	out := argv[:0:0]
	for _, a := range argv {
		if a == "--base-url="+journal.Redacted || a == "--model="+journal.Redacted {
			continue
		}
		out = append(out, a)
	}
	return out
}

// stillRedacted lists the arguments whose value was withheld from the
// journal and not given again ("slot advancer").
func stillRedacted(argv []string) []string {
	var out []string
	for _, a := range argv {
		if !strings.HasSuffix(a, "="+journal.Redacted) {
			continue
		}
		if k := argKey(a); k != "" {
			out = append(out, k)
		} else {
			name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			out = append(out, name)
		}
	}
	return out
}
