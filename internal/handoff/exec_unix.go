//go:build unix

package handoff

import (
	"os"
	"syscall"
)

// Replaces reports whether Exec can make this process another program.
const Replaces = true

// Exec makes this process path running args, with this process's
// environment and env added (KEY=VALUE). It returns only when that fails.
func Exec(path string, args, env []string) error {
	return syscall.Exec(path, append([]string{path}, args...), append(os.Environ(), env...))
}
