package drain_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/proselang/prose/"

// A drain is assembled in one place, package drain: what renders each
// node (the renderers of package render) and how its contract names it
// are decided by Prepare from typed bindings, and every drain of the
// program runs through the Prepared drain: prose run DIR, prose serve
// (local and Temporal), prose worker and a test's ### Drains alike. No
// non-test file outside package drain imports package render, calls
// reconcile's drain entry points (Drain, Number, Resume, and the Options
// they take) outside package reconcile, or calls drain.Given (a drain
// whose renders are given by a host's tests).
func TestOneDrainAssembly(t *testing.T) {
	problems, seen, err := assemblies(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if seen < 50 {
		t.Fatalf("only %d Go files scanned: the walk missed the module", seen)
	}
}

// The check catches a drain assembled outside package drain: a probe in
// package serve that calls reconcile.Drain (under another import name),
// builds reconcile.Options, imports package render and calls drain.Given
// is refused on each count; the same calls in a test file, in package
// reconcile and in package drain are not.
func TestOneDrainAssemblyProbe(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	probe := `package %s

import (
	rc "github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/drain"
	_ "github.com/proselang/prose/world/render"
)

func probe() {
	rc.Drain(nil, rc.Options{})
	drain.Given(nil, nil, nil)
}
`
	write("serve/probe.go", fmt.Sprintf(probe, "serve"))
	write("serve/probe_test.go", fmt.Sprintf(probe, "serve"))
	write("world/reconcile/probe.go", strings.Replace(fmt.Sprintf(probe, "reconcile"), `	_ "github.com/proselang/prose/world/render"
`, "", 1))
	write("world/drain/probe.go", fmt.Sprintf(probe, "drain"))
	problems, _, err := assemblies(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"serve/probe.go:6:2: imports world/render",
		"serve/probe.go:10:2: reconcile.Drain",
		"serve/probe.go:10:16: reconcile.Options",
		"serve/probe.go:11:2: drain.Given",
		"world/reconcile/probe.go:10:2: drain.Given",
	}
	if len(problems) != len(want) {
		t.Fatalf("problems:\n%s\nwant %d, starting:\n%s", strings.Join(problems, "\n"), len(want), strings.Join(want, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(filepath.ToSlash(problems[i]), w) {
			t.Errorf("problem %d: %s\nwant it to start: %s", i, problems[i], w)
		}
	}
}

// assemblies walks the module at root and lists each drain assembled
// outside package drain, as "FILE:LINE:COL: WHAT: why", in walk order;
// seen counts the non-test Go files read.
func assemblies(root string) (problems []string, seen int, err error) {
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
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
		af, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		seen++
		pkg := filepath.ToSlash(filepath.Dir(rel))
		at := func(p token.Pos) string {
			pos := fset.Position(p)
			return fmt.Sprintf("%s:%d:%d", rel, pos.Line, pos.Column)
		}
		// The names the file gives packages reconcile and drain.
		local := map[string]string{}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			name := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			switch p {
			case module + "world/render":
				if pkg != "world/drain" && pkg != "world/render" {
					problems = append(problems, at(im.Pos())+": imports world/render: a node's renderer is chosen by drain.Prepare")
				}
			case module + "world/reconcile":
				if pkg != "world/reconcile" && pkg != "world/drain" {
					local[name] = "reconcile"
				}
			case module + "world/drain":
				if pkg != "world/drain" {
					local[name] = "drain"
				}
			}
		}
		if len(local) == 0 {
			return nil
		}
		ast.Inspect(af, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch what := local[id.Name] + "." + sel.Sel.Name; what {
			case "reconcile.Drain", "reconcile.Number", "reconcile.Resume", "reconcile.Options":
				problems = append(problems, at(sel.Pos())+": "+what+": a drain is assembled by drain.Prepare and run by (*drain.Prepared).Run")
			case "drain.Given":
				problems = append(problems, at(sel.Pos())+": drain.Given: a drain of the program is assembled by drain.Prepare (Given is for tests)")
			}
			return true
		})
		return nil
	})
	return problems, seen, err
}
