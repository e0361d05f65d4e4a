// Package filekind names the kind of a file that is not a regular one,
// for the messages of commands that read only regular files (prose lint
// skipping a named pipe, the journal refusing a device).
//
// Entry points: Describe, and Open, ReadFile and OpenFS, which open what
// a directory listing found without waiting on a named pipe.
package filekind

import "io/fs"

// Describe names the kind of file m is: "a directory", "a named pipe",
// "a socket", "a device", "a symbolic link that cannot be followed", or
// "a special file".
func Describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link that cannot be followed"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}
