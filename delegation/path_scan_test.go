package delegation

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Only this package knows how a Path is spelled. The scan below reads
// every non-test Go file of the module outside it and reports code that
// takes a call path's text apart or builds one by hand: a strings or
// bytes function that splits, counts, indexes, cuts or tests a call id at
// one of its separators (">", "/", "#"), an id glued to a separator with
// +, a format that prints an id next to one, and a map from errors to ids
// (errors carry their Path).
//
// What counts as "a call id" is found by name, as a reader would: a field
// or variable called ID, id, callID, loopID, the Key or String of a Path
// field, and every local variable computed from one of those.

func TestNoPackageOutsideDelegationTakesAPathApart(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skip("not in the module's tree")
	}
	found, n := scanTree(t, root)
	if n < 50 {
		t.Fatalf("scanned only %d files under %s: the walk is broken", n, root)
	}
	for _, f := range found {
		t.Errorf("%s: a call path's text taken apart outside package delegation (use delegation.Path's methods): %s", f.pos, f.what)
	}
}

// The scan finds each way today's packages once took ids apart; the
// fixtures are those lines as they were.
func TestPathScanFindsIDParsing(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join("testdata", "pathscan", "*.go.txt"))
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, fx := range fixtures {
		src, err := os.ReadFile(fx)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		found := map[int]bool{}
		for _, f := range scanSource(t, fx, src) {
			found[f.pos.Line] = true
			if !strings.Contains(lines[f.pos.Line-1], "// want") {
				t.Errorf("%s: found at a line without // want: %s", fx, f)
			}
		}
		for i, l := range lines {
			if strings.Contains(l, "// want") && !found[i+1] {
				t.Errorf("%s:%d: not found: %s", fx, i+1, strings.TrimSpace(l))
			}
		}
	}
}

type finding struct {
	pos  token.Position
	what string
}

func (f finding) String() string { return f.pos.String() + ": " + f.what }

func scanTree(t *testing.T, root string) ([]finding, int) {
	t.Helper()
	var out []finding
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if filepath.Dir(rel) == "delegation" {
			return nil // the package that owns the spelling
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		out = append(out, scanSource(t, rel, src)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, n
}

// idName is a name that holds a call id.
var idName = regexp.MustCompile(`^(ID|id|callID|loopID|callId|CallID)$`)

// textFuncs are the strings and bytes functions that take text apart or
// look into it.
var textFuncs = map[string]bool{
	"Split": true, "SplitN": true, "SplitAfter": true, "SplitAfterN": true, "SplitSeq": true,
	"Count": true, "Index": true, "IndexByte": true, "IndexRune": true, "IndexAny": true,
	"LastIndex": true, "LastIndexByte": true, "LastIndexAny": true,
	"Cut": true, "CutPrefix": true, "CutSuffix": true,
	"Contains": true, "ContainsRune": true, "ContainsAny": true,
	"HasPrefix": true, "HasSuffix": true, "TrimPrefix": true, "TrimSuffix": true,
	"TrimLeft": true, "TrimRight": true, "Trim": true, "Fields": true, "FieldsFunc": true,
}

func scanSource(t *testing.T, name string, src []byte) []finding {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	imports := map[string]string{} // local name -> import path
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		local := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			local = im.Name.Name
		}
		imports[local] = p
	}
	s := &scan{fset: fset, imports: imports}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			ast.Inspect(d, s.visitTypes)
			continue
		}
		s.tainted = map[string]bool{}
		s.taint(fd)
		ast.Inspect(fd, s.visit)
	}
	sort.Slice(s.out, func(i, j int) bool { return s.out[i].pos.Offset < s.out[j].pos.Offset })
	return s.out
}

type scan struct {
	fset    *token.FileSet
	imports map[string]string
	tainted map[string]bool // local variables holding a call id
	out     []finding
}

func (s *scan) report(n ast.Node, format string, args ...any) {
	s.out = append(s.out, finding{s.fset.Position(n.Pos()), fmt.Sprintf(format, args...)})
}

// taint marks the parameters and local variables of fn that hold a call
// id, until nothing changes: a name like id, or one assigned from an
// expression that mentions an id.
func (s *scan) taint(fn *ast.FuncDecl) {
	for changed := true; changed; {
		changed = false
		mark := func(e ast.Expr) {
			if id, ok := e.(*ast.Ident); ok && id.Name != "_" && !s.tainted[id.Name] {
				s.tainted[id.Name] = true
				changed = true
			}
		}
		ast.Inspect(fn, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				if idName.MatchString(n.Name) && !s.tainted[n.Name] {
					s.tainted[n.Name] = true
					changed = true
				}
			case *ast.AssignStmt:
				for _, r := range n.Rhs {
					if s.isID(r) {
						for _, l := range n.Lhs {
							mark(l)
						}
					}
				}
			case *ast.ValueSpec:
				for _, v := range n.Values {
					if s.isID(v) {
						for _, l := range n.Names {
							mark(l)
						}
					}
				}
			}
			return true
		})
	}
}

// isID reports whether e mentions a call id.
func (s *scan) isID(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if s.tainted[n.Name] || idName.MatchString(n.Name) {
				found = true
			}
		case *ast.SelectorExpr:
			if idName.MatchString(n.Sel.Name) {
				found = true
			}
			// p.Path.Key(), req.Path.String(), x.Scope.Key()
			if (n.Sel.Name == "Key" || n.Sel.Name == "String") && isPathField(n.X) {
				found = true
			}
		}
		return !found
	})
	return found
}

func isPathField(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return e.Sel.Name == "Path" || e.Sel.Name == "Scope" || idName.MatchString(e.Sel.Name)
	case *ast.Ident:
		return e.Name == "path" || e.Name == "p" || idName.MatchString(e.Name)
	}
	return false
}

// hasSep reports whether e holds a literal with a path separator.
func hasSep(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && (lit.Kind == token.STRING || lit.Kind == token.CHAR) {
			v := lit.Value
			if u, err := strconv.Unquote(v); err == nil {
				v = u
			}
			if strings.ContainsAny(v, ">/#") {
				found = true
			}
		}
		return !found
	})
	return found
}

func (s *scan) pkgFunc(call *ast.CallExpr) (pkg, fn string) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", ""
	}
	return s.imports[x.Name], sel.Sel.Name
}

func (s *scan) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.CallExpr:
		pkg, fn := s.pkgFunc(n)
		switch {
		case (pkg == "strings" || pkg == "bytes") && textFuncs[fn] && len(n.Args) > 0 && s.isID(n.Args[0]):
			seps := false
			for _, a := range n.Args[1:] {
				seps = seps || hasSep(a)
			}
			if (fn == "ContainsAny" || fn == "IndexAny") && len(n.Args) == 2 && isSepLit(n.Args[1]) &&
				strings.Contains(n.Args[1].(*ast.BasicLit).Value, `\`) {
				seps = false // a file name checked for "/" and "\\" (a run id may not escape its directory)
			}
			if seps || fn == "Fields" {
				s.report(n, "%s.%s of a call id", pkg, fn)
			}
		case pkg == "fmt" && strings.HasPrefix(fn, "Sprint") && len(n.Args) > 1:
			if lit, ok := n.Args[0].(*ast.BasicLit); ok && hasSep(lit) && strings.Contains(lit.Value, "%") {
				for _, a := range n.Args[1:] {
					if s.isID(a) {
						s.report(n, "fmt.%s builds a call id", fn)
						break
					}
				}
			}
		}
	case *ast.BinaryExpr:
		if n.Op == token.ADD && ((s.isID(n.X) && isSepLit(n.Y)) || (isSepLit(n.X) && s.isID(n.Y))) {
			s.report(n, "a call id glued to a separator with +")
			return false
		}
	case *ast.MapType:
		s.visitTypes(n)
	}
	return true
}

// isSepLit reports whether e is a string literal holding a separator.
func isSepLit(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && hasSep(lit)
}

// visitTypes reports a map keyed by a run-time error: errors carry their
// Path, nothing needs to remember it beside them.
func (s *scan) visitTypes(n ast.Node) bool {
	mt, ok := n.(*ast.MapType)
	if !ok {
		return true
	}
	if star, ok := mt.Key.(*ast.StarExpr); ok {
		if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" {
			if x, ok := sel.X.(*ast.Ident); ok && strings.HasSuffix(s.imports[x.Name], "/delegation") {
				s.report(mt, "a map from errors to their ids (delegation.Error carries its Path)")
			}
		}
	}
	return true
}
