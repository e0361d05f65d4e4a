//go:build temporal

package main

import (
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
