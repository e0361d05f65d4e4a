// Command prose-temporal is prose with the Temporal engine linked in: it
// serves prose worker, prose result, prose temporal and --engine temporal,
// which prose hands to it, and every other command as prose does. It is
// a program of its own so that the commands that do not use the engine do
// not pay for its start-up (see internal/temporalport).
package main

import (
	"github.com/proselang/prose/internal/cli"
	"github.com/proselang/prose/internal/temporalport/linked"
)

func main() { cli.Run(linked.Link{}) }
