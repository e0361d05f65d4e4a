package lintcli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/proselang/prose/internal/handoff"
)

// FullProgram is the program that serves every command (package cli
// without the Temporal engine), to which prose hands the commands this
// package does not serve.
const FullProgram = "prose-full"

// HandedOffEnv marks the environment of the prose-full that prose
// starts; prose-full drops it (see cli.Run). A prose that finds it set
// was itself started as prose-full: a prose installed under that name,
// which would otherwise hand the command to itself forever.
const HandedOffEnv = "PROSE_HANDED_OFF_FULL"

// HandOff runs args with prose-full and returns its exit code, or fails
// (exit 1) saying how to install it when there is none. On Unix the
// process becomes prose-full and HandOff returns only when that fails;
// elsewhere prose-full runs as a child with these standard files, and the
// first interrupt is passed on.
func HandOff(args []string, in io.Reader, out, errw io.Writer) int {
	if os.Getenv(HandedOffEnv) != "" {
		fmt.Fprintf(errw, "prose: %s was started as %s but is prose, which hands %s to %s: install %s from github.com/proselang/prose/cmd/%s (go install ./cmd/... in a checkout of prose)\n",
			executable(), FullProgram, commandName(args), FullProgram, FullProgram, FullProgram)
		return ExitFailure
	}
	path, err := handoff.Find(FullProgram)
	if err != nil {
		fmt.Fprintf(errw, "prose: %s is served by %s, found neither in %s nor on PATH.\n"+
			"Install it beside prose with: go install github.com/proselang/prose/cmd/...@latest\n"+
			"(or, in a checkout of prose: go install ./cmd/...; both install prose, %s and prose-temporal)\n",
			commandName(args), FullProgram, handoff.Dir(), FullProgram)
		return ExitFailure
	}
	env := []string{HandedOffEnv + "=1"}
	if handoff.Replaces {
		err := handoff.Exec(path, args, env)
		fmt.Fprintf(errw, "prose: starting %s: %v\n", path, err)
		return ExitFailure
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return handoff.Run(ctx, path, args, env, in, out, errw)
}

func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return FullProgram
	}
	return exe
}

// commandName is "prose run", "prose", ...: the command args name, for
// the messages of a failed hand-off.
func commandName(args []string) string {
	for _, a := range args {
		if len(a) > 0 && a[0] != '-' {
			return "prose " + a
		}
	}
	return "prose"
}
