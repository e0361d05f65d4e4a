package cli

import (
	"errors"
	"os"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/internal/temporalport"
	"github.com/proselang/prose/run"
)

// linked is the Temporal engine of this program: nil in prose, which
// hands the Temporal engine's commands to prose-temporal (see engine.go);
// the engine itself in prose-temporal, which passes it to Run.
var linked temporalport.Link

// errEngineNotLinked is what a Temporal command run without Main (which
// hands it over before building the command tree) fails with.
var errEngineNotLinked = &exitError{Code: exitFailure, Err: errors.New("this prose was built without the Temporal engine: run the command with " + temporalProgram)}

// temporalEngine is the Temporal engine of the flags' connection.
func (t *temporalFlags) temporalEngine() (run.Engine, error) {
	if linked == nil {
		return nil, errEngineNotLinked
	}
	conn, err := temporalConn(t.conn, "--engine temporal")
	if err != nil {
		return nil, err
	}
	return linked.Engine(conn, t.workflowID, t.attach), nil
}

// runOnTemporal runs FILE on eng when it is the Temporal engine, and
// reports whether it was.
func runOnTemporal(cmd *cobra.Command, s streams, o *runOptions, tf *temporalFlags, eng run.Engine, file string) (bool, error) {
	te, ok := eng.(temporalport.Engine)
	if linked == nil || !ok {
		return false, nil
	}
	req, err := o.request(cmd.Context(), file)
	if err != nil {
		return true, err
	}
	return true, runTemporal(cmd, s, te, tf.detach, req, o.quiet)
}

// temporalConn is the connection of the flags completed from the
// environment (PROSE_TEMPORAL_*), refused when no address is given; what
// names the command for the message.
func temporalConn(flags connFlags, what string) (temporalport.Conn, error) {
	c := linked.ConnFromEnv(temporalport.Conn{Address: flags.Address, Namespace: flags.Namespace, TaskQueue: flags.TaskQueue}, os.Getenv)
	if c.Address == "" {
		return c, usageErrorf("%s needs --temporal-address HOST:PORT (or $%s)", what, envTemporalAddress)
	}
	return c, nil
}

// handedOff is a command that only prose-temporal serves: listed in
// prose's help, and handed over whole by Main.
func handedOff(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:                use,
		Short:              short,
		Long:               short + ".\n\nServed by " + temporalProgram + ", the prose built with the Temporal engine, which prose starts with the same arguments.",
		DisableFlagParsing: true,
		RunE:               func(*cobra.Command, []string) error { return errEngineNotLinked },
	}
}
