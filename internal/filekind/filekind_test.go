package filekind

import (
	"io/fs"
	"testing"
)

func TestDescribe(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		fs.ModeDir:                        "a directory",
		fs.ModeNamedPipe:                  "a named pipe",
		fs.ModeSocket:                     "a socket",
		fs.ModeDevice | fs.ModeCharDevice: "a device",
		fs.ModeSymlink:                    "a symbolic link that cannot be followed",
		fs.ModeIrregular:                  "a special file",
	} {
		if got := Describe(m); got != want {
			t.Errorf("Describe(%v) = %q, want %q", m, got, want)
		}
	}
}
