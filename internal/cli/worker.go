package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/internal/temporalport"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/store"
)

// newWorkerCmd is `prose worker`.
func newWorkerCmd(s streams) *cobra.Command {
	if linked == nil {
		return handedOff("worker [--temporal-address HOST:PORT] [--namespace NS] [--task-queue Q]", "Serve runs started with --engine temporal: the workflows and their calls")
	}
	var conn connFlags
	var maxCalls, maxRuns int
	var renderTimeout time.Duration
	var model, baseURL string
	cmd := &cobra.Command{
		Use:   "worker [--temporal-address HOST:PORT] [--namespace NS] [--task-queue Q]",
		Short: "Serve runs started with --engine temporal: the workflows and their calls",
		Long: `worker connects to a Temporal cluster and runs, for the runs on its task
queue, both the Delegation (the workflow) and its calls (activities):
exec: programs run here, in this directory, with this process's
environment; llm slots, functions and responsibilities rendered by a
model, and conditions that need one call the model configured here
(--model or PROSE_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL).
A program a binding names that this machine lacks fails the run with an
error naming it. Start as many workers as you like, on as many machines;
a run survives the loss of any of them. Ctrl-C stops the worker (its
calls in flight are stopped and taken over by another worker).

It also serves the graphs of prose serve --engine temporal: their
workflows, and the render and commit of each node, which read the
project and write the state directory at the paths the server gave
(a filesystem every worker shares).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmdContext(cmd)
			c, err := temporalConn(conn, "worker")
			if err != nil {
				return err
			}
			if maxCalls < 0 || maxRuns < 0 {
				return usageErrorf("--max-concurrent-calls and --max-concurrent-runs must not be negative")
			}
			acts, err := workerActivities(model, baseURL)
			if err != nil {
				return usageErrorf("%v", err)
			}
			c.Log = s.err
			cl, err := linked.Dial(ctx, c)
			if err != nil {
				return &exitError{Code: exitFailure, Err: err}
			}
			defer cl.Close()
			w := cl.Worker(c, acts, temporalport.WorkerOptions{MaxConcurrentCalls: maxCalls, MaxConcurrentRuns: maxRuns}, func(wd temporalport.World) (*temporalport.Project, error) {
				return openServed(wd, &runOptions{model: model, baseURL: baseURL, renderTimeout: renderTimeout})
			})
			if err := w.Start(); err != nil {
				return &exitError{Code: exitFailure, Err: fmt.Errorf("starting the worker: %v", err)}
			}
			fmt.Fprintf(s.err, "prose: worker serving task queue %s at %s\n", queueName(c), c.Address)
			<-ctx.Done()
			w.Stop()
			return nil
		},
	}
	addConnFlags(cmd, &conn)
	fl := cmd.Flags()
	fl.IntVar(&maxCalls, "max-concurrent-calls", 0, "run at most `N` calls (programs, model requests) at once (0: the SDK's default, 1000)")
	fl.IntVar(&maxRuns, "max-concurrent-runs", 0, "run at most `N` workflow tasks at once (0: the SDK's default)")
	fl.StringVar(&model, "model", "", "`MODEL` for llm slots and conditions (default $PROSE_MODEL)")
	fl.StringVar(&baseURL, "base-url", "", "OpenAI-compatible API base `URL` (default $OPENAI_BASE_URL)")
	addRenderTimeoutFlag(cmd, &renderTimeout, "for a graph of prose serve --engine temporal: ")
	return cmd
}

// openServed opens the World of a serve workflow on this worker: its
// graph, its render bindings (with this worker's model settings), the
// shared store and the signing key.
func openServed(w temporalport.World, ro *runOptions) (*temporalport.Project, error) {
	g, diags, err := loadWorld(w.Project)
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, errors.New(strings.TrimSpace(diags.String()))
	}
	b, err := worldDrain(g, w.Slots, ro)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(w.State)
	if err != nil {
		return nil, err
	}
	b.State = w.State
	if st.Trusted, err = trustedKey(""); err != nil {
		return nil, err
	}
	p := &temporalport.Project{Graph: g, Store: st, Drain: b}
	if w.SignKey != "" {
		if p.SignKey, err = readSignKey(w.SignKey); err != nil {
			return nil, fmt.Errorf("--sign-key %s: %v", w.SignKey, err)
		}
	}
	return p, nil
}

// workerActivities builds the activities with this machine's model
// configuration (run.Models, as a local run builds it): flags, then
// PROSE_MODEL, OPENAI_API_KEY and OPENAI_BASE_URL. Without a model, llm
// slots and conditions that need one fail with an error saying so.
func workerActivities(model, baseURL string) (temporalport.Activities, error) {
	mods, err := run.NewModels(os.Getenv, model, baseURL)
	if err != nil {
		return temporalport.Activities{}, err
	}
	a := temporalport.Activities{LLM: mods.SlotService, Render: mods.RenderService}
	if c := mods.Configured(); c != nil {
		a.ModelJudgeFor = func(sp *spec.Spec) delegation.Judge {
			return llm.NewModelJudge(c, llm.JudgeOptions{Pattern: sp.Name, Invariants: sp.Invariants})
		}
	}
	return a, nil
}
