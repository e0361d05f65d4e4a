package typed

import (
	"strings"
	"testing"

	"github.com/proselang/prose/spec"
)

// The loader and the binder read one type table (spec.TypeNames): every
// name the loader accepts types a value here, and a loose spelling
// (`int`, decided: it means integer) types a value as the loader stores
// it.
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
	for loose, want := range map[string]string{"int": "integer", "float": "number", "bool": "boolean", "str": "string", "list": "any[]", "dict": "object"} {
		src := "---\nname: t\nkind: pattern\n---\n\n# T\n\nT.\n\n### Slots\n\n- `w`\n\n### Config\n\n- `n` (" + loose + "): a count\n\n### Delegation\n\n```prose\nreturn call w\n  n: n\n```\n"
		s, diags := spec.Parse("t.prose.md", []byte(src))
		if diags.HasErrors() || len(s.Config) != 1 || s.Config[0].Type != want {
			t.Fatalf("a Config entry of type %s: %v %v, want type %s", loose, s.Config, diags, want)
		}
		if got := parseType(s.Config[0].Type).String(); got != want && !(want == "any[]" && got == typeArray) {
			t.Errorf("the binder types %q (declared %s) as %s", want, loose, got)
		}
	}
}
