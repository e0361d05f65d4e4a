package cli

import (
	"context"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/run"
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
	otel           otelFlags
}

func addRerunFlags(cmd *cobra.Command, o *rerunOptions, resume bool) {
	fl := cmd.Flags()
	fl.StringVar(&o.runDir, "run-dir", run.DefaultRunDir, "directory `DIR` holding run journals")
	fl.StringVar(&o.trace, "trace", "", "write a JSON-lines trace of this re-run to `FILE` (the journaled run's own --trace is not reused)")
	fl.StringArrayVar(&o.slots, "slot", nil, "bind slot `NAME=BINDING` instead of the journaled binding (repeat for a list slot)")
	fl.StringArrayVar(&o.configs, "config", nil, "set config `KEY=VALUE` instead of the journaled value")
	fl.StringArrayVar(&o.inputs, "input", nil, "set input `KEY=VALUE` instead of the journaled value")
	fl.Var(&onceString{p: &o.inputJSON}, "input-json", "set inputs from a `JSON` object instead of the journaled --input-json")
	fl.StringVar(&o.baseURL, "base-url", "", "use the OpenAI-compatible API at `URL` instead of the journaled --base-url")
	fl.StringVar(&o.model, "model", "", "use `MODEL` instead of the journaled --model")
	fl.BoolVarP(&o.quiet, "quiet", "q", false, "print no progress lines (the run id and errors still go to stderr)")
	addOtelFlags(cmd, &o.otel)
	if resume {
		fl.BoolVar(&o.force, "force", false, "go on although the spec changed or a call diverges from the journal (diverging calls run live)")
	}
}

// rerun resumes or replays run id through the run package: the run is
// rebuilt from its journaled request, with the values given again.
func rerun(ctx context.Context, s streams, id string, mode journal.Mode, o *rerunOptions) error {
	base, err := filepath.Abs(o.runDir)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if id, err = resolveRunID(base, o.runDir, id, mode); err != nil {
		return err
	}
	var ov run.Overrides
	if ov.Bindings.Slots, err = bind.ParseAssignments("--slot", o.slots); err != nil {
		return &exitError{Code: exitUsage, Err: err}
	}
	if ov.Bindings.Config, err = bind.ParseAssignments("--config", o.configs); err != nil {
		return &exitError{Code: exitUsage, Err: err}
	}
	if ov.Bindings.Inputs, err = bind.ParseAssignments("--input", o.inputs); err != nil {
		return &exitError{Code: exitUsage, Err: err}
	}
	ov.Bindings.InputJSON, ov.Model, ov.BaseURL = o.inputJSON, o.model, o.baseURL
	ro := run.Options{RunDir: base, SyncEvery: 100 * time.Millisecond, ContractCheck: lint.Contract, Force: o.force, Overrides: ov}
	endSpans, err := o.otel.open(ctx, &ro, s.err)
	if err != nil {
		return err
	}
	defer endSpans()
	return execute(ctx, s, o.trace, o.quiet, ro, func(ctx context.Context, ro run.Options) (*run.Result, error) {
		if mode == journal.Replaying {
			return run.Replay(ctx, id, ro)
		}
		return run.Resume(ctx, id, ro)
	})
}
