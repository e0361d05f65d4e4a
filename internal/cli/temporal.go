package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/internal/temporalport"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/run"
)

// runTemporal is `prose run --engine temporal`: the engine resolves the
// request here (so that a bad spec or binding exits 2 before anything
// starts), starts the workflow and, unless detached, waits for its
// result. Ctrl-C while waiting cancels the run.
func runTemporal(cmd *cobra.Command, s streams, eng temporalport.Engine, detach bool, req run.Request, quiet bool) error {
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

func queueName(c temporalport.Conn) string {
	if c.TaskQueue == "" {
		return defaultTaskQueue
	}
	return c.TaskQueue
}

// waitAndPrint waits for run id and prints its result like a local run.
// Ctrl-C only stops waiting.
func waitAndPrint(ctx context.Context, s streams, cl temporalport.Client, id string) error {
	v, err := cl.Wait(ctx, id)
	return temporalOutcome(ctx, s, v, err)
}

// temporalOutcome prints the outcome of a run on Temporal like that of a
// local run (the value as JSON on stdout; an error on stderr with exit 1,
// or 2 for a request that does not bind, 130 when interrupted or
// cancelled).
func temporalOutcome(ctx context.Context, s streams, v delegation.Value, err error) error {
	if ctx.Err() != nil {
		return &exitError{Code: exitInterrupt, Err: errors.New("interrupted")}
	}
	if err != nil {
		msg, re := linked.RunFailure(err)
		switch {
		case linked.WrongRun(err):
			// a workflow id that names the wrong run, or none: exit 2,
			// as runs show of an unknown id
			return &exitError{Code: exitUsage, Err: err}
		case re != nil:
			// the run's failure on the cluster: its run.Code decides, as
			// for a local run
			switch run.CodeOf(err) {
			case run.CodeUsage, run.CodeInvalidSpec:
				return &exitError{Code: exitUsage, Err: re}
			case run.CodeCanceled:
				return &exitError{Code: exitInterrupt, Err: re}
			}
			if errors.As(err, new(*delegation.Error)) {
				// printed with the call path and advice of a local run
				return runError(ctx, s.err, err)
			}
			fmt.Fprintln(s.err, msg)
			return &exitError{Code: exitFailure}
		case run.CodeOf(err) == run.CodeUsage, run.CodeOf(err) == run.CodeInvalidSpec:
			return runError(ctx, s.err, err)
		}
		return &exitError{Code: exitFailure, Err: err}
	}
	return printResult(ctx, s.out, v)
}

// newResultCmd is `prose result ID`.
func newResultCmd(s streams) *cobra.Command {
	if linked == nil {
		return handedOff("result WORKFLOW-ID", "Wait for a run started with --engine temporal and print its result")
	}
	var conn connFlags
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
			cl, err := linked.Dial(ctx, c)
			if err != nil {
				return &exitError{Code: exitFailure, Err: err}
			}
			defer cl.Close()
			return waitAndPrint(ctx, s, cl, args[0])
		},
	}
	addConnFlags(cmd, &conn)
	return cmd
}
