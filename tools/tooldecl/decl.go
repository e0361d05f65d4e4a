// Package tooldecl reads the ### Tools declarations of a node and checks
// them: their form, and whether each resolves (a cli: program on PATH, an
// mcp: server of the MCP configuration, which it reads too). It is what
// lint needs of tools, apart from package tools, which calls the tools and
// links the MCP client, the model client and the HTTP stack.
package tooldecl

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// Kinds of declaration upstream supports; every other namespace is
// reserved (contract-markdown.md, "Tools").
const (
	KindCLI = "cli"
	KindMCP = "mcp"
)

// Decl is one item of a node's ### Tools section.
type Decl struct {
	Text string // as written: "cli:jq"
	Kind string // "cli", "mcp", or a reserved namespace; "" when malformed
	Name string // what follows the colon
	Desc string // the item's text after the declaration
	Pos  diag.Pos
	// Node is the node whose section declares it.
	Node *spec.Spec
}

// Position is d's place in its file.
func (d Decl) Position() diag.Position { return d.Node.File.Position(d.Pos) }

// Problem is why a declaration cannot be used, with the lint code
// upstream gives it ("" for a declaration that is well formed).
func (d Decl) Problem() (code, msg string) {
	switch {
	case d.Kind == "" || d.Name == "":
		return CodeInvalid, fmt.Sprintf("%q is not a tool declaration: write `cli:NAME` (a program found on PATH) or `mcp:NAME` (a server of the MCP configuration)", d.Text)
	case strings.ContainsAny(d.Name, `/\`):
		return CodeInvalid, fmt.Sprintf("tool %q: a tool name must not contain a path separator (cli: names a program looked up on PATH; put its directory on PATH instead)", d.Text)
	case d.Kind != KindCLI && d.Kind != KindMCP:
		return CodeUnsupportedKind, fmt.Sprintf("tool %q: the namespace %q is reserved and not supported; only cli: and mcp: are", d.Text, d.Kind)
	}
	return "", ""
}

// Lint codes, upstream's names.
const (
	CodeInvalid         = "tool_invalid"
	CodeUnsupportedKind = "tool_unsupported_kind"
	CodeUnresolved      = "tool_unresolved"
)

// Declared reads the ### Tools section of node n (not of its inline
// nodes): one Decl per bullet, in order. `(none)` and prose lines declare
// nothing.
func Declared(n *spec.Spec) []Decl {
	var out []Decl
	n.SectionLines("tools", func(line string, at diag.Pos) {
		if d, ok := parseItem(line); ok {
			d.Pos += at
			d.Node = n
			out = append(out, d)
		}
	})
	return out
}

// ForRender is what a render of n is offered: its own declarations, then
// those of the responsibility it belongs to, when it is an inline node of
// one (a responsibility's tools apply to the functions it calls; node
// declarations add to them). A name declared twice is offered once.
func ForRender(n *spec.Spec) []Decl {
	return spec.Inherited(n, Declared, func(d Decl) string { return d.Text })
}

// parseItem reads one line of a Tools section: "- `cli:jq`: what for".
// Pos is the declaration's offset in the line.
func parseItem(line string) (Decl, bool) {
	t := strings.TrimLeft(line, " \t")
	indent := len(line) - len(t)
	if !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") {
		return Decl{}, false
	}
	body := strings.TrimRight(t[2:], "\r\n")
	lead := len(body) - len(strings.TrimLeft(body, " \t"))
	body = body[lead:]
	at := indent + 2 + lead
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
		text, rest, _ = strings.Cut(body, " ")
		text = strings.TrimSuffix(text, ":")
	}
	if strings.EqualFold(strings.Trim(text, "()"), "none") && rest == "" {
		return Decl{}, false
	}
	d := Decl{Text: text, Pos: diag.Pos(at), Desc: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":"))}
	if kind, name, ok := strings.Cut(text, ":"); ok && isWord(kind) {
		d.Kind, d.Name = strings.ToLower(kind), strings.TrimSpace(name)
	}
	return d, true
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
