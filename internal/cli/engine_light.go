//go:build !temporal

package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/run"
	"github.com/proselang/prose/serve"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/store"
)

// temporalLinked: this prose hands the Temporal engine's commands to
// prose-temporal (see engine.go).
const temporalLinked = false

// errEngineNotLinked is what a Temporal command run without Main (which
// hands it over before building the command tree) fails with.
var errEngineNotLinked = &exitError{code: exitFailure, err: errors.New("this prose was built without the Temporal engine: run the command with " + temporalProgram)}

func (t *temporalFlags) temporalEngine() (run.Engine, error) { return nil, errEngineNotLinked }

func runOnTemporal(*cobra.Command, streams, *runOptions, *temporalFlags, run.Engine, string) (bool, error) {
	return false, nil
}

func serveTemporal(context.Context, streams, *serveOptions, *graph.Graph, *store.Store, string, func(*serve.Outcome)) error {
	return errEngineNotLinked
}

func answerTemporal(context.Context, streams, *cobra.Command, *temporalAnswer, string, string, *answerOptions) error {
	return errEngineNotLinked
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

func newWorkerCmd(streams) *cobra.Command {
	return handedOff("worker [--temporal-address HOST:PORT] [--namespace NS] [--task-queue Q]", "Serve runs started with --engine temporal: the workflows and their calls")
}

func newResultCmd(streams) *cobra.Command {
	return handedOff("result WORKFLOW-ID", "Wait for a run started with --engine temporal and print its result")
}

func newTemporalCmd(streams) *cobra.Command {
	return handedOff("temporal", "Tools for operators of a Temporal cluster running prose (codec-server)")
}
