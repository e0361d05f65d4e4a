package main

import (
	"io"
	"os"

	"github.com/proselang/prose/redact"
)

// redactStreams wraps stdout and stderr so that no known secret reaches
// them (see package redact): the values of secret-named environment
// variables (OPENAI_API_KEY, ...) and the credentials of URLs in the
// environment (OPENAI_BASE_URL) or given to --base-url. A model that
// echoes its key, or a server that echoes the Basic auth header made of
// a base URL's user and password, prints [redacted] instead. flush writes
// what the writers still hold back (an unfinished last line).
func redactStreams(args []string, out, errw io.Writer) (io.Writer, io.Writer, func()) {
	secrets := append(redact.EnvSecrets(nil), redact.FlagURLSecrets(args, "base-url")...)
	// The model key is withheld however short it is (EnvSecrets takes
	// values of 8 bytes and more).
	secrets = append(secrets, os.Getenv("OPENAI_API_KEY"))
	r := redact.New(secrets...)
	if r.Len() == 0 {
		return out, errw, func() {}
	}
	ow, ew := r.Writer(out), r.Writer(errw)
	return ow, ew, func() { ow.Flush(); ew.Flush() }
}
