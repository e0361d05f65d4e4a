package lint

import (
	"io/fs"
	"path"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/tools/tooldecl"
)

// ### Tools checks, by upstream's rules (contract-markdown.md, "Tools"),
// with upstream's codes: a malformed declaration (`gh`, `cli:`) is
// tool_invalid, a reserved namespace (`http:x`) tool_unsupported_kind, a
// cli: program not on PATH or an mcp: server the project's MCP
// configuration (.mcp.json in the file's directory or above it, up to the
// project root) does not have tool_unresolved. Each is an error at the
// declaration: prose run refuses the same before it starts.

// toolRules are the codes of the Tools checks.
func toolRules() []spec.Rule {
	return []spec.Rule{
		{Code: tooldecl.CodeInvalid, Severity: diag.Error, Short: "Tools declaration that is not `cli:NAME` or `mcp:NAME`"},
		{Code: tooldecl.CodeUnsupportedKind, Severity: diag.Error, Short: "Tools declaration in a reserved namespace (only cli: and mcp: are supported)"},
		{Code: tooldecl.CodeUnresolved, Severity: diag.Error, Short: "Tools declaration that names no program on PATH or no configured MCP server"},
	}
}

// toolChecks runs the Tools checks of s, the file name of fsys.
func toolChecks(fsys fs.FS, name string, s *spec.Spec) diag.List {
	if s == nil || !s.Contract {
		return nil
	}
	reg := &tooldecl.Registry{}
	// Only an mcp: declaration is checked against the MCP configuration:
	// a file that declares none does not look for one (the search stats
	// two names in every directory up to the project root).
	if declaresMCP(s) {
		cfg, err := tooldecl.FindConfigFS(fsys, path.Dir(name))
		if err != nil {
			reg.ConfigErr = err
		} else {
			reg.Config = cfg
		}
	}
	return tooldecl.Check(s, reg)
}

// declaresMCP reports whether s or one of its nodes declares an mcp: tool.
func declaresMCP(s *spec.Spec) bool {
	for _, n := range append([]*spec.Spec{s}, s.Nodes...) {
		for _, d := range tooldecl.Declared(n) {
			if d.Kind == tooldecl.KindMCP {
				return true
			}
		}
	}
	return false
}
