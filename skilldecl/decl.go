// Package skilldecl reads the ### Skills declarations of a node and
// resolves them (Contract Markdown 0.15, "Skills"): a skill is a
// directory holding a SKILL.md, installed by the user in the project's
// skills/ directory or the skills directory of an agent host under the
// home directory; prose never installs one.
//
//   - Declared and ForRender read the declarations (`document-skills:pdf`,
//     or a bare `pdf`) with their positions; Decl.Problem says why one is
//     malformed (skill_invalid).
//   - A Resolver looks each one up in its Roots, in order (Roots: the
//     project's skills/ directory, then ~/.claude/skills, ~/.codex/skills
//     and ~/.agents/skills). NAMESPACE:NAME is ROOT/NAMESPACE/NAME/SKILL.md
//     and a bare NAME is ROOT/NAME/SKILL.md; a namespaced name never
//     resolves to ROOT/NAME/, since a skill of that name installed from
//     another namespace would pass as the declared one (the error points
//     at it, so the fix is to declare the bare name). The first root that
//     has the file decides: a SKILL.md there that is not a regular file
//     or is over MaxSize is skill_unusable, not a reason to look further.
//     Nothing found is skill_unresolved, naming every path searched.
//   - Check gives every finding of a spec, for prose lint; a run refuses
//     a render by a model of a node whose skills do not resolve, and
//     gives the model each SKILL.md (Skill.Read) in its instructions.
//
// A responsibility's skills apply to the functions its render calls
// (ForRender): node declarations add to them.
package skilldecl

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// Lint codes: skill_unresolved is upstream's; skill_invalid follows its
// tool_invalid; skill_unusable is a SKILL.md that is found but cannot be
// handed to a model.
const (
	CodeInvalid    = "skill_invalid"
	CodeUnresolved = "skill_unresolved"
	CodeUnusable   = "skill_unusable"
)

// Decl is one item of a node's ### Skills section.
type Decl struct {
	Text      string // as written: "document-skills:pdf"
	Namespace string // "document-skills"; "" for a bare name
	Name      string // "pdf"
	Desc      string // the item's text after the declaration
	Pos       diag.Pos
	// Node is the node whose section declares it.
	Node *spec.Spec
}

// Position is d's place in its file.
func (d Decl) Position() diag.Position { return d.Node.File.Position(d.Pos) }

// Problem is why a declaration is malformed, with its lint code ("" for
// a declaration that is well formed).
func (d Decl) Problem() (code, msg string) {
	const form = "write `NAMESPACE:NAME` (a skill installed as NAMESPACE/NAME/SKILL.md) or `NAME`"
	text := d.Text
	switch {
	case strings.TrimSpace(text) == "":
		return CodeInvalid, "empty skill declaration: " + form
	case strings.ContainsAny(text, " \t"):
		return CodeInvalid, fmt.Sprintf("%q is not a skill declaration: a skill name has no spaces (put a description after `: `); %s", text, form)
	case strings.ContainsAny(text, `/\`):
		return CodeInvalid, fmt.Sprintf("skill %q: a skill name must not contain a path separator; %s, and install the skill in a skills directory", text, form)
	case strings.Count(text, ":") > 1:
		return CodeInvalid, fmt.Sprintf("skill %q has more than one colon: %s", text, form)
	}
	ns, name, namespaced := strings.Cut(text, ":")
	if !namespaced {
		ns, name = "", text
	}
	switch {
	case namespaced && ns == "":
		return CodeInvalid, fmt.Sprintf("skill %q: the namespace before the colon is empty: %s", text, form)
	case name == "":
		return CodeInvalid, fmt.Sprintf("skill %q: the name is empty: %s", text, form)
	}
	for _, part := range []string{ns, name} {
		if part == "." || strings.Contains(part, "..") {
			return CodeInvalid, fmt.Sprintf("skill %q: %q would name a directory outside the skills directory: %s", text, part, form)
		}
		for _, r := range part {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
				return CodeInvalid, fmt.Sprintf("skill %q: %q is not allowed in a skill name (letters, digits, '-', '_' and '.'): %s", text, r, form)
			}
		}
	}
	return "", ""
}

// Declared reads the ### Skills section of node n (not of its inline
// nodes): one Decl per bullet, in order. `(none)` and prose lines declare
// nothing.
func Declared(n *spec.Spec) []Decl {
	var out []Decl
	n.SectionLines("skills", func(line string, at diag.Pos) {
		if d, ok := parseItem(line); ok {
			d.Pos += at
			d.Node = n
			out = append(out, d)
		}
	})
	return out
}

// ForRender is what a render of n uses: its own declarations, then those
// of the responsibility it belongs to, when it is an inline node of one.
// A skill declared twice is used once.
func ForRender(n *spec.Spec) []Decl {
	return spec.Inherited(n, Declared, func(d Decl) string { return d.Text })
}

// parseItem reads one line of a Skills section: "- document-skills:pdf",
// "- `document-skills:pdf`: what for" or "- pdf: what for". Unquoted, the
// declaration runs to ": " or the end of the line, so a name with a space
// in it is read whole (and is malformed), not cut at the space. Pos is
// the declaration's offset in the line.
func parseItem(line string) (Decl, bool) {
	t := strings.TrimLeft(line, " \t")
	indent := len(line) - len(t)
	if !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") && strings.TrimRight(t, "\r\n") != "-" && strings.TrimRight(t, "\r\n") != "*" {
		return Decl{}, false
	}
	body := strings.TrimRight(t[1:], "\r\n")
	lead := len(body) - len(strings.TrimLeft(body, " \t"))
	body = strings.TrimRight(body[lead:], " \t")
	at := indent + 1 + lead
	var text, rest string
	if strings.HasPrefix(body, "`") {
		end := strings.IndexByte(body[1:], '`')
		if end < 0 {
			text = body[1:]
		} else {
			text, rest = body[1:1+end], body[2+end:]
		}
		at++
	} else {
		// "ns:" is a namespace with an empty name, not "ns" described
		// by nothing
		text, rest, _ = strings.Cut(body, ": ")
	}
	if strings.EqualFold(strings.Trim(text, "()"), "none") && rest == "" {
		return Decl{}, false
	}
	d := Decl{Text: text, Pos: diag.Pos(at), Desc: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":"))}
	if ns, name, ok := strings.Cut(text, ":"); ok {
		d.Namespace, d.Name = ns, name
	} else {
		d.Name = text
	}
	return d, true
}
