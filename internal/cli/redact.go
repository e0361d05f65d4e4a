package cli

import (
	"io"
	"os"

	"github.com/proselang/prose/redact"
)

// redactStreams wraps stdout and stderr in the one redactor (package
// redact) that also scrubs journals, traces and model errors: the values
// of secret-named environment variables (OPENAI_API_KEY, ...), the
// credentials of URLs in the environment (OPENAI_BASE_URL) or given to
// --base-url, each also as JSON escapes it. Credential-shaped text
// (sk-..., Bearer ...) is left to the journal and trace: stdout is the
// program's result. A model that echoes its key, or a server that echoes
// the Basic auth header made of a base URL's user and password, prints
// [redacted] instead. flush writes what the writers still hold back (an
// unfinished last line).
func redactStreams(args []string, out, errw io.Writer) (io.Writer, io.Writer, func()) {
	// The model key is withheld however short it is (EnvSecrets takes
	// values of 8 bytes and more).
	// So is a secret-named input (--input api_token=...), see
	// redact.InputSecrets.
	// So is a secret written inline in an exec: binding (--slot
	// "x=exec:env API_TOKEN=... svc.sh"), see redact.CommandSecrets.
	more := append(redact.FlagURLSecrets(args, "base-url"), os.Getenv("OPENAI_API_KEY"))
	more = append(more, redact.Values(redact.FlagSlotSecrets(args))...)
	r := redact.ForEnv(nil, append(more, redact.Values(redact.FlagInputSecrets(args))...)...)
	ow, ew := r.Writer(out), r.Writer(errw)
	return ow, ew, func() { ow.Flush(); ew.Flush() }
}
