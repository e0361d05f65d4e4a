package patterns

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// checkProgram looks, before any call, at the program an exec: command
// starts with when it is a plain path (./svc.sh, /opt/bin/svc, bin/svc):
// a directory or a file without execute permission would fail every call
// with the shell's terse "Permission denied", so it is reported at binding
// time with the fix. A path that does not exist yet is left to the call
// (an earlier step may create it); commands starting with a name looked up
// in PATH, a variable, quotes or other shell syntax are not checked.
func checkProgram(dir, command string) error {
	fields := strings.Fields(command)
	if len(fields) == 0 {
		return nil
	}
	word := fields[0]
	if !strings.Contains(word, "/") || strings.ContainsAny(word, "'\"\\$`;|&<>(){}*?[]=~#!") {
		return nil
	}
	path := word
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return nil
	case st.IsDir():
		return fmt.Errorf("%s is a directory, not a program", word)
	case st.Mode()&0o111 == 0:
		return fmt.Errorf("%s is not executable: run chmod +x %s, or bind exec:sh %s", word, word, strings.TrimSpace(command))
	}
	return nil
}
