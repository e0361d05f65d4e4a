package cli

import (
	"io"

	"github.com/proselang/prose/internal/lintcli"
)

// redactStreams wraps stdout and stderr in the one redactor (see
// lintcli.RedactStreams).
func redactStreams(args []string, out, errw io.Writer) (io.Writer, io.Writer, func()) {
	return lintcli.RedactStreams(args, out, errw)
}
