package runhost_test

import (
	"go/build"
	"sort"
	"strings"
	"testing"
)

// The packages of a run are layered by job, each importing only those
// below it: service (what a slot is bound to) at the bottom, then bind
// (binding texts), then callgraph (nested specs and Contract Markdown
// callees), then the host (this package). None depends on the linter.
// The walk follows every import inside the module, so a dependency
// through another package counts too.
func TestImportLayers(t *testing.T) {
	const mod = "github.com/proselang/prose/"
	host, svc, bind, graph := mod+"runhost", mod+"service", mod+"bind", mod+"callgraph"
	lint := mod + "lint"
	for _, tc := range []struct {
		pkg       string
		needs     []string // imported directly: the layering is real, not vacuous
		forbidden []string
	}{
		{svc, nil, []string{bind, graph, host, lint}},
		{bind, []string{svc}, []string{graph, host, lint}},
		{graph, []string{svc, bind}, []string{host, lint}},
		{host, []string{svc, bind, graph}, []string{lint}},
	} {
		direct, seen := imports(t, mod, tc.pkg)
		for _, n := range tc.needs {
			if !direct[n] {
				t.Errorf("%s does not import %s: the layers are not as this test says", tc.pkg, n)
			}
		}
		for _, f := range tc.forbidden {
			for p, from := range seen {
				if p == f || f == lint && strings.HasPrefix(p, lint+"/") {
					t.Errorf("%s depends on %s (imported by %s)", tc.pkg, p, from)
				}
			}
		}
	}
}

// imports walks the module's packages pkg imports, directly or not: the
// direct ones, and each package reached with the package importing it.
func imports(t *testing.T, mod, pkg string) (direct map[string]bool, seen map[string]string) {
	t.Helper()
	direct, seen = map[string]bool{}, map[string]string{}
	var walk func(path, from string)
	walk = func(path, from string) {
		p, err := build.Import(path, ".", 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		sort.Strings(p.Imports)
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			if path == pkg {
				direct[imp] = true
			}
			if _, ok := seen[imp]; !ok {
				seen[imp] = path
				walk(imp, path)
			}
		}
	}
	walk(pkg, "")
	return direct, seen
}
