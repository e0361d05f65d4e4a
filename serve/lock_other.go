//go:build !unix

package serve

// Lock is a no-op where flock is absent: run one serve per state
// directory.
func Lock(stateDir string) (func(), error) { return func() {}, nil }
