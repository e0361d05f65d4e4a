package tools

import (
	"io/fs"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/tools/tooldecl"
)

// The declarations, their checks and the MCP configuration live in
// package tooldecl (what lint links without the MCP client); these are
// their names here.
type (
	// Decl is one item of a node's ### Tools section.
	Decl = tooldecl.Decl
	// Registry is where declarations are resolved.
	Registry = tooldecl.Registry
	// Config is an MCP configuration.
	Config = tooldecl.Config
	// Server is a server of an MCP configuration.
	Server = tooldecl.Server
)

// Kinds, lint codes and the configuration file's name (see tooldecl).
const (
	KindCLI             = tooldecl.KindCLI
	KindMCP             = tooldecl.KindMCP
	CodeInvalid         = tooldecl.CodeInvalid
	CodeUnsupportedKind = tooldecl.CodeUnsupportedKind
	CodeUnresolved      = tooldecl.CodeUnresolved
	ConfigFile          = tooldecl.ConfigFile
)

// Declared reads the ### Tools section of a node (tooldecl.Declared).
func Declared(n *spec.Spec) []Decl { return tooldecl.Declared(n) }

// ForRender are the declarations a render of n offers the model
// (tooldecl.ForRender).
func ForRender(n *spec.Spec) []Decl { return tooldecl.ForRender(n) }

// ParseConfig reads an MCP configuration (tooldecl.ParseConfig).
func ParseConfig(data []byte, name string) (*Config, error) { return tooldecl.ParseConfig(data, name) }

// LoadConfig reads the MCP configuration file (tooldecl.LoadConfig).
func LoadConfig(file string) (*Config, error) { return tooldecl.LoadConfig(file) }

// FindConfig finds the project's MCP configuration from dir
// (tooldecl.FindConfig).
func FindConfig(dir string) (*Config, error) { return tooldecl.FindConfig(dir) }

// FindConfigFS is FindConfig in fsys (tooldecl.FindConfigFS).
func FindConfigFS(fsys fs.FS, dir string) (*Config, error) { return tooldecl.FindConfigFS(fsys, dir) }

// Check is every finding of the declarations of n and its inline nodes
// (tooldecl.Check).
func Check(n *spec.Spec, reg *Registry) diag.List { return tooldecl.Check(n, reg) }
