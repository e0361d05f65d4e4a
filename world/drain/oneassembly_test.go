package drain_test

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

const module = "github.com/proselang/prose/"

// A drain is assembled in one place, package drain: what renders each
// node (the renderers of package render) and how its contract names it
// are decided by Prepare from typed bindings, for prose run DIR, prose
// serve, prose worker and a test's ### Drains alike. No non-test file
// outside package drain imports package render; reconcile's drain entry
// points (Drain, Number, Resume, and the Options they take) are reached
// only from package drain and from the hosts that schedule drains with a
// prepared drain's Renderer and Binding (packages serve and
// serve/temporalserve).
func TestOneDrainAssembly(t *testing.T) {
	root := filepath.Join("..", "..")
	hosts := map[string]bool{"world/drain": true, "world/reconcile": true, "serve": true, "serve/temporalserve": true}
	fset := token.NewFileSet()
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "testdata" || rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		af, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		seen++
		pkg := filepath.ToSlash(filepath.Dir(rel))
		reconcile := ""
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			switch p {
			case module + "world/render":
				if pkg != "world/drain" && pkg != "world/render" {
					t.Errorf("%s: imports world/render: a node's renderer is chosen by drain.Prepare", fset.Position(im.Pos()))
				}
			case module + "world/reconcile":
				reconcile = "reconcile"
				if im.Name != nil {
					reconcile = im.Name.Name
				}
			}
		}
		if reconcile == "" || hosts[pkg] {
			return nil
		}
		af, err = parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(af, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == reconcile {
				switch sel.Sel.Name {
				case "Drain", "Number", "Resume", "Options":
					t.Errorf("%s: reconcile.%s: a drain is assembled by drain.Prepare and run by (*drain.Prepared).Run", fset.Position(sel.Pos()), sel.Sel.Name)
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
