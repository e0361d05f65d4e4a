//go:build temporal

package cli

import temporallinked "github.com/proselang/prose/internal/temporalport/linked"

// With the build tag temporal, the tests run the commands as
// prose-temporal does: with the Temporal engine linked in.
func init() { linked = temporallinked.Link{} }
