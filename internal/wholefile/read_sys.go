//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package wholefile

import (
	"io/fs"
	"os"
	"path"
	"syscall"
	"time"
)

// read is Read on a file descriptor of its own: open, fstat, read and
// close, and no *os.File unless the file is not regular.
func read(name string, max int64) ([]byte, fs.FileInfo, *os.File, error) {
	return readFlags(name, max, 0)
}

// readNoWait is read with the file opened non-blocking.
func readNoWait(name string, max int64) ([]byte, fs.FileInfo, *os.File, error) {
	return readFlags(name, max, syscall.O_NONBLOCK)
}

// readFlags is read with flags added to the open's.
func readFlags(name string, max int64, flags int) ([]byte, fs.FileInfo, *os.File, error) {
	fd, err := retry(func() (int, error) { return syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|flags, 0) })
	if err != nil {
		return nil, nil, nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var st syscall.Stat_t
	if _, err := retry(func() (int, error) { return 0, syscall.Fstat(fd, &st) }); err != nil {
		syscall.Close(fd)
		return nil, nil, nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, nil, os.NewFile(uintptr(fd), name), nil
	}
	defer syscall.Close(fd)
	data, err := readAll(func(b []byte) (int, error) {
		return retry(func() (int, error) { return syscall.Read(fd, b) })
	}, st.Size, max)
	if err != nil {
		return nil, nil, nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, &fileInfo{name: path.Base(name), st: st}, nil, nil
}

// retry calls f again while it is interrupted by a signal.
func retry(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// fileInfo is a regular file's fs.FileInfo, as os.Stat gives it.
type fileInfo struct {
	name string
	st   syscall.Stat_t
}

func (fi *fileInfo) Name() string { return fi.name }
func (fi *fileInfo) Size() int64  { return fi.st.Size }
func (fi *fileInfo) IsDir() bool  { return false }
func (fi *fileInfo) Sys() any     { return &fi.st }

func (fi *fileInfo) Mode() fs.FileMode {
	m := fs.FileMode(fi.st.Mode & 0o777)
	if fi.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if fi.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if fi.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

func (fi *fileInfo) ModTime() time.Time { return modTime(&fi.st) }
