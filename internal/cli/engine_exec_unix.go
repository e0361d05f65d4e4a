//go:build unix

package cli

import (
	"os"

	"github.com/proselang/prose/internal/handoff"
)

// execTemporal replaces this process with prose-temporal running args,
// when args need the Temporal engine and the program is found: the
// command is then prose-temporal's alone (its signals, its exit status,
// its death), with nothing of this prose left around it. It returns when
// it did not replace the process; Main then reports why.
func execTemporal(args []string) {
	if linked != nil || !needsTemporal(args) || os.Getenv(handedOffEnv) != "" {
		return
	}
	path, err := findTemporalProgram()
	if err != nil {
		return
	}
	_ = handoff.Exec(path, args, []string{handedOffEnv + "=1"})
}
