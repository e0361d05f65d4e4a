package spec

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Every Code constant of the package is listed once by Rules and in the
// package documentation's table, under the severity Rules gives it.
func TestRulesListEveryCode(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && strings.HasPrefix(vs.Names[0].Name, "Code") {
			v, _ := strconv.Unquote(vs.Values[0].(*ast.BasicLit).Value)
			consts = append(consts, v)
		}
		return true
	})
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	warnings := strings.Index(doc, "// Warnings:")
	listed := map[string]bool{}
	for _, r := range Rules() {
		if listed[r.Code] {
			t.Errorf("%s listed twice", r.Code)
		}
		listed[r.Code] = true
		if r.Short == "" {
			t.Errorf("%s has no description", r.Code)
		}
		at := strings.Index(doc, "//\t"+r.Code+" ")
		if at < 0 {
			t.Errorf("%s is not in the package documentation", r.Code)
		} else if (at > warnings) != (r.Severity.String() == "warning") {
			t.Errorf("%s is documented under the other severity", r.Code)
		}
	}
	for _, c := range consts {
		if !listed[c] {
			t.Errorf("%s is not listed by Rules", c)
		}
	}
	if len(consts) != len(listed) {
		t.Errorf("%d constants, %d rules", len(consts), len(listed))
	}
}
