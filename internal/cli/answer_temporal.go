package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	gatepkg "github.com/proselang/prose/gate"
)

// answerTemporal signals the answer to a run waiting on Temporal.
func answerTemporal(ctx context.Context, s streams, cmd *cobra.Command, t *temporalAnswer, id, gate string, o *answerOptions) error {
	if linked == nil {
		return errEngineNotLinked
	}
	if t.engine != "temporal" {
		return usageErrorf("--engine %q: use local or temporal", t.engine)
	}
	if cmd.Flags().Changed("run-dir") {
		return usageErrorf("--run-dir does not apply to --engine temporal: the run waits on the cluster")
	}
	conn, err := temporalConn(t.conn, "answer --engine temporal")
	if err != nil {
		return err
	}
	cl, err := linked.Dial(ctx, conn)
	if err != nil {
		return &exitError{Code: exitFailure, Err: err}
	}
	defer cl.Close()
	val, err := o.answerValue()
	if err != nil {
		return err
	}
	if val == nil {
		gates, err := cl.Gates(ctx, id)
		if err != nil {
			return &exitError{Code: exitFailure, Err: err}
		}
		for _, g := range gates {
			fmt.Fprintf(s.out, "%s %s: %s\n", g.Kind, g.Gate, question(g.Question))
		}
		return nil
	}
	g, err := cl.Answer(ctx, id, gate, val)
	var ae *gatepkg.AnswerError
	if errors.As(err, &ae) {
		return &exitError{Code: exitUsage, Err: err}
	}
	if err != nil {
		return &exitError{Code: exitFailure, Err: err}
	}
	fmt.Fprintf(s.err, "prose: answered %s %s of run %s; it goes on\n", g.Kind, g.Gate, id)
	return nil
}
