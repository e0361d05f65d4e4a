// Command prose-full is prose with every command but the Temporal
// engine's (those it hands to prose-temporal). The program prose serves
// lint and version itself and hands every other command to prose-full,
// so that a lint on every save does not pay for the start-up of what runs
// specs (see internal/lintcli). go install ./cmd/... installs it beside
// prose.
package main

import (
	"os"

	"github.com/proselang/prose/internal/cli"
	"github.com/proselang/prose/internal/startheap"
)

func main() {
	// Most of its commands finish within a few tens of MiB of heap:
	// they run without a collection (see startheap).
	startheap.Room(32<<20, os.Getenv)
	cli.Run(nil)
}
