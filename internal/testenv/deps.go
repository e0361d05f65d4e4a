package testenv

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// Module is the import path of the module the tests belong to.
const Module = "github.com/proselang/prose"

// Deps is the set of the module's packages that package pkg (an import
// path of the module) imports, directly or not, through its non-test
// files for this platform: what an architecture test forbids one of.
func Deps(t testing.TB, pkg string) map[string]bool {
	t.Helper()
	root := MustRoot(t)
	deps := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p, Module), "/")))
		bp, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("reading the imports of %s: %v", p, err)
		}
		for _, im := range bp.Imports {
			if (im == Module || strings.HasPrefix(im, Module+"/")) && !deps[im] {
				deps[im] = true
				walk(im)
			}
		}
	}
	walk(pkg)
	return deps
}
