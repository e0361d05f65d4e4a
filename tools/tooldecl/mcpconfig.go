package tooldecl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
)

// ConfigFile is the project's MCP configuration, at the project root, in
// the form agent hosts read ({"mcpServers": {NAME: {...}}}).
const ConfigFile = ".mcp.json"

// Server is one server of an MCP configuration: a program spoken to over
// stdio (Command, Args, Env) or a streamable HTTP endpoint (URL, Headers).
type Server struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Config is an MCP configuration: the servers by name, and the file it
// was read from ("" when none was found).
type Config struct {
	Servers map[string]Server `json:"mcpServers"`
	File    string            `json:"-"`
}

// Names are the configured servers' names, sorted.
func (c *Config) Names() []string {
	if c == nil {
		return nil
	}
	out := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ParseConfig reads an MCP configuration; name is for messages.
func ParseConfig(data []byte, name string) (*Config, error) {
	var c Config
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: not an MCP configuration ({\"mcpServers\": {NAME: {\"command\", \"args\", \"env\"} | {\"url\", \"headers\"}}}): %v", name, err)
	}
	for n, s := range c.Servers {
		if (s.Command == "") == (s.URL == "") {
			return nil, fmt.Errorf("%s: server %q needs either \"command\" (a program spoken to over stdio) or \"url\" (streamable HTTP)", name, n)
		}
	}
	c.File = name
	return &c, nil
}

// LoadConfig reads the MCP configuration file (the --mcp-config flag).
func LoadConfig(file string) (*Config, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseConfig(data, file)
}

// FindConfig reads the project's .mcp.json: in dir or the nearest
// directory above it that has one, stopping at a directory holding .git
// (the project root). No file is an empty configuration, not an error.
func FindConfig(dir string) (*Config, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for d := abs; ; d = filepath.Dir(d) {
		file := filepath.Join(d, ConfigFile)
		if data, err := os.ReadFile(file); err == nil {
			return ParseConfig(data, file)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil || filepath.Dir(d) == d {
			return &Config{}, nil
		}
	}
}

// FindConfigFS is FindConfig inside fsys (lint reads specs through one):
// from dir (slash-separated, relative to fsys) up to fsys's root.
func FindConfigFS(fsys fs.FS, dir string) (*Config, error) {
	for d := path.Clean(dir); ; d = path.Dir(d) {
		file := path.Join(d, ConfigFile)
		if data, err := fs.ReadFile(fsys, file); err == nil {
			return ParseConfig(data, file)
		}
		if _, err := fs.Stat(fsys, path.Join(d, ".git")); err == nil || d == "." || d == "/" {
			return &Config{}, nil
		}
	}
}
