package callgraph_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/runhost"
)

// --slot binds callees of a function graph (issue 18, item 11): binding
// the file's own name when its inline nodes give every output serves the
// whole file; a binding nothing uses is a warning naming it, and the run
// goes on; a name close to a callee's is taken for a typo and refused with
// the name meant.
func TestSlotBindsAnyCallee(t *testing.T) {
	// f's one output comes from its inline node part, which nothing
	// serves here but the model (none is configured).
	dir := writeFiles(t, map[string]string{"f.prose.md": fn("f", "", "out", node("part", "", "out"))})
	path := filepath.Join(dir, "f.prose.md")

	v, err := runContract(t, path, []string{`f=exec:echo '{"out": "whole"}'`}, nil, nil)
	if err != nil {
		t.Fatalf("binding the file's own name: %v", err)
	}
	if got := asJSON(t, v); got != `{"out":"whole"}` {
		t.Errorf("value %s, want the binding's", got)
	}

	p, err := runhost.Prepare(runhost.RunOptions{Path: path, Env: &bind.Env{},
		Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "part", Value: "exec:echo '\"p\"'"}, {Name: "zzz-other", Value: "exec:true"}}}})
	if err != nil {
		t.Fatalf("an unused binding refused the run: %v", err)
	}
	if w := p.Warnings.String(); !strings.Contains(w, `--slot zzz-other is not used: no callee of `+path+` is named "zzz-other" [run/unused-binding]`) {
		t.Errorf("warnings %q, want the unused binding named", w)
	}

	_, err = runContract(t, path, []string{"part=exec:true", "f-=exec:true"}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), `did you mean "f"?`) {
		t.Errorf("a typo: %v, want it refused with the name meant", err)
	}

	// A sibling file that nothing calls is no callee a binding missed:
	// a name near it alone is an unused binding, not a typo of it.
	if err := os.WriteFile(filepath.Join(dir, "sibling.prose.md"), []byte(fn("sibling", "", "out", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err = runhost.Prepare(runhost.RunOptions{Path: path, Env: &bind.Env{},
		Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "part", Value: "exec:true"}, {Name: "siblink", Value: "exec:true"}}}})
	if err != nil {
		t.Fatalf("a binding near an uncalled sibling refused the run: %v", err)
	}
	if w := p.Warnings.String(); !strings.Contains(w, `--slot siblink is not used`) {
		t.Errorf("warnings %q, want the unused binding named", w)
	}
}
