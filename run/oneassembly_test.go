package run_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A run is assembled in one place, run.Prepare: prose run, prose test and
// the Temporal workflow build on it. No non-test file outside packages
// patterns and run calls runhost.Prepare or runhost.Run, or builds a
// runhost.RunOptions.
func TestOneRunAssembly(t *testing.T) {
	root := ".."
	fset := token.NewFileSet()
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch {
			case rel == "runhost", rel == "run", d.Name() == "testdata", rel != "." && strings.HasPrefix(d.Name(), "."), rel == filepath.Join("internal", "bench"), rel == filepath.Join("internal", "tempdev"):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		af, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		seen++
		name := ""
		for _, im := range af.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/proselang/prose/runhost" {
				name = "runhost"
				if im.Name != nil {
					name = im.Name.Name
				}
			}
		}
		if name == "" {
			return nil
		}
		ast.Inspect(af, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
				switch sel.Sel.Name {
				case "Prepare", "Run", "RunOptions":
					t.Errorf("%s: runhost.%s: a run is assembled by run.Prepare", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("only %d Go files scanned: the walk missed the module", seen)
	}
}
