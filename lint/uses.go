package lint

import (
	"path"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/std"
)

// Codes of the checks of use declarations (spec/use.go reads them).
const (
	// CodeUnresolvedUse: a use whose path names no file beside the spec
	// (nor PATH.prose.md, nor PATH/index.prose.md) or no spec of the
	// embedded library.
	CodeUnresolvedUse = "lint/unresolved-use"
	// CodeUseShadows: a use alias that a sibling file or a library spec
	// other than the used one answers to as well.
	CodeUseShadows = "lint/use-shadows"
	// CodeUnusedUse: a use whose alias no call of the Execution names
	// (a slip in the alias or in the call, or a use left behind).
	CodeUnusedUse = "lint/unused-use"
)

// uses checks the use declarations of n's Execution: each names a file
// or a library spec, at the string when it does not, and no other sibling
// file or library spec answers to its alias.
func uses(n *spec.Spec, f *spec.Finder) diag.List {
	var out diag.List
	if n.Execution == nil {
		return nil
	}
	called := map[string]bool{}
	if p := n.Execution.Program; p != nil {
		for _, c := range p.Calls() {
			if id, ok := c.Target.(*syntax.Ident); ok {
				called[id.Name] = true
			}
		}
	}
	declared := map[string]int{}
	for _, u := range n.Execution.Uses {
		declared[u.Alias]++
	}
	for _, u := range n.Execution.Uses {
		c := n.ResolveCall(u.Alias, nil, f)
		if c == nil || c.Use != u {
			if c == nil {
				out.Errorf(n.File, u.PathPos, CodeUnresolvedUse, "use %q: %s", u.Path, unresolvedUse(n, u))
			}
			continue
		}
		if n.Execution.Program != nil && !called[u.Alias] && declared[u.Alias] == 1 {
			out.Warnf(n.File, u.AliasPos, CodeUnusedUse, "use %q as %s: no call of this Execution names %s: call it (call %s), or drop the use", u.Path, u.Alias, u.Alias, u.Alias)
		}
		other := ""
		if p := otherCallee(n, u.Alias, f); p != "" && p != c.Path {
			other = p
		}
		if other != "" {
			out.Errorf(n.File, u.AliasPos, CodeUseShadows, "the use alias %s reaches %s, but %s answers to %s too: name the use with as NAME", u.Alias, c.Path, other, u.Alias)
		}
	}
	return out
}

// otherCallee is the sibling file or library spec a call of name would
// reach in n without its use, "" when none.
func otherCallee(n *spec.Spec, name string, f *spec.Finder) string {
	for _, sib := range n.Root().SiblingNames(f) {
		if sib != name {
			continue
		}
		// resolve as the file would without the use: through a node
		// that declares none, and a finder that keeps nothing of it
		probe := &spec.Spec{File: n.File, Name: n.Name}
		var once *spec.Finder
		if f != nil {
			cp := *f
			cp.Memo = nil
			once = &cp
		}
		if c := probe.ResolveCall(name, nil, once); c != nil && c.Path != "" {
			return c.Path
		}
	}
	return ""
}

// unresolvedUse says what a use names that is not there, and what is.
func unresolvedUse(n *spec.Spec, u *spec.Use) string {
	if u.Std {
		target := strings.TrimSuffix(u.Target, spec.Suffix)
		var names []string
		for _, e := range append(std.Roles(), std.List()...) {
			names = append(names, strings.TrimSuffix(e.Path, spec.Suffix))
		}
		msg := "prose's library has no " + target
		if u.Target != u.Path {
			msg += " (upstream's " + u.Path + ")"
		}
		best := didyoumean.Closest(path.Base(target), baseNames(names), 3)
		if best != "" {
			for _, p := range names {
				if path.Base(p) == best {
					return msg + "; the nearest it ships is " + p + ": write use \"" + p + "\", or vendor the spec beside this file and use \"./FILE\""
				}
			}
		}
		return msg + "; it ships std/roles/... and std/patterns/... only: vendor the spec beside this file and write use \"./FILE\""
	}
	if n.File == nil || n.File.Name == "" {
		return "a spec read from standard input has no directory to resolve " + u.Path + " from: run it from its file"
	}
	return "no " + u.Target + spec.Suffix + " or " + u.Target + "/index" + spec.Suffix + " relative to " + n.File.Name + ": write the path of a spec file relative to this one"
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = path.Base(p)
	}
	return out
}
