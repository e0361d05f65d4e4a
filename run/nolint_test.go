package run_test

import (
	"go/build"
	"strings"
	"testing"
)

// The checks before a run do not import the linter: neither run nor
// patterns depends on package lint, directly or through another package
// (a caller hands lint.Contract in as Options.ContractCheck).
func TestRunDoesNotImportLint(t *testing.T) {
	const mod = "github.com/proselang/prose/"
	seen := map[string]string{} // package -> the package that imports it
	var walk func(path, from string)
	walk = func(path, from string) {
		if _, ok := seen[path]; ok {
			return
		}
		seen[path] = from
		p, err := build.Import(path, ".", 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, mod) {
				walk(imp, path)
			}
		}
	}
	for _, root := range []string{mod + "run", mod + "runhost"} {
		walk(root, "")
	}
	if len(seen) < 5 {
		t.Fatalf("walked only %d packages: the walk is broken", len(seen))
	}
	for p, from := range seen {
		if p == mod+"lint" || strings.HasPrefix(p, mod+"lint/") {
			t.Errorf("%s is imported (by %s): run and patterns must not depend on the linter", p, from)
		}
	}
}
