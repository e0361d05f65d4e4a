//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package wholefile

import (
	"io/fs"
	"os"
	"syscall"
)

func read(name string, max int64) ([]byte, fs.FileInfo, *os.File, error) {
	return readOS(name, max)
}

func readNoWait(name string, max int64) ([]byte, fs.FileInfo, *os.File, error) {
	return readOSFlags(name, max, syscall.O_NONBLOCK)
}
