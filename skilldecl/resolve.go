package skilldecl

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// File is the file a skill's directory holds.
const File = "SKILL.md"

// MaxSize bounds a SKILL.md: its text goes into every request of a
// render that declares it, so a larger one is refused, not cut.
const MaxSize = 256 << 10

// ProjectDir is the name of the project's skills directory.
const ProjectDir = "skills"

// HomeDirs are the skills directories of agent hosts under the home
// directory, searched in this order after the project's.
var HomeDirs = []string{".claude/skills", ".codex/skills", ".agents/skills"}

// Root is one directory skills are looked up in.
type Root struct {
	// Dir is the directory, as messages name it: a slash-separated name
	// of FS, or a path of the operating system when FS is nil.
	Dir string
	FS  fs.FS
	// Skip, when set, says why the root was not searched (no home
	// directory is known).
	Skip string
	// Note, for a project skills directory that does not exist, says
	// where none was found.
	Note string
}

// join is the name of elem under the root.
func (r Root) join(elem ...string) string {
	if r.FS != nil {
		return path.Join(append([]string{r.Dir}, elem...)...)
	}
	return filepath.Join(append([]string{r.Dir}, elem...)...)
}

func (r Root) stat(name string) (fs.FileInfo, error) {
	if r.FS != nil {
		return fs.Stat(r.FS, name)
	}
	return os.Stat(name)
}

func (r Root) open(name string) (io.ReadCloser, error) {
	if r.FS != nil {
		return r.FS.Open(name)
	}
	return os.Open(name)
}

// Resolver looks skills up in its roots, in order.
type Resolver struct {
	Roots []Root
}

// NewResolver is the resolver of a spec whose project skills directory is
// project (ProjectRoot, ProjectRootFS), then the home directory's (home:
// "" when none is known, and those are skipped, saying so).
func NewResolver(project Root, home string) *Resolver {
	r := &Resolver{Roots: []Root{project}}
	for _, d := range HomeDirs {
		if home == "" {
			r.Roots = append(r.Roots, Root{Dir: "~/" + d, Skip: "no home directory is known ($HOME is not set)"})
			continue
		}
		r.Roots = append(r.Roots, Root{Dir: filepath.Join(home, filepath.FromSlash(d))})
	}
	return r
}

// Home is the home directory the host skills directories are under ("":
// none known).
func Home() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return h
}

// ProjectRootFS finds the project's skills directory inside fsys (lint
// reads specs through one), as the MCP configuration is found: the
// skills directory of dir (slash-separated) or of the nearest directory
// above it that has one, stopping at a directory holding .git (the
// project root) or at the top of fsys. Found none, it is the skills
// directory of the directory the search stopped at, which does not exist,
// with a Note saying where none was found (a declaration then names both
// among the paths searched).
func ProjectRootFS(fsys fs.FS, dir string) Root {
	for d := path.Clean(dir); ; d = path.Dir(d) {
		cand := path.Join(d, ProjectDir)
		if st, err := fs.Stat(fsys, cand); err == nil && st.IsDir() {
			return Root{Dir: cand, FS: fsys}
		}
		if _, err := fs.Stat(fsys, path.Join(d, ".git")); err == nil || d == "." || d == "/" {
			return Root{Dir: cand, FS: fsys, Note: noneAbove(dir)}
		}
	}
}

// ProjectRoot is ProjectRootFS on the operating system's files, from dir
// made absolute up to the project root or the file system's root; found
// none and no project root, it names dir's skills directory.
func ProjectRoot(dir string) Root {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	for d := abs; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, ProjectDir)
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return Root{Dir: cand}
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil || filepath.Dir(d) == d {
			// the nearest directory the search stopped at: the project
			// root, or the start when there is none
			if err != nil {
				cand = filepath.Join(abs, ProjectDir)
			}
			return Root{Dir: cand, Note: noneAbove(dir)}
		}
	}
}

func noneAbove(dir string) string {
	return fmt.Sprintf("there is no %s/ directory in %s or above it up to the project root", ProjectDir, dir)
}

// Skill is a declaration resolved: the directory holding its SKILL.md.
type Skill struct {
	Decl Decl
	Dir  string // the skill's directory, named as its root names it
	File string // Dir's SKILL.md
	root Root
}

// parts are the directory names of d under a root.
func (d Decl) parts() []string {
	if d.Namespace != "" {
		return []string{d.Namespace, d.Name}
	}
	return []string{d.Name}
}

// Resolve finds a well-formed declaration; code and msg say why it is not
// found or cannot be used (code "" when it resolves).
func (r *Resolver) Resolve(d Decl) (s Skill, code, msg string) {
	var searched []string
	for _, root := range r.Roots {
		if root.Skip != "" {
			searched = append(searched, fmt.Sprintf("%s (not searched: %s)", root.join(d.parts()...), root.Skip))
			continue
		}
		file := root.join(append(d.parts(), File)...)
		st, err := root.stat(file)
		if errors.Is(err, fs.ErrNotExist) {
			if root.Note != "" {
				file += " (" + root.Note + ")"
			}
			searched = append(searched, file)
			continue
		}
		switch {
		case err != nil:
			return s, CodeUnusable, fmt.Sprintf("skill %q: %s cannot be read: %v", d.Text, file, err)
		case !st.Mode().IsRegular():
			return s, CodeUnusable, fmt.Sprintf("skill %q: %s is not a regular file", d.Text, file)
		case st.Size() > MaxSize:
			return s, CodeUnusable, fmt.Sprintf("skill %q: %s is %d bytes, over the %d KiB a skill's instructions may take in a model's request: shorten it, moving detail into files beside it", d.Text, file, st.Size(), MaxSize>>10)
		}
		return Skill{Decl: d, Dir: root.join(d.parts()...), File: file, root: root}, "", ""
	}
	msg = fmt.Sprintf("skill %q is not installed: no %s in any skills directory searched (%s); install it in one of them (prose never installs skills)", d.Text, File, strings.Join(searched, ", "))
	if d.Namespace != "" {
		// a skill of the same name outside a namespace is not taken for
		// the declared one, but named, in case it is
		for _, root := range r.Roots {
			if root.Skip != "" {
				continue
			}
			if file := root.join(d.Name, File); isFile(root, file) {
				msg += fmt.Sprintf("; %s is a skill %q outside any namespace: if it is the one meant, declare `%s`", file, d.Name, d.Name)
				break
			}
		}
	}
	return s, CodeUnresolved, msg
}

func isFile(r Root, name string) bool {
	st, err := r.stat(name)
	return err == nil && st.Mode().IsRegular()
}

// Read is the text of s's SKILL.md, refused when it has grown over
// MaxSize since it was resolved.
func (s Skill) Read() (string, error) {
	f, err := s.root.open(s.File)
	if err != nil {
		return "", fmt.Errorf("skill %q: %w", s.Decl.Text, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return "", fmt.Errorf("skill %q: reading %s: %w", s.Decl.Text, s.File, err)
	}
	if len(data) > MaxSize {
		return "", fmt.Errorf("skill %q: %s is over the %d KiB a skill's instructions may take in a model's request: shorten it, moving detail into files beside it [%s]", s.Decl.Text, s.File, MaxSize>>10, CodeUnusable)
	}
	return string(data), nil
}

// ResolveAll resolves decls in order: the first that is malformed, not
// found or unusable is the error, naming where it is declared and its
// code, as prose run refuses a render.
func (r *Resolver) ResolveAll(decls []Decl) ([]Skill, error) {
	out := make([]Skill, 0, len(decls))
	for _, d := range decls {
		code, msg := d.Problem()
		var s Skill
		if code == "" {
			s, code, msg = r.Resolve(d)
		}
		if code != "" {
			return nil, fmt.Errorf("%s (declared at %s) [%s]", msg, d.Position(), code)
		}
		out = append(out, s)
	}
	return out, nil
}

// Check is every finding of the declarations of n and its inline nodes:
// malformed ones (skill_invalid) and, when r is not nil, ones not found
// (skill_unresolved) or unusable (skill_unusable). Each is an error at the
// declaration.
func Check(n *spec.Spec, r *Resolver) diag.List {
	var out diag.List
	for _, node := range append([]*spec.Spec{n}, n.Nodes...) {
		for _, d := range Declared(node) {
			code, msg := d.Problem()
			if code == "" && r != nil {
				_, code, msg = r.Resolve(d)
			}
			if code != "" {
				out.Errorf(node.File, d.Pos, code, "%s", msg)
			}
		}
	}
	return out
}

// Any reports whether s or one of its inline nodes declares skills.
func Any(s *spec.Spec) bool {
	for _, n := range append([]*spec.Spec{s}, s.Nodes...) {
		if len(Declared(n)) > 0 {
			return true
		}
	}
	return false
}

// Loaded is a skill resolved and its SKILL.md read.
type Loaded struct {
	Skill
	Text string
}

// Load resolves decls, in order, and reads each SKILL.md, as a render
// does before it starts: the first that is malformed, not found, unusable
// or unreadable is the error, naming where it is declared and its code.
// The project's skills directory is found from the declaring node's file
// (ProjectRoot), whose name, when relative, is looked up in dir first
// ("": the working directory only), as a run reads specs.
func Load(decls []Decl, dir string) ([]Loaded, error) {
	out := make([]Loaded, 0, len(decls))
	home := Home()
	for _, d := range decls {
		found, err := ResolverFor(d, dir, home).ResolveAll([]Decl{d})
		if err != nil {
			return nil, err
		}
		text, err := found[0].Read()
		if err != nil {
			return nil, err
		}
		out = append(out, Loaded{Skill: found[0], Text: text})
	}
	return out, nil
}

// ResolverFor is the resolver of d, declared in a file on disk: the
// project's skills directory found from the file's directory (a relative
// name looked up in dir first, as Load says), then home's.
func ResolverFor(d Decl, dir, home string) *Resolver {
	return NewResolver(ProjectRoot(fileDir(dir, d.Node.File.Name)), home)
}

// fileDir is the directory of a spec file named name: relative to dir
// when it is there, else to the working directory.
func fileDir(dir, name string) string {
	if dir != "" && !filepath.IsAbs(name) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return filepath.Dir(p)
		}
	}
	return filepath.Dir(name)
}
