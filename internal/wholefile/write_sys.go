//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package wholefile

import (
	"errors"
	"syscall"
)

func isSyncUnsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP)
}
