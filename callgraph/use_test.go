package callgraph_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// A use alias is called as the file it names: its own Execution runs
// (a relative path that leaves the directory too), --slot binds the
// alias, and a use that names nothing refuses the run at the use even
// when no lint ran before it.
func TestResolutionUse(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"app/root.prose.md":    fn("root", "x", "a b", exe("use \"../lib/helper\" as h\nuse \"./near\"\nlet a = call h\n  x: x\nlet b = call near\n  x: x\nreturn { a: a, b: b }")),
		"app/near.prose.md":    fn("near", "x", "y", exe("return \"near {x}\"")),
		"lib/helper.prose.md":  fn("helper", "x", "y", exe("return \"helper {x}\"")),
		"app/gone.prose.md":    fn("gone", "", "r", exe("use \"./missing\" as nothing\nreturn call nothing")),
		"app/nothing.prose.md": fn("nothing", "", "r", exe("return \"a sibling of the alias's name\"")),
	})
	v, err := runContract(t, filepath.Join(dir, "app", "root.prose.md"), nil, map[string]string{"x": "1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := asJSON(t, v), `{"a":"helper 1","b":"near 1"}`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	v, err = runContract(t, filepath.Join(dir, "app", "root.prose.md"), []string{"h=exec:echo bound"}, map[string]string{"x": "1"}, nil)
	if err != nil || asJSON(t, v) != `{"a":"bound","b":"near 1"}` {
		t.Errorf("with --slot h: %v %v", v, err)
	}
	env := &bind.Env{Nested: callgraph.NestedSpec, ContractCheck: func(*spec.Spec, diag.List, *spec.Finder) diag.List { return nil }}
	_, err = runContract(t, filepath.Join(dir, "app", "gone.prose.md"), nil, nil, env)
	if err == nil || !strings.Contains(err.Error(), "gone.prose.md:13:5") || !strings.Contains(err.Error(), `use "./missing" names no spec file`) {
		t.Errorf("a use naming nothing: %v", err)
	}
}
