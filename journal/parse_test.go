package journal

import (
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

func parseMaybe(code string) (*syntax.Program, diag.List) {
	prog, diags := syntax.ParseString("first.prose.md", code)
	if diags.HasErrors() {
		return nil, diags
	}
	return prog, diags
}
