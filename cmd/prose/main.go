// Command prose loads OpenProse pattern specs (*.prose.md), checks them and
// runs their Delegation pseudocode with slots bound to real services.
//
// It serves prose lint and prose version itself (package lintcli), which
// start fast, and hands every other command, whole, to prose-full (the
// whole command line, package cli), which hands the Temporal engine's to
// prose-temporal: go install ./cmd/... installs the three side by side.
package main

import (
	"os"

	"github.com/proselang/prose/internal/lintcli"
)

func main() {
	args := os.Args[1:]
	if lintcli.Serves(args) {
		os.Exit(lintcli.Main(args, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(lintcli.HandOff(args, os.Stdin, os.Stdout, os.Stderr))
}
