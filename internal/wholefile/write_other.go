//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package wholefile

// isSyncUnsupported: where directories cannot be opened for syncing
// (Windows), there is nothing to sync.
func isSyncUnsupported(error) bool { return true }
