package lint

import (
	"io/fs"
	"path"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/skilldecl"
	"github.com/proselang/prose/spec"
)

// ### Skills checks (contract-markdown.md, "Skills"): a malformed
// declaration is skill_invalid; one found in none of the skills
// directories (the project's skills/, found from the file's directory up
// to the project root as .mcp.json is, then ~/.claude/skills,
// ~/.codex/skills, ~/.agents/skills) is skill_unresolved, naming every
// path searched; a SKILL.md found but not a regular file, or too large
// to hand to a model, is skill_unusable. Each is an error at the
// declaration: a render by a model refuses the same before it starts.

// skillRules are the codes of the Skills checks.
func skillRules() []spec.Rule {
	return []spec.Rule{
		{Code: skilldecl.CodeInvalid, Severity: diag.Error, Short: "Skills declaration that is not `NAMESPACE:NAME` or `NAME`"},
		{Code: skilldecl.CodeUnresolved, Severity: diag.Error, Short: "Skills declaration found in none of the skills directories (the project's skills/, ~/.claude/skills, ~/.codex/skills, ~/.agents/skills)"},
		{Code: skilldecl.CodeUnusable, Severity: diag.Error, Short: "Skills declaration whose SKILL.md is not a regular file or is over 256 KiB"},
	}
}

// skillChecks runs the Skills checks of s, the file name of fsys. A file
// that declares no skill looks for no skills directory.
func skillChecks(fsys fs.FS, name string, s *spec.Spec) diag.List {
	if s == nil || !s.Contract || !skilldecl.Any(s) {
		return nil
	}
	r := skilldecl.NewResolver(skilldecl.ProjectRootFS(fsys, path.Dir(name)), skilldecl.Home())
	return skilldecl.Check(s, r)
}
