// Command prose loads OpenProse pattern specs (*.prose.md), checks them and
// runs their Delegation pseudocode with slots bound to real services. The
// commands live in package cli. The Temporal engine is not linked in: its
// commands are handed to prose-temporal (cmd/prose-temporal), which the
// same go install ./cmd/... builds.
package main

import "github.com/proselang/prose/internal/cli"

func main() { cli.Run(nil) }
