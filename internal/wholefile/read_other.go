//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package wholefile

import (
	"io/fs"
	"os"
)

func read(name string, max int64) ([]byte, fs.FileInfo, *os.File, error) {
	return readOS(name, max)
}
