//go:build !linux

package procgroup

// Subreap reports false: only Linux hands orphans to a process other than
// init.
func Subreap() bool { return false }

// hasChildren reports true: where it cannot be asked cheaply, EndOrphans
// looks.
func hasChildren() bool { return true }
