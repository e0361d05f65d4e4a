//go:build !unix

package temporalserve

import "context"

// lockNode takes no lock where flock is missing: one worker per store.
func lockNode(context.Context, string, string) (func(), error) { return func() {}, nil }
