package specgraph

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/internal/wholefile"
)

// OS is the operating system's file system with names passed to package
// os unchanged (unlike os.DirFS, it takes absolute and ../ paths), so
// that specs and their diagnostics are named as the user wrote them.
func OS() fs.FS { return osIn{} }

// OSIn is OS, except that a relative name is read from dir when dir holds
// it (a run resumed from another directory reads the files of the
// directory it started in), and from the working directory otherwise.
// The name stays as given. dir "" is OS.
func OSIn(dir string) fs.FS {
	if wd, err := os.Getwd(); err == nil && filepath.Clean(wd) == filepath.Clean(dir) {
		dir = ""
	}
	return osIn{dir: dir}
}

type osIn struct{ dir string }

// at is where name is read from.
func (o osIn) at(name string) string {
	if o.dir == "" || filepath.IsAbs(name) {
		return name
	}
	p := filepath.Join(o.dir, name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return name
}

func (o osIn) Open(name string) (fs.File, error) {
	f, err := os.Open(o.at(name))
	return f, renamed(err, name)
}

// OpenRegular opens name without waiting: a named pipe, a socket or a
// device is refused (filekind.Open), its error naming name.
func (o osIn) OpenRegular(name string) (fs.File, error) {
	f, err := filekind.Open(o.at(name))
	if err != nil {
		var nr *filekind.NotRegularError
		if errors.As(err, &nr) {
			return nil, &filekind.NotRegularError{Path: name, Mode: nr.Mode}
		}
		return nil, renamed(err, name)
	}
	return f, nil
}

func (o osIn) Stat(name string) (fs.FileInfo, error) {
	st, err := os.Stat(o.at(name))
	return st, renamed(err, name)
}

// ReadWhole reads a regular file whole, and opens any other (see
// wholeReader).
func (o osIn) ReadWhole(name string, max int64) ([]byte, fs.FileInfo, fs.File, error) {
	data, info, other, err := wholefile.Read(o.at(name), max)
	if other != nil {
		return nil, nil, other, nil
	}
	return data, info, nil, renamed(err, name)
}

func (o osIn) ReadDir(name string) ([]fs.DirEntry, error) {
	d, err := os.ReadDir(o.at(name))
	return d, renamed(err, name)
}

// renamed makes an error name the path as given, not as read.
func renamed(err error, name string) error {
	if pe, ok := err.(*fs.PathError); ok && pe.Path != name {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}
