package spec

import (
	"strings"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/diag"
)

// CheckProgram runs the static checks of a spec's Delegation program,
// given the loader's findings: the checker's (check.Check, over the
// spec's declarations) and the config defaults its uses as counts or
// timeouts would refuse. Nothing when there is no Delegation program or
// when the loader reported a syntax error in it (checks of a broken
// program would only cascade). prose lint and the checks before a run
// both use it.
func CheckProgram(s *Spec, loaded diag.List) diag.List {
	if s == nil || s.Delegation == nil || s.Delegation.Program == nil {
		return nil
	}
	for _, d := range loaded {
		if d.Severity == diag.Error && (strings.HasPrefix(d.Code, "syntax/") || d.Code == CodeUnsupportedScript) {
			return nil
		}
	}
	return append(check.Check(s.Delegation.Program, s.Decls()), checkDefaults(s, loaded)...)
}

// checkDefaults reports config defaults that their uses as counts or
// timeouts would refuse at run time, at the Config line; a key whose line
// already has a loader error (an unknown type, a duration that is none) is
// left to that error.
func checkDefaults(s *Spec, loaded diag.List) diag.List {
	// A line's number costs the file's line table: asked only when some
	// line has an error.
	var bad map[int]bool
	for _, d := range loaded {
		if d.Severity == diag.Error {
			if bad == nil {
				bad = map[int]bool{}
			}
			bad[d.Line] = true
		}
	}
	var defaults []check.Default
	for _, c := range s.Config {
		if c.HasDefault && c.Default != nil && (len(bad) == 0 || !bad[s.File.Position(c.Pos).Line]) {
			defaults = append(defaults, check.Default{Name: c.Name, Pos: c.Pos, Value: c.Default})
		}
	}
	return check.CheckDefaults(s.Delegation.Program, defaults)
}
