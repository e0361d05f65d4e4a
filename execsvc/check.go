package execsvc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CheckProgram looks, before any call, at the program an exec: command
// starts with when it is a plain path (./svc.sh, /opt/bin/svc, bin/svc):
// a directory, a file without execute permission or a script whose #! line
// cannot work would fail every call with the shell's terse "Permission
// denied" or "not found", so it is reported at binding time with the fix. A path that does not exist yet is left to the call
// (an earlier step may create it); commands starting with a name looked up
// in PATH, a variable, quotes or other shell syntax are not checked.
func CheckProgram(dir, command string) error {
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
	return checkShebang(word, path)
}

// checkShebang reports a script whose #! line cannot work: Windows line
// endings (the shell then says "not found" about a file that exists), an
// interpreter that does not exist, or one `env` cannot find in PATH.
func checkShebang(word, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.Read(head)
	line, ok := strings.CutPrefix(string(head[:n]), "#!")
	if !ok {
		return nil
	}
	line, _, _ = strings.Cut(line, "\n")
	if strings.HasSuffix(line, "\r") {
		return fmt.Errorf("%s has Windows line endings (its #! line ends in \\r): convert it, e.g. with dos2unix %s", word, word)
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil
	}
	if _, err := os.Stat(fields[0]); err != nil {
		return fmt.Errorf("%s: its interpreter %s does not exist (see its #! line)", word, fields[0])
	}
	if filepath.Base(fields[0]) == "env" && len(fields) > 1 && !strings.HasPrefix(fields[1], "-") {
		if _, err := exec.LookPath(fields[1]); err != nil {
			return fmt.Errorf("%s: its interpreter %s is not in PATH (see its #! line)", word, fields[1])
		}
	}
	return nil
}

// BesideFile reports the first word of command when it is a plain name
// (no slash, no shell syntax) of a file in dir ("" for the working
// directory). The shell looks such a name up in PATH only, never in the
// directory a program runs in, so exec:tool.sh does not run the tool.sh
// there: a message names the fix, exec:./tool.sh.
func BesideFile(dir, command string) (string, bool) {
	fields := strings.Fields(command)
	if len(fields) == 0 {
		return "", false
	}
	word := fields[0]
	if strings.Contains(word, "/") || strings.ContainsAny(word, "'\"\\$`;|&<>(){}*?[]=~#!") {
		return "", false
	}
	st, err := os.Stat(filepath.Join(dir, word))
	if err != nil || st.IsDir() {
		return "", false
	}
	return word, true
}
