//go:build !linux

package testenv

import "testing"

// WatchOpens skips the test: counting opens needs Linux's inotify.
func WatchOpens(t testing.TB, dir string) func() map[string]int {
	t.Helper()
	t.Skip("counting file opens needs inotify (Linux)")
	return nil
}
