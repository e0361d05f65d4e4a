//go:build !unix

package journal

import "os"

// lockFile is a no-op where flock is unavailable.
func lockFile(*os.File) (func(), error) { return func() {}, nil }

func locked(string) bool { return false }
