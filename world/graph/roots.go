package graph

import (
	"os"
	"path/filepath"
	"strings"
)

// projectRoots lists the OpenProse roots below dir, dir itself left out:
// the folders that hold a `src/` folder or a `prose.lock` file (the
// layout upstream gives a project). The walk does not go into a root it
// found (Lint of that root finds its own), nor into dot-directories and
// node_modules.
func projectRoots(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || p == dir {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if isProjectRoot(p) {
			out = append(out, p)
			return filepath.SkipDir
		}
		return nil
	})
	return out, err
}

// isProjectRoot reports whether the folder p is an OpenProse root.
func isProjectRoot(p string) bool {
	if st, err := os.Stat(filepath.Join(p, "src")); err == nil && st.IsDir() {
		return true
	}
	st, err := os.Stat(filepath.Join(p, "prose.lock"))
	return err == nil && st.Mode().IsRegular()
}
