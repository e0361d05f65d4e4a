// Command prose loads OpenProse pattern specs (*.prose.md), checks them and
// runs their Delegation pseudocode with slots bound to real services.
//
// It serves prose lint and prose version itself (package lintcli), which
// start fast, and hands every other command, whole, to prose-full (the
// whole command line, package cli), which hands the Temporal engine's to
// prose-temporal: go install ./cmd/... installs the three side by side.
//
// It is also the watchdog of the programs prose-full and prose-temporal
// start (package procgroup): a program that starts in a fraction of
// their time.
package main

import (
	"os"

	"github.com/proselang/prose/internal/lintcli"
	"github.com/proselang/prose/internal/procgroup"
)

func main() {
	// Started as the watchdog of another prose, it runs as one and
	// exits here.
	procgroup.Watchdog()
	args := os.Args[1:]
	if lintcli.Serves(args) {
		os.Exit(lintcli.Main(args, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(lintcli.HandOff(args, os.Stdin, os.Stdout, os.Stderr))
}
