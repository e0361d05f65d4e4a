package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/temporal"
)

// temporalFlags are the connection flags every Temporal-facing command
// takes, and the engine choice of `prose run`.
type temporalFlags struct {
	engine     string
	conn       temporal.Conn
	detach     bool
	workflowID string
	attach     bool
}

// addConnFlags adds --temporal-address, --namespace and --task-queue.
func addConnFlags(cmd *cobra.Command, c *temporal.Conn) {
	fl := cmd.Flags()
	fl.StringVar(&c.Address, "temporal-address", "", "Temporal frontend `HOST:PORT` (default $"+temporal.EnvAddress+")")
	fl.StringVar(&c.Namespace, "namespace", "", "Temporal `NAMESPACE` (default $"+temporal.EnvNamespace+", else default)")
	fl.StringVar(&c.TaskQueue, "task-queue", "", "Temporal task `QUEUE` of the workers (default $"+temporal.EnvTaskQueue+", else "+temporal.DefaultTaskQueue+")")
}

// addTemporalFlags adds the engine flags to `prose run`.
func addTemporalFlags(cmd *cobra.Command) *temporalFlags {
	t := &temporalFlags{}
	fl := cmd.Flags()
	fl.StringVar(&t.engine, "engine", "local", "run on the `ENGINE` local (this process) or temporal (workers of a Temporal cluster)")
	addConnFlags(cmd, &t.conn)
	fl.BoolVar(&t.detach, "detach", false, "with --engine temporal: print the run's workflow id and return; prose result ID waits for it")
	fl.StringVar(&t.workflowID, "workflow-id", "", "with --engine temporal: the workflow `ID` of the run (default: one the server makes); a running workflow of that id is refused (exit 2) unless --attach")
	fl.BoolVar(&t.attach, "attach", false, "with --workflow-id: when that workflow is running, wait for its result instead of refusing")
	return t
}

// pick is the engine --engine names: run.Local, or a *temporal.Engine
// on the connection of the flags and the environment. A bad --engine, a
// Temporal-only flag without it, or a local-only flag with it is a usage
// error.
func (t *temporalFlags) pick(cmd *cobra.Command) (run.Engine, error) {
	switch t.engine {
	case "temporal":
		// The local engine's records have no meaning here: the run's
		// history is kept by Temporal. --no-journal is accepted (it is
		// what happens anyway).
		for _, name := range []string{"trace", "run-dir", "journal-sync"} {
			if cmd.Flags().Changed(name) {
				return nil, usageErrorf("--%s does not apply to --engine temporal: the run's history is kept by the Temporal cluster", name)
			}
		}
		if cmd.Flags().Changed("base-url") {
			return nil, usageErrorf("--base-url does not apply to --engine temporal: workers call the model server they are configured with (prose worker --base-url, or OPENAI_BASE_URL where they run)")
		}
		if t.attach && t.workflowID == "" {
			return nil, usageErrorf("--attach needs --workflow-id: it names the running workflow to wait for")
		}
		conn, err := temporalConn(t.conn, "--engine temporal")
		if err != nil {
			return nil, err
		}
		return &temporal.Engine{Conn: conn, WorkflowID: t.workflowID, Attach: t.attach}, nil
	case "local", "":
		for _, name := range []string{"temporal-address", "namespace", "task-queue", "detach", "workflow-id", "attach"} {
			if cmd.Flags().Changed(name) {
				return nil, usageErrorf("--%s needs --engine temporal", name)
			}
		}
		return run.Local{}, nil
	}
	return nil, usageErrorf("--engine %q: use local or temporal", t.engine)
}

// runTemporal is `prose run --engine temporal`: the engine resolves the
// request here (so that a bad spec or binding exits 2 before anything
// starts), starts the workflow and, unless detached, waits for its
// result. Ctrl-C while waiting cancels the run.
func runTemporal(cmd *cobra.Command, s streams, eng *temporal.Engine, detach bool, req run.Request, quiet bool) error {
	ctx := cmdContext(cmd)
	ro := run.Options{ContractCheck: lint.Contract, Notify: notices(s.err, quiet, nil)}
	if detach {
		id, err := eng.Start(ctx, req, ro)
		if err != nil {
			return temporalOutcome(ctx, s, nil, err)
		}
		fmt.Fprintln(s.out, id)
		return nil
	}
	var e run.Engine = eng
	res, err := e.Run(ctx, req, ro)
	var v delegation.Value
	if res != nil {
		v = res.Value
	}
	return temporalOutcome(ctx, s, v, err)
}

func queueName(c temporal.Conn) string {
	if c.TaskQueue == "" {
		return temporal.DefaultTaskQueue
	}
	return c.TaskQueue
}

// waitAndPrint waits for run id and prints its result like a local run.
// Ctrl-C only stops waiting.
func waitAndPrint(ctx context.Context, s streams, cl client.Client, id string) error {
	v, err := temporal.Wait(ctx, cl, id)
	return temporalOutcome(ctx, s, v, err)
}

// temporalOutcome prints the outcome of a run on Temporal like that of a
// local run (the value as JSON on stdout; an error on stderr with exit 1,
// or 2 for a request that does not bind, 130 when interrupted or
// cancelled).
func temporalOutcome(ctx context.Context, s streams, v delegation.Value, err error) error {
	if ctx.Err() != nil {
		return &exitError{code: exitInterrupt, err: errors.New("interrupted")}
	}
	if err != nil {
		var re *temporal.RunError
		switch {
		case errors.As(err, new(*temporal.AlreadyRunningError)), errors.As(err, new(*temporal.UnknownRunError)):
			// a workflow id that names the wrong run, or none: exit 2,
			// as runs show of an unknown id
			return &exitError{code: exitUsage, err: err}
		case errors.As(err, &re):
			// the run's failure on the cluster: its run.Code decides, as
			// for a local run
			switch run.CodeOf(err) {
			case run.CodeUsage, run.CodeInvalidSpec:
				return &exitError{code: exitUsage, err: re}
			case run.CodeCanceled:
				return &exitError{code: exitInterrupt, err: re}
			}
			if errors.As(err, new(*delegation.Error)) {
				// printed with the call path and advice of a local run
				return runError(ctx, s.err, err)
			}
			fmt.Fprintln(s.err, re.Msg)
			return &exitError{code: exitFailure}
		case run.CodeOf(err) == run.CodeUsage, run.CodeOf(err) == run.CodeInvalidSpec:
			return runError(ctx, s.err, err)
		}
		return &exitError{code: exitFailure, err: err}
	}
	return printResult(ctx, s.out, v)
}

// newResultCmd is `prose result ID`.
func newResultCmd(s streams) *cobra.Command {
	var conn temporal.Conn
	cmd := &cobra.Command{
		Use:   "result WORKFLOW-ID",
		Short: "Wait for a run started with --engine temporal and print its result",
		Long: `result waits for the run with the given workflow id (printed by
prose run --engine temporal --detach) and prints its result as prose run
would: the value as JSON on stdout, or the error on stderr. Ctrl-C stops
waiting; the run goes on.

Exit status: 0 the run finished, 1 it failed, 2 bad usage, an id that
names no run, or a run whose request did not bind, 130 interrupted or the
run was cancelled.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmdContext(cmd)
			c, err := temporalConn(conn, "result")
			if err != nil {
				return err
			}
			cl, err := temporal.Dial(ctx, c)
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			defer cl.Close()
			return waitAndPrint(ctx, s, cl, args[0])
		},
	}
	addConnFlags(cmd, &conn)
	return cmd
}

// temporalConn is conn completed from the environment (PROSE_TEMPORAL_*),
// refused when no address is given; what names the command for the message.
func temporalConn(conn temporal.Conn, what string) (temporal.Conn, error) {
	c := temporal.ConnFromEnv(conn, os.Getenv)
	if c.Address == "" {
		return c, usageErrorf("%s needs --temporal-address HOST:PORT (or $%s)", what, temporal.EnvAddress)
	}
	return c, nil
}

// cmdContext is the command's context (Ctrl-C cancels it), or a
// background one for a command run without Main.
func cmdContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
