//go:build temporal

package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/proselang/prose/temporal"
)

// TestTemporalNamesAgree: the names engine.go gives the connection's
// environment variables and default queue are the temporal package's.
func TestTemporalNamesAgree(t *testing.T) {
	for _, c := range [][2]string{
		{envTemporalAddress, temporal.EnvAddress},
		{envTemporalNamespace, temporal.EnvNamespace},
		{envTemporalTaskQueue, temporal.EnvTaskQueue},
		{envTemporalKeyFile, temporal.KeyFileEnv},
		{defaultTaskQueue, temporal.DefaultTaskQueue},
	} {
		if c[0] != c[1] {
			t.Errorf("%q, the temporal package says %q", c[0], c[1])
		}
	}
}

// A prose-temporal started by a hand-off drops the hand-off's mark, so
// that a prose its programs start may hand over in turn.
func TestTemporalProseDropsHandOffMark(t *testing.T) {
	t.Setenv(handedOffEnv, "1")
	var out, errw strings.Builder
	Main([]string{"--version"}, strings.NewReader(""), &out, &errw)
	if v, ok := os.LookupEnv(handedOffEnv); ok {
		t.Errorf("%s=%q still set", handedOffEnv, v)
	}
}
