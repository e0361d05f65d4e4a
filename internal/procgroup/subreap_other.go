//go:build !linux

package procgroup

// Subreap reports false: only Linux hands orphans to a process other than
// init.
func Subreap() bool { return false }
