package lint

import (
	"io/fs"
	"os"

	"github.com/proselang/prose/internal/wholefile"
)

// OS is the default Resolver: paths name files and directories on disk,
// relative to the working directory or absolute, and diagnostics name
// them as given.
func OS(arg string) (fs.FS, string) { return osFS{}, arg }

// osFS is the operating system's file system with names passed to package
// os unchanged (unlike os.DirFS, it accepts absolute and ../ paths).
type osFS struct{}

func (osFS) Open(name string) (fs.File, error)          { return os.Open(name) }
func (osFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// ReadWhole reads a regular file whole in one call, more cheaply than
// Open, Stat and Read, and opens any other file (the spec graph's
// wholeReader).
func (osFS) ReadWhole(name string, max int64) ([]byte, fs.FileInfo, fs.File, error) {
	data, info, other, err := wholefile.Read(name, max)
	if other != nil {
		return nil, nil, other, nil
	}
	return data, info, nil, err
}
