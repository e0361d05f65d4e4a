//go:build unix

package lintcli

import (
	"os"
	"syscall"
)

// execReplaces: on Unix a process can become another program.
const execReplaces = true

// replace makes this process path running args; it returns only when
// that fails.
func replace(path string, args []string) error {
	return syscall.Exec(path, append([]string{path}, args...), os.Environ())
}
