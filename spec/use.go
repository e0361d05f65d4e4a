package spec

import (
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// Dependency declarations (ProseScript `use`).
//
// `use "PATH" [as ALIAS]` at the top of a function's or responsibility's
// ### Execution (before any statement; agent and block definitions may
// come before it) makes ALIAS a call target that reaches the spec PATH
// names (Spec.ResolveCall: right after the slots). ALIAS defaults to the
// last segment of PATH without .prose.md. The paths prose resolves:
//
//   - std/... and upstream's spelling of the same library,
//     github.com/openprose/prose/packages/std/...: the embedded library;
//   - ./x, ../lib/y and a bare file name x, with or without .prose.md (or
//     a directory holding index.prose.md): from the spec's directory.
//
// Everything else upstream resolves from <openprose-root>/deps/ (other
// git hosts, co/..., pinned versions @v1, the registry) is an error at
// the string naming what to write, never a silent fallback: prose keeps
// no deps directory.
//
// Decided (upstream's validation table says `use` in embedded Contract
// Markdown ProseScript is an error, while its Calls and Embedded
// Execution Blocks sections, and its upgrade rule, keep `use` in the
// ### Execution and call the dependency from there): a `use` in an
// Execution resolves, as the Calls section has it; one in a pattern's
// ### Delegation is an error (a pattern calls its slots; a slot is bound
// to a file), so a pattern's dependencies stay with its instance.
//
// Errors, at the token: an empty path, a path of a form prose does not
// resolve, an alias that is not an identifier (or a default one that is
// not: add `as NAME`), an alias declared twice, an alias that is a slot,
// an input, a ## node or a pattern instance of the file or the node's
// own name, a `use` after a statement or inside a block, and a `use` in
// a pattern's Delegation. lint reports a path that names no file or no
// library spec (lint/unresolved-use) and an alias that a sibling file
// other than the used one also answers to (lint/use-shadows).

// Use is one `use` line of an Execution.
type Use struct {
	// Path is the path as written; Target the library path it stands
	// for ("std/roles/critic") when Std, else the relative path.
	Path   string
	Target string
	Std    bool
	Alias  string
	// Pos is the `use` keyword, PathPos the string's opening quote,
	// AliasPos the alias (PathPos when it is the default).
	Pos, PathPos, AliasPos diag.Pos
}

// UseOf is the use of s's Execution whose alias is name, or nil.
func (s *Spec) UseOf(name string) *Use {
	if s == nil || s.Execution == nil {
		return nil
	}
	for _, u := range s.Execution.Uses {
		if u.Alias == name {
			return u
		}
	}
	return nil
}

// usePatternMsg is the error of a use in a pattern's Delegation.
const usePatternMsg = "use in a pattern's Delegation: a pattern calls its slots; bind the slot to the file instead (with: SLOT: ./file in the instance, or --slot SLOT=./file.prose.md)"

// useLine matches a line that starts a use declaration (not an
// assignment to a variable named use).
var useLine = regexp.MustCompile(`^use(\s*$|\s+[^=\s])`)

// defLine matches the header of a definition a use may follow.
var defLine = regexp.MustCompile(`^(agent|block)\s`)

// uses reads the use lines at the top of d's code: it records them in
// d.Uses (an Execution) or reports them (a pattern's Delegation), and
// returns the lines the parser reads, those lines blank.
func (l *loader) uses(d *Delegation, pattern bool) []syntax.Line {
	var out []syntax.Line
	inDef := false
	for i, ln := range d.Lines {
		t := strings.TrimSpace(ln.Text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		indented := ln.Text[0] == ' ' || ln.Text[0] == '\t'
		if indented && inDef {
			continue
		}
		if indented || !useLine.MatchString(ln.Text) {
			if !indented && defLine.MatchString(ln.Text) {
				inDef = true
				continue
			}
			break
		}
		inDef = false
		if out == nil {
			out = append([]syntax.Line(nil), d.Lines...)
		}
		out[i].Text = ""
		if pattern {
			l.errorf(int(ln.Off), CodeUsePlace, "%s", usePatternMsg)
			continue
		}
		if u := l.useDecl(ln); u != nil {
			for _, o := range d.Uses {
				if o.Alias == u.Alias {
					l.errorf(int(u.AliasPos), CodeUseAlias, "%s is declared twice as a use alias (first on line %d): give one of them another name with as NAME", u.Alias, l.f.Position(o.Pos).Line)
					u = nil
					break
				}
			}
			if u != nil {
				d.Uses = append(d.Uses, u)
			}
		}
	}
	if out == nil {
		return d.Lines
	}
	return out
}

// useDecl reads one use line; nil when it is reported.
func (l *loader) useDecl(ln syntax.Line) *Use {
	text := ln.Text
	at := func(i int) int { return int(ln.Off) + i }
	i := len("use")
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i >= len(text) || text[i] != '"' {
		l.errorf(at(i), CodeUsePath, `use takes a quoted path: use "./file" or use "std/roles/critic", then as NAME if you like`)
		return nil
	}
	u := &Use{Pos: ln.Off, PathPos: diag.Pos(at(i))}
	raw, n, ok := useString(text[i:])
	if !ok {
		l.errorf(at(i), CodeUsePath, `the path of use is not one string closed on its line: write use "./file" [as NAME]`)
		return nil
	}
	u.Path = raw
	i += n
	rest := text[i:]
	if c := strings.Index(rest, "#"); c >= 0 {
		rest = rest[:c]
	}
	if f := strings.Fields(rest); len(f) > 0 {
		off := i + strings.Index(text[i:], f[0])
		if f[0] != "as" || len(f) > 2 {
			l.errorf(at(off), CodeUseAlias, "expected as NAME after the path of use, not %q", strings.Join(f, " "))
			return nil
		}
		if len(f) == 1 {
			l.errorf(at(off), CodeUseAlias, "as needs a name after it: use %q as NAME", raw)
			return nil
		}
		u.Alias = f[1]
		u.AliasPos = diag.Pos(at(off + 2 + strings.Index(text[off+2:], f[1])))
		if !isScriptIdent(u.Alias) {
			l.errorf(int(u.AliasPos), CodeUseAlias, "the alias %q is not a name: write a letter or _ then letters, digits and _ (a hyphen only between two letters)", u.Alias)
			return nil
		}
		if syntax.Reserved(u.Alias) {
			l.errorf(int(u.AliasPos), CodeUseAlias, "the alias %s is a word of the language (call %s cannot name it): name the use otherwise, e.g. as %s_", u.Alias, u.Alias, u.Alias)
			return nil
		}
	}
	if !l.usePath(u) {
		return nil
	}
	if u.Alias == "" {
		u.AliasPos = u.PathPos
		u.Alias = strings.TrimSuffix(path.Base(u.Target), Suffix)
		if !isScriptIdent(u.Alias) || syntax.Reserved(u.Alias) {
			l.errorf(int(u.PathPos), CodeUseAlias, "the last part of %q, %q, is not a name a call can use: add as NAME", u.Path, u.Alias)
			return nil
		}
	}
	return u
}

// useString reads the string at the start of s (s[0] is '"'): its value
// and its length; not ok when it does not close.
func useString(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), i + 1, true
		case '\\':
			if i+1 >= len(s) {
				return "", 0, false
			}
			i++
			switch e := s[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// upstreamStd is upstream's spelling of the library's path.
const upstreamStd = "github.com/openprose/prose/packages/std/"

// usePath classifies u's path, reporting a form prose does not resolve.
func (l *loader) usePath(u *Use) bool {
	p := strings.TrimSpace(u.Path)
	const vendor = `vendor the file beside the spec and write use "./FILE" (prose resolves std/... library paths and paths relative to the spec; it keeps no deps directory)`
	first, _, _ := strings.Cut(p, "/")
	switch {
	case p == "":
		l.errorf(int(u.PathPos), CodeUsePath, `the path of use is empty: write use "./file" or use "std/roles/critic"`)
		return false
	case strings.Contains(p, "@"):
		l.errorf(int(u.PathPos), CodeUsePath, "use %q pins a version, which prose does not resolve: %s", u.Path, vendor)
		return false
	case strings.HasPrefix(p, upstreamStd):
		u.Std, u.Target = true, "std/"+strings.TrimPrefix(p, upstreamStd)
	case strings.HasPrefix(p, "std/"):
		u.Std, u.Target = true, p
	case strings.HasPrefix(p, "co/"):
		l.errorf(int(u.PathPos), CodeUsePath, "use %q names an OpenProse co/ package, which prose does not ship: %s", u.Path, vendor)
		return false
	case strings.HasPrefix(p, "/") || strings.Contains(p, `\`):
		l.errorf(int(u.PathPos), CodeUsePath, "use %q: write a path relative to the spec with / between its parts (./file, ../lib/file)", u.Path)
		return false
	case strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || !strings.Contains(p, "/"):
		u.Target = p
	case strings.Contains(first, "."):
		l.errorf(int(u.PathPos), CodeUsePath, "use %q names a git host's repository, which prose does not fetch or read from a deps directory: %s", u.Path, vendor)
		return false
	default:
		l.errorf(int(u.PathPos), CodeUsePath, "use %q is a registry path, which prose does not resolve: write ./%s for a file beside the spec, or std/%s for the library", u.Path, p, p)
		return false
	}
	if u.Std && (u.Target == "std/" || strings.HasSuffix(u.Target, "/")) {
		l.errorf(int(u.PathPos), CodeUsePath, "use %q names no spec: write the library path of one, std/roles/critic", u.Path)
		return false
	}
	return true
}

// isScriptIdent reports whether s is a name a call can use: a letter or
// _, then letters, digits and _, a hyphen between two letters joining
// the parts (my-helper), as the Delegation scanner reads names (upstream
// allows a hyphen anywhere after the first letter; `a-1` would read as a
// subtraction).
func isScriptIdent(s string) bool {
	if s == "" || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	letter := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	for i := 0; i < len(s); i++ {
		switch {
		case isIdentByte(s[i]):
		case s[i] == '-' && i > 0 && i+1 < len(s) && letter(s[i-1]) && letter(s[i+1]):
		default:
			return false
		}
	}
	return true
}

// lateUse replaces each syntax error on a use line the parser met (after
// a statement, or indented in a block) with one error saying where a use
// goes.
func lateUse(f *diag.File, lines []syntax.Line, diags diag.List, pattern bool) diag.List {
	out := diags[:0]
	done := map[int]bool{}
	for _, d := range diags {
		i := -1
		if d.Severity == diag.Error && strings.HasPrefix(d.Code, "syntax/") {
			i = codeLineAt(lines, d.Offset)
		}
		if i < 0 || !useLine.MatchString(strings.TrimLeft(lines[i].Text, " \t")) {
			out = append(out, d)
			continue
		}
		if !done[i] {
			done[i] = true
			at := int(lines[i].Off) + len(lines[i].Text) - len(strings.TrimLeft(lines[i].Text, " \t"))
			var one diag.List
			if pattern {
				one.Errorf(f, diag.Pos(at), CodeUsePlace, "%s", usePatternMsg)
			} else {
				one.Errorf(f, diag.Pos(at), CodeUsePlace, "use comes after a statement here: declare every use at the top of the Execution, before its first statement")
			}
			out = append(out, one...)
		}
	}
	return out
}

// useCollisions reports the use aliases of every node of the file that
// are also a slot, an input, a ## node or a pattern instance: a call of
// the name would reach one of two things the author named alike.
func (l *loader) useCollisions() {
	root := l.s
	for _, n := range append([]*Spec{root}, root.Nodes...) {
		if n.Execution == nil {
			continue
		}
		for _, u := range n.Execution.Uses {
			what := ""
			switch {
			case u.Alias == n.Name || u.Alias == root.Name:
				what = "the name of this node (a call of it calls itself)"
			case n.slot(u.Alias):
				what = "a slot"
			case n.input(u.Alias) != nil:
				what = "an input"
			case root.Node(u.Alias) != nil:
				what = "a ## node of this file"
			case root.Instance(u.Alias) != nil:
				what = "a pattern instance of this file"
			}
			if what != "" {
				l.errorf(int(u.AliasPos), CodeUseAlias, "the use alias %s is also %s: a call of %s would reach one of them; name the use with as NAME", u.Alias, what, u.Alias)
			}
		}
	}
}

func (s *Spec) slot(name string) bool {
	for _, sl := range s.Slots {
		if sl.Name == name {
			return true
		}
	}
	return false
}

// usedCallee is the callee of the use u made in s: the library spec or
// the file it names; nil when it names none.
func (s *Spec) usedCallee(u *Use, f *Finder) *Callee {
	if u.Std {
		if p := stdPath(strings.TrimSuffix(u.Target, Suffix), f); p != "" {
			return &Callee{Kind: CalleeStd, Name: u.Alias, Path: p, Use: u}
		}
		return nil
	}
	if p := s.Root().UsedFile(u, f); p != "" {
		return &Callee{Kind: CalleeSibling, Name: u.Alias, Path: p, Use: u}
	}
	return nil
}

// UsedFile is the file the relative path of u names from s's directory:
// the path itself when it ends in .prose.md, else with .prose.md, else
// its index.prose.md; "" when none is there (or s has no file). Only
// stats are made: a named pipe there is the load's to refuse.
func (s *Spec) UsedFile(u *Use, f *Finder) string {
	if u == nil || u.Std || s.File == nil || s.File.Name == "" {
		return ""
	}
	base := f.join(f.dir(s.File.Name), u.Target)
	cands := []string{base}
	if !strings.HasSuffix(base, Suffix) {
		cands = []string{base + Suffix, f.join(base, "index"+Suffix)}
	}
	for _, p := range cands {
		if st, err := f.stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

func (f *Finder) stat(name string) (fs.FileInfo, error) {
	if f == nil || f.FS == nil {
		return os.Stat(name)
	}
	return fs.Stat(f.FS, name)
}
