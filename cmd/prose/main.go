// Command prose loads OpenProse pattern specs (*.prose.md), checks them and
// runs their Delegation pseudocode with slots bound to real services. The
// commands live in package cli.
package main

import "github.com/proselang/prose/internal/cli"

func main() { cli.Run() }
