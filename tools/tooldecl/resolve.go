package tooldecl

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// Registry is where declarations are resolved: programs on PATH and the
// servers of an MCP configuration (plus in-process servers a Go program
// registers).
type Registry struct {
	// LookPath finds a program (nil: exec.LookPath).
	LookPath func(string) (string, error)
	Config   *Config
	// InProcess names servers served in the process (Options.Servers).
	InProcess map[string]bool
	// ConfigErr is why the MCP configuration could not be read (an mcp:
	// declaration then resolves to nothing, and says why).
	ConfigErr error
}

// LookPathOf finds program name as the registry does: its LookPath, else
// exec.LookPath.
func (r *Registry) LookPathOf(name string) (string, error) {
	if r != nil && r.LookPath != nil {
		return r.LookPath(name)
	}
	return exec.LookPath(name)
}

// has reports whether the registry has an MCP server name.
func (r *Registry) has(name string) bool {
	if r == nil {
		return false
	}
	if r.InProcess[name] {
		return true
	}
	_, ok := r.Config.ServerMap()[name]
	return ok
}

// ServerMap is c's servers by name (nil for a nil c).
func (c *Config) ServerMap() map[string]Server {
	if c == nil {
		return nil
	}
	return c.Servers
}

// Check is every finding of the declarations of n and its inline nodes:
// malformed ones (tool_invalid), reserved namespaces
// (tool_unsupported_kind) and, when reg is not nil, ones that do not
// resolve (tool_unresolved). Each is an error at the declaration.
func Check(n *spec.Spec, reg *Registry) diag.List {
	var out diag.List
	for _, node := range append([]*spec.Spec{n}, n.Nodes...) {
		for _, d := range Declared(node) {
			code, msg := d.Problem()
			if code == "" && reg != nil {
				code, msg = reg.Unresolved(d)
			}
			if code != "" {
				out.Errorf(node.File, d.Pos, code, "%s", msg)
			}
		}
	}
	return out
}

// Unresolved says why a well-formed declaration finds nothing ("" when
// it resolves).
func (r *Registry) Unresolved(d Decl) (code, msg string) {
	switch d.Kind {
	case KindCLI:
		if _, err := r.LookPathOf(d.Name); err != nil {
			return CodeUnresolved, fmt.Sprintf("tool %q: no program %q on PATH; install it or put its directory on PATH (prose never installs tools)", d.Text, d.Name)
		}
	case KindMCP:
		if r != nil && r.ConfigErr != nil && !r.InProcess[d.Name] {
			return CodeUnresolved, fmt.Sprintf("tool %q: the MCP configuration cannot be read: %v", d.Text, r.ConfigErr)
		}
		if !r.has(d.Name) {
			where := "no " + ConfigFile + " was found at the project root; write one, or pass --mcp-config FILE"
			if r != nil && r.Config != nil && r.Config.File != "" {
				where = fmt.Sprintf("%s has no server %q", r.Config.File, d.Name)
				if names := r.Config.Names(); len(names) > 0 {
					where += " (it has " + strings.Join(names, ", ") + ")"
				}
			}
			return CodeUnresolved, fmt.Sprintf("tool %q: MCP server %q is not configured: %s", d.Text, d.Name, where)
		}
	}
	return "", ""
}
