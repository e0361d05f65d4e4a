package std

import (
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/proselang/prose/internal/wholefile"
)

// prefixFS serves the embedded files under the name "std": "std/x" is the
// embedded "x", and the root "." is a directory holding only "std".
type prefixFS struct{}

// inner maps a name of prefixFS to a name of the embedded FS; root is true
// for the synthetic root.
func inner(op, name string) (in string, root bool, err error) {
	switch {
	case !fs.ValidPath(name):
		return "", false, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	case name == ".":
		return "", true, nil
	case name == "std":
		return ".", false, nil
	case strings.HasPrefix(name, Prefix):
		return strings.TrimPrefix(name, Prefix), false, nil
	}
	return "", false, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

func (prefixFS) Open(name string) (fs.File, error) {
	in, root, err := inner("open", name)
	if err != nil {
		return nil, err
	}
	if root {
		return &rootDir{}, nil
	}
	f, err := files.Open(in)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: unwrapPath(err)}
	}
	if name == "std" {
		return stdDir{f.(fs.ReadDirFile)}, nil
	}
	return f, nil
}

// stdDir is the embedded root opened under its name "std".
type stdDir struct{ fs.ReadDirFile }

func (stdDir) Stat() (fs.FileInfo, error) { return dirInfo("std"), nil }

func (p prefixFS) Stat(name string) (fs.FileInfo, error) {
	in, root, err := inner("stat", name)
	if err != nil {
		return nil, err
	}
	if root {
		return dirInfo("."), nil
	}
	st, err := fs.Stat(files, in)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: unwrapPath(err)}
	}
	if name == "std" {
		return dirInfo("std"), nil
	}
	return st, nil
}

func (prefixFS) ReadDir(name string) ([]fs.DirEntry, error) {
	in, root, err := inner("readdir", name)
	if err != nil {
		return nil, err
	}
	if root {
		return []fs.DirEntry{fs.FileInfoToDirEntry(dirInfo("std"))}, nil
	}
	ents, err := files.ReadDir(in)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: unwrapPath(err)}
	}
	return ents, nil
}

func (prefixFS) ReadFile(name string) ([]byte, error) {
	in, root, err := inner("read", name)
	if err != nil {
		return nil, err
	}
	if root || name == "std" {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	data, err := files.ReadFile(in)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: unwrapPath(err)}
	}
	return data, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// dirInfo is the FileInfo of a synthetic directory.
type dirInfo string

func (d dirInfo) Name() string               { return string(d) }
func (dirInfo) Size() int64                  { return 0 }
func (dirInfo) Mode() fs.FileMode            { return fs.ModeDir | 0o555 }
func (dirInfo) ModTime() time.Time           { return time.Time{} }
func (dirInfo) IsDir() bool                  { return true }
func (dirInfo) Sys() any                     { return nil }
func (d dirInfo) String() string             { return fs.FormatFileInfo(d) }
func (d dirInfo) Info() (fs.FileInfo, error) { return d, nil }

// rootDir is the open synthetic root directory.
type rootDir struct{ done bool }

func (*rootDir) Stat() (fs.FileInfo, error) { return dirInfo("."), nil }
func (*rootDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: fs.ErrInvalid}
}
func (*rootDir) Close() error { return nil }

func (r *rootDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if r.done {
		if n > 0 {
			return nil, io.EOF
		}
		return nil, nil
	}
	r.done = true
	return []fs.DirEntry{fs.FileInfoToDirEntry(dirInfo("std"))}, nil
}

// osFS is the operating system's file system with names passed to package
// os unchanged (absolute and ../ paths work), as lint expects of a
// Resolver's disk side.
type osFS struct{}

// Disk is Resolve's disk side: the operating system's files, names taken
// as the operating system does (relative to the working directory or
// absolute), so that a std/ path Open reads from disk is the same name
// there.
func Disk() fs.FS { return osFS{} }

// IsDisk reports whether fsys is Disk.
func IsDisk(fsys fs.FS) bool {
	_, ok := fsys.(osFS)
	return ok
}

func (osFS) Open(name string) (fs.File, error)          { return os.Open(name) }
func (osFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// ReadWhole reads a regular file whole in one call (the spec graph reads
// through it; see package wholefile).
func (osFS) ReadWhole(name string, max int64) ([]byte, fs.FileInfo, fs.File, error) {
	data, info, other, err := wholefile.Read(name, max)
	if other != nil {
		return nil, nil, other, nil
	}
	return data, info, nil, err
}

// missingFS holds nothing: every look-up fails with err, which names what
// the library does hold.
type missingFS struct{ err error }

func (m missingFS) Open(string) (fs.File, error)          { return nil, m.err }
func (m missingFS) Stat(string) (fs.FileInfo, error)      { return nil, m.err }
func (m missingFS) ReadDir(string) ([]fs.DirEntry, error) { return nil, m.err }
