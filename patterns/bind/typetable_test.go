package bind

import (
	"strings"
	"testing"

	"github.com/proselang/prose/spec"
)

// The loader and the binder read one type table (spec.TypeNames): every
// name the loader accepts types a value here, and a loose spelling the
// loader refuses (`int`, decided: rejected, with a did-you-mean) is no
// type to the binder either.
func TestOneTypeTable(t *testing.T) {
	for _, name := range spec.TypeNames() {
		got := parseType(name).String()
		if name == "null" {
			name = typeAny // null alone types nothing
		}
		if got != name {
			t.Errorf("declared %q types as %q", name, got)
		}
		if got := parseType(strings.ToUpper(name) + "[]").String(); name != typeAny && got != name+"[]" {
			t.Errorf("declared %q[] types as %q", name, got)
		}
	}
	for _, loose := range []string{"int", "float", "bool", "str", "list", "dict"} {
		if _, ok := spec.BaseType(loose); ok {
			t.Errorf("spec.BaseType(%q) accepts a loose spelling", loose)
		}
		if k := parseType(loose).Kind; k != typeAny {
			t.Errorf("the binder types %q as %s, the loader refuses it", loose, k)
		}
		src := "---\nname: t\nkind: pattern\n---\n\n# T\n\nT.\n\n### Config\n\n- `n` (" + loose + "): a count\n\n### Delegation\n\n```prose\nreturn n\n```\n"
		_, diags := spec.Parse("t.prose.md", []byte(src))
		if !diags.HasErrors() || !strings.Contains(diags.String(), "unknown type") {
			t.Errorf("a Config entry of type %s loads with %v, want an unknown-type error", loose, diags)
		}
	}
}
