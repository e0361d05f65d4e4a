package filekind

import (
	"io/fs"
	"math"
	"os"
	"syscall"

	"github.com/proselang/prose/internal/wholefile"
)

// NotRegularError is the error of Open and ReadFile for a file that is
// neither a regular file nor a directory.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return e.Path + ": " + Describe(e.Mode) + ", not a regular file"
}

// Open opens name for reading without waiting: a named pipe is opened
// non-blocking (a plain open would wait for a writer that may never
// come), and a named pipe, a socket or a device is then refused with a
// *NotRegularError. A regular file or a directory is returned open, as
// os.Open returns it. Every open of a file found by listing a directory
// goes through it: a FIFO named *.prose.md must not hang a command.
func Open(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if m := st.Mode(); !m.IsRegular() && !m.IsDir() {
		f.Close()
		return nil, &NotRegularError{Path: name, Mode: m.Type()}
	}
	return f, nil
}

// ReadFile is os.ReadFile through Open: a regular file is read whole, a
// directory gives os.ReadFile's error, anything else a *NotRegularError.
// It reads a regular file in one pass sized by its stat, without an
// *os.File (a store's check reads two small files a node).
func ReadFile(name string) ([]byte, error) {
	data, _, other, err := wholefile.ReadNoWait(name, math.MaxInt64)
	if err != nil || other == nil {
		return data, err
	}
	defer other.Close()
	st, err := other.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	}
	return nil, &NotRegularError{Path: name, Mode: st.Mode().Type()}
}

// OpenFS is Open for the Open method of an fs.FS over the operating
// system's files: its fs.File is nil when it fails.
func OpenFS(name string) (fs.File, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Listed reports whether e, the entry at p that listing a directory of
// fsys found (nil fsys: the operating system's files), is a regular file
// or a symbolic link to one. A file found by listing is read only then:
// a named pipe beside a spec must not hang a command. (A file named on
// the command line is opened as given, so `prose lint <(...)` reads its
// pipe.)
func Listed(fsys fs.FS, p string, e fs.DirEntry) bool {
	switch t := e.Type(); {
	case t.IsRegular():
		return true
	case t&fs.ModeSymlink == 0:
		return false
	}
	var st fs.FileInfo
	var err error
	if fsys == nil {
		st, err = os.Stat(p)
	} else {
		st, err = fs.Stat(fsys, p)
	}
	return err == nil && st.Mode().IsRegular()
}
