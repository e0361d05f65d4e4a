// Package std is the library compiled into prose: the pattern specs under
// std/patterns/ (ratchet, race, refine, ...) and the role functions under
// std/roles/ (critic, planner, summarizer, ...), embedded with go:embed so
// that `prose run std/patterns/ratchet.prose.md` and `prose lint std/` work
// from any directory.
//
// # Resolution rule
//
// A path that names a file or directory on disk always means that file or
// directory. A path starting with "std/" (or equal to "std") that does not
// exist on disk is served from the embedded library. Within the library a
// pattern may be named in full or in short:
//
//	std/patterns/ratchet.prose.md   the file itself
//	std/patterns/ratchet            the suffix may be left out
//	std/ratchet, std/ratchet.prose.md  the patterns/ folder may be left out
//
// Every reader of spec files goes through this rule: Open for a single file
// (the loader and the runner), Resolve as a lint.Resolver for paths that
// may be directories, FS and Walk for listings.
//
// Main types and entry points: Entry, List, Open, ReadFile, Resolve, FS,
// Walk, Canonical, IsStd.
package std

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"github.com/proselang/prose/internal/filekind"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// Prefix starts every path of the embedded library.
const Prefix = "std/"

// suffix ends every spec file name.
const suffix = ".prose.md"

//go:embed FORMAT.md patterns roles
var files embed.FS

// FS returns the embedded library as a file system whose paths carry the
// "std/" prefix: "std", "std/patterns", "std/patterns/ratchet.prose.md".
// Diagnostics of files read from it therefore name them as a user writes
// them.
func FS() fs.FS { return prefixFS{} }

// IsStd reports whether p is spelled as a library path ("std" or "std/...").
func IsStd(p string) bool {
	p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
	return p == "std" || strings.HasPrefix(p, Prefix)
}

// Canonical maps a library path, full or short, to the name of an entry of
// FS ("std/patterns/ratchet.prose.md", "std/patterns", "std"). ok is false
// when p is not a library path or names nothing in the library.
func Canonical(p string) (name string, ok bool) {
	if !IsStd(p) {
		return "", false
	}
	p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
	candidates := []string{p}
	if !strings.HasSuffix(p, suffix) {
		candidates = append(candidates, p+suffix)
	}
	if rest := strings.TrimPrefix(p, Prefix); p != "std" && !strings.Contains(rest, "/") {
		short := Prefix + "patterns/" + rest
		candidates = append(candidates, short)
		if !strings.HasSuffix(short, suffix) {
			candidates = append(candidates, short+suffix)
		}
	}
	for _, c := range candidates {
		if _, err := fs.Stat(prefixFS{}, c); err == nil {
			return c, true
		}
	}
	return "", false
}

// onDisk reports whether p exists in the file system.
func onDisk(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Open reads the spec file at p following the resolution rule: the file on
// disk when it exists, else the embedded library file for a std/ path.
// name is how diagnostics should call the file: p itself for a disk file,
// the canonical library path ("std/patterns/ratchet.prose.md") otherwise.
// The error is the disk's when p is neither on disk nor in the library.
// A file on disk is read only when it is a regular file (or a link to
// one): a named pipe, a socket or a device is refused at once with a
// *filekind.NotRegularError, not opened in a way that waits.
func Open(p string) (data []byte, name string, err error) {
	if onDisk(p) || !IsStd(p) {
		data, err = filekind.ReadFile(p)
		return data, p, err
	}
	c, ok := Canonical(p)
	if !ok {
		return nil, p, notFound(p)
	}
	data, err = fs.ReadFile(prefixFS{}, c)
	return data, c, err
}

// ReadFile reads a file of the embedded library only, by full or short
// library path.
func ReadFile(p string) ([]byte, error) {
	c, ok := Canonical(p)
	if !ok {
		return nil, notFound(p)
	}
	return fs.ReadFile(prefixFS{}, c)
}

// notFound is the error for a library path that names nothing, listing
// what exists.
func notFound(p string) error {
	var names []string
	for _, e := range List() {
		names = append(names, e.Name)
	}
	if s := suggest(p, names); s != "" {
		return &fs.PathError{Op: "open", Path: p, Err: errors.New("no such file on disk or in the embedded library (did you mean " + s + "?)")}
	}
	return &fs.PathError{Op: "open", Path: p, Err: errors.New("no such file on disk or in the embedded library (patterns: " + strings.Join(names, ", ") + ")")}
}

// Resolve has the signature of lint.Resolver: it maps a path argument to
// the file system holding it and its name there. A std/ path that is not
// on disk resolves into FS; everything else to the disk, unchanged.
func Resolve(arg string) (fs.FS, string) {
	if !onDisk(arg) {
		if c, ok := Canonical(arg); ok {
			return FS(), c
		}
		if IsStd(arg) {
			// Neither on disk nor in the library: say what the library has.
			return missingFS{notFound(arg)}, arg
		}
	}
	return osFS{}, arg
}

// Walk lists the spec files (*.prose.md) of the embedded library under dir,
// a library path ("std", "std/patterns", or a single pattern), sorted. ok is
// false when dir is not in the library.
func Walk(dir string) (paths []string, ok bool) {
	c, ok := Canonical(dir)
	if !ok {
		return nil, false
	}
	err := fs.WalkDir(prefixFS{}, c, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, suffix) {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return nil, false
	}
	sort.Strings(paths)
	return paths, true
}

// Entry describes one embedded pattern or role.
type Entry struct {
	Kind    string `json:"kind"`    // "pattern" or "function"
	Name    string `json:"name"`    // front matter name: "ratchet"
	Title   string `json:"title"`   // the # heading: "Ratchet"
	Summary string `json:"summary"` // the paragraph after the title, on one line
	Path    string `json:"path"`    // "std/patterns/ratchet.prose.md"
}

// List returns the embedded patterns, sorted by name.
func List() []Entry { return entries("std/patterns", "pattern") }

// Roles returns the embedded role functions (std/roles), sorted by name:
// functions to bind to a slot or call by path (`--slot
// critic=std/roles/critic.prose.md`).
func Roles() []Entry { return entries("std/roles", "function") }

func entries(dir, kind string) []Entry {
	paths, _ := Walk(dir)
	out := make([]Entry, 0, len(paths))
	for _, p := range paths {
		data, err := fs.ReadFile(prefixFS{}, p)
		if err != nil {
			continue
		}
		e := describe(data)
		e.Path, e.Kind = p, kind
		if e.Name == "" {
			e.Name = strings.TrimSuffix(path.Base(p), suffix)
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// describe reads the front matter name, the title and the summary
// paragraph of a spec with a line scan (this package does not depend on the
// loader, which depends on it).
func describe(data []byte) Entry {
	var e Entry
	sc := bufio.NewScanner(bytes.NewReader(data))
	state := 0 // 0 before front matter, 1 in it, 2 before title, 3 before summary, 4 in summary
	var summary []string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case state == 0 && line == "---":
			state = 1
		case state == 1 && line == "---":
			state = 2
		case state == 1:
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "name" {
				e.Name = strings.Trim(strings.TrimSpace(v), `"'`)
			}
		case state <= 2 && strings.HasPrefix(line, "# "):
			e.Title, state = strings.TrimSpace(line[2:]), 3
		case state == 3 && line != "":
			if strings.HasPrefix(line, "#") {
				return e
			}
			summary, state = append(summary, line), 4
		case state == 4 && line != "" && !strings.HasPrefix(line, "#"):
			summary = append(summary, line)
		case state == 4:
			e.Summary = strings.Join(summary, " ")
			return e
		}
	}
	e.Summary = strings.Join(summary, " ")
	return e
}
