// Package wholefile reads and writes a file of the operating system
// whole. Read reads one in one call that costs less than os.Open, Stat,
// Read and Close: a lint reads every spec of a tree, and an *os.File's
// setup (its registration with the poller, its finalizer) was a tenth of
// reading one. Write replaces one atomically and durably (temporary file,
// fsync, rename, fsync of the directory): every file prose keeps (a
// store's versions and heads, a journal's sources, a connector's cursor)
// is written by it.
//
// Main entry points: Read, Write.
package wholefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// Read opens name (as os.Open does: the name as given) and, when it is a
// regular file, reads at most max bytes of it and closes it: data and
// info are set. A file that is not regular (a named pipe, a device) is
// returned open as other, unread, for the caller to read as it will (and
// close). The error is the open's, the stat's or the read's, as a
// *fs.PathError naming name.
func Read(name string, max int64) (data []byte, info fs.FileInfo, other *os.File, err error) {
	return read(name, max)
}

// ReadNoWait is Read with the file opened non-blocking: a named pipe
// is returned open at once (as other) where Read would wait for a
// writer. A regular file reads the same either way.
func ReadNoWait(name string, max int64) (data []byte, info fs.FileInfo, other *os.File, err error) {
	return readNoWait(name, max)
}

// readOS is Read through package os (where read has no cheaper way).
func readOS(name string, max int64) ([]byte, fs.FileInfo, *os.File, error) {
	return readOSFlags(name, max, 0)
}

// readOSFlags is readOS with flags added to the open's.
func readOSFlags(name string, max int64, flags int) ([]byte, fs.FileInfo, *os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|flags, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, f, nil
	}
	defer f.Close()
	data, err := readAll(func(b []byte) (int, error) { return f.Read(b) }, info.Size(), max)
	if err != nil {
		return nil, nil, nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, info, nil, nil
}

// readAll reads up to max bytes with read until it reports the end (a
// zero-length read, or a short read at size bytes), into a buffer sized
// for a file of size bytes.
func readAll(read func([]byte) (int, error), size, max int64) ([]byte, error) {
	if size > max {
		size = max
	}
	if size < 0 {
		size = 0
	}
	// room for the read that sees the end without growing; a file whose
	// stat says 0 bytes (as /proc's do) starts with 16 KiB, and grows
	// its room as it is read
	room := size + 512
	if size == 0 {
		room = 16 << 10
	}
	if room > max || room < 0 {
		room = max
	}
	buf := make([]byte, 0, room)
	for int64(len(buf)) < max {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := buf[len(buf):cap(buf)]
		if rest := max - int64(len(buf)); int64(len(room)) > rest {
			room = room[:rest]
		}
		n, err := read(room)
		if n < 0 {
			n = 0
		}
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				return buf, nil
			}
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		// A regular file's read that stops short of the room given, at
		// the size its stat gave, stopped at the end: the zero-length read
		// that would confirm it is a system call a file (a fifth of
		// reading a spec) saved. A file that grew since its stat fills the
		// room and is read on.
		if int64(len(buf)) == size && n < len(room) {
			return buf, nil
		}
	}
	return buf, nil
}
