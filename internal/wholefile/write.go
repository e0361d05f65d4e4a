package wholefile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces the file name with data, whole or not at all: data goes
// to a temporary file beside name, which is synced, given mode perm and
// renamed over name; then the directory is synced, so that after a crash
// name holds either its old content or data, never a part, and the rename
// itself is not lost. The directory must exist. On an error name is left
// as it was and the temporary file is removed.
func Write(name string, data []byte, perm fs.FileMode) error {
	return WriteSteps(name, data, perm, nil)
}

// WriteSteps is Write calling step, when not nil, before each of its two
// steps that a crash can fall between: "create NAME" before the temporary
// file is made and "rename NAME" before it replaces name (crash tests stop
// a writer at such points).
func WriteSteps(name string, data []byte, perm fs.FileMode, step func(string)) error {
	if step == nil {
		step = func(string) {}
	}
	dir := filepath.Dir(name)
	step("create " + name)
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && perm != 0o600 { // CreateTemp's mode
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		step("rename " + name)
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable. A file system that cannot sync a
// directory (some refuse with EINVAL) has nothing more to make durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !isSyncUnsupported(err) {
		return &fs.PathError{Op: "sync", Path: dir, Err: err}
	}
	return nil
}
