//go:build temporal

package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/run"
	"github.com/proselang/prose/temporal"
)

// temporalLinked: this prose serves the Temporal engine's commands itself.
const temporalLinked = true

// temporalEngine is the Temporal engine of the flags' connection.
func (t *temporalFlags) temporalEngine() (run.Engine, error) {
	conn, err := temporalConn(t.conn, "--engine temporal")
	if err != nil {
		return nil, err
	}
	return &temporal.Engine{Conn: conn, WorkflowID: t.workflowID, Attach: t.attach}, nil
}

// runOnTemporal runs FILE on eng when it is the Temporal engine, and
// reports whether it was.
func runOnTemporal(cmd *cobra.Command, s streams, o *runOptions, tf *temporalFlags, eng run.Engine, file string) (bool, error) {
	te, ok := eng.(*temporal.Engine)
	if !ok {
		return false, nil
	}
	req, err := o.request(file)
	if err != nil {
		return true, err
	}
	return true, runTemporal(cmd, s, te, tf.detach, req, o.quiet)
}

// temporalConn is the connection of the flags completed from the
// environment (PROSE_TEMPORAL_*), refused when no address is given; what
// names the command for the message.
func temporalConn(flags connFlags, what string) (temporal.Conn, error) {
	c := temporal.ConnFromEnv(temporal.Conn{Address: flags.Address, Namespace: flags.Namespace, TaskQueue: flags.TaskQueue}, os.Getenv)
	if c.Address == "" {
		return c, usageErrorf("%s needs --temporal-address HOST:PORT (or $%s)", what, temporal.EnvAddress)
	}
	return c, nil
}
