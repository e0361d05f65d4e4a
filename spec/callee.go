package spec

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/filekind"
)

// Call resolution (Contract Markdown).
//
// `call NAME` in an Execution (or a pattern instance's with: target)
// names, in this order:
//
//  1. a declared slot (a pattern's Slots; for a run, a --slot binding);
//  2. a `### Patterns` instance of the file;
//  3. an inline `##` node of the same file;
//  4. a sibling file in the same directory whose front matter name or
//     file stem is NAME, or NAME/index.prose.md;
//  5. a std/... path of the library (std/roles/critic, with or without
//     .prose.md).
//
// A `use` alias of the node's Execution (use.go) comes right after the
// slots: it reaches the file or library spec the use names, as a sibling
// (CalleeSibling) or library (CalleeStd) callee with Callee.Use set, and
// nothing else (the loader and lint report an alias that other rungs
// know too).
//
// The first rung that knows the name wins; when a farther rung knows it
// too, Callee.Shadows says which (callers report the ambiguity).

// Callee kinds.
const (
	CalleeSlot     = "slot"
	CalleeInstance = "pattern instance"
	CalleeNode     = "node"
	CalleeSibling  = "sibling file"
	CalleeStd      = "library spec"
)

// Callee is what a call's target resolves to.
type Callee struct {
	Kind     string
	Name     string
	Node     *Spec            // CalleeNode
	Instance *PatternInstance // CalleeInstance
	Path     string           // CalleeSibling and CalleeStd: the file to load
	// Use is the use declaration the name is the alias of (a
	// CalleeSibling or CalleeStd reached through it), nil for others.
	Use *Use
	// Shadows describes a farther candidate of the same name ("sibling
	// file dir/x.prose.md"), "" when there is none.
	Shadows string
}

// Finder looks for sibling files and library specs.
type Finder struct {
	// FS holds the files (nil: the operating system's, names as given).
	FS fs.FS
	// Std reports whether a std/... path names a library spec (nil: none).
	Std func(path string) bool
	// Memo, when set, keeps what each call target resolved to, so that a
	// name called in a node is resolved once however many checks and
	// runs ask (package graph shares one across a command). It is used
	// for resolutions without run-time slots only. It keeps the front
	// matter name of each sibling file it read too: a Memo is for a
	// file system whose files do not change while it is used.
	Memo *CallMemo
}

// CallMemo remembers resolved calls by node and name; it is safe for
// concurrent use. The zero value is ready.
type CallMemo struct {
	mu sync.Mutex
	// m holds the resolutions of the calls made in each file, by the
	// file's root node, so that Forget drops a file's at once.
	m map[*Spec]map[callKey]*Callee
	// names are the front matter names of the sibling files read so far
	// (resolving a call by name reads every sibling's, for every call).
	names map[string]string
}

type callKey struct {
	from *Spec
	name string
}

func (m *CallMemo) get(from *Spec, name string) (*Callee, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.m[from.Root()][callKey{from, name}]
	return c, ok
}

func (m *CallMemo) put(from *Spec, name string, c *Callee) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[*Spec]map[callKey]*Callee{}
	}
	root := from.Root()
	if m.m[root] == nil {
		m.m[root] = map[callKey]*Callee{}
	}
	m.m[root][callKey{from, name}] = c
}

// Forget drops the resolutions of the calls made in the file whose root
// node is root (its inline nodes' too): a command done with a file lets
// its tree go.
func (m *CallMemo) Forget(root *Spec) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, root)
}

// CalleeLoader is a file system that loads a callee's file itself, as
// a Loader does, refusing one that is not a regular file without
// waiting on it (a spec graph: specgraph.Graph.LoadCallee).
type CalleeLoader interface {
	LoadCallee(path string) (*Spec, diag.List, error)
}

// Load loads the file of a sibling or library callee (Callee.Path)
// through the finder's file system (a CalleeLoader's LoadCallee, else
// spec.LoadFrom: a graph answers from what it read); without one, from
// the operating system.
func (f *Finder) Load(path string) (*Spec, diag.List, error) {
	if f == nil {
		return Load(path)
	}
	if cl, ok := f.FS.(CalleeLoader); ok {
		return cl.LoadCallee(path)
	}
	return LoadFrom(f.FS, path)
}

func (f *Finder) readDir(dir string) ([]fs.DirEntry, error) {
	if f == nil || f.FS == nil {
		return os.ReadDir(dir)
	}
	return fs.ReadDir(f.FS, dir)
}

func (f *Finder) fsys() fs.FS {
	if f == nil {
		return nil
	}
	return f.FS
}

func (f *Finder) open(name string) (fs.File, error) {
	if f == nil || f.FS == nil {
		return filekind.OpenFS(name)
	}
	return f.FS.Open(name)
}

func (f *Finder) join(elem ...string) string {
	if f == nil || f.FS == nil {
		return filepath.Join(elem...)
	}
	return path.Join(elem...)
}

func (f *Finder) dir(name string) string {
	if f == nil || f.FS == nil {
		return filepath.Dir(name)
	}
	return path.Dir(name)
}

// ResolveCall resolves the target name of a call made in s (the file's
// node or one of its inline nodes). slots are the names bound as slots.
// It returns nil when no rung knows the name.
func (s *Spec) ResolveCall(name string, slots []string, f *Finder) *Callee {
	if len(slots) > 0 || f == nil || f.Memo == nil {
		return s.resolveCall(name, slots, f)
	}
	if c, ok := f.Memo.get(s, name); ok {
		return c
	}
	c := s.resolveCall(name, nil, f)
	f.Memo.put(s, name, c)
	return c
}

func (s *Spec) resolveCall(name string, slots []string, f *Finder) *Callee {
	var found []*Callee
	for _, sl := range slots {
		if sl == name {
			found = append(found, &Callee{Kind: CalleeSlot, Name: name})
			break
		}
	}
	for _, sl := range s.Slots {
		if sl.Name == name && len(found) == 0 {
			found = append(found, &Callee{Kind: CalleeSlot, Name: name})
		}
	}
	if u := s.UseOf(name); u != nil && len(found) == 0 {
		// a declared dependency names its file: one that is not there
		// is lint/unresolved-use, never a sibling of the same name
		return s.usedCallee(u, f)
	}
	root := s.Root()
	if p := root.Instance(name); p != nil {
		found = append(found, &Callee{Kind: CalleeInstance, Name: name, Instance: p})
	}
	if n := root.Node(name); n != nil && n != s {
		found = append(found, &Callee{Kind: CalleeNode, Name: name, Node: n})
	}
	if p, _ := root.sibling(name, f); p != "" {
		found = append(found, &Callee{Kind: CalleeSibling, Name: name, Path: p})
	}
	if p := stdPath(name, f); p != "" {
		found = append(found, &Callee{Kind: CalleeStd, Name: name, Path: p})
	}
	if len(found) == 0 {
		return nil
	}
	c := found[0]
	if len(found) > 1 && found[1].Kind != CalleeSlot {
		c.Shadows = found[1].Kind
		if found[1].Path != "" {
			c.Shadows += " " + found[1].Path
		}
	}
	return c
}

// stdPath is the library path a std/... name stands for, or "".
func stdPath(name string, f *Finder) string {
	if !strings.HasPrefix(name, "std/") || f == nil || f.Std == nil {
		return ""
	}
	for _, p := range []string{name, name + Suffix} {
		if strings.HasSuffix(p, Suffix) && f.Std(p) {
			return p
		}
	}
	return ""
}

// Suffix ends every spec file name.
const Suffix = ".prose.md"

// sibling finds the file beside s named name: by stem, by front matter
// name, or as name/index.prose.md. "" when none (or when s has no file).
// When no stem is name and several files' front matter names it, the
// first in name order is returned and twins lists the others: which
// one a call means is not known (a copy kept beside the original).
func (s *Spec) sibling(name string, f *Finder) (p string, twins []string) {
	if s.File == nil || s.File.Name == "" || strings.ContainsAny(name, "/\\") {
		return "", nil
	}
	dir := f.dir(s.File.Name)
	self := filepath.Base(s.File.Name)
	entries, err := f.readDir(dir)
	if err != nil {
		return "", nil
	}
	byName := ""
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, Suffix) || n == self {
			continue
		}
		p := f.join(dir, n)
		if !filekind.Listed(f.fsys(), p, e) {
			continue // a named pipe beside the spec: opening it would hang
		}
		if strings.TrimSuffix(n, Suffix) == name {
			return p, nil
		}
		if byName == "" && frontName(f, p) == name {
			byName = p
		}
	}
	if byName != "" {
		return byName, nil
	}
	idx := f.join(dir, name, "index"+Suffix)
	if fl, err := f.open(idx); err == nil {
		fl.Close()
		return idx, nil
	}
	return "", nil
}

// SiblingTwins lists the files beside the one the sibling callee c
// names (found by its front matter name, not its stem) whose front
// matter gives the same name: a call of it takes the first in name
// order, a choice the author never made. Only lint asks, once per call
// target: resolving a call reads no more front matter than it needs.
func (s *Spec) SiblingTwins(c *Callee, f *Finder) []string {
	root := s.Root()
	if c == nil || c.Kind != CalleeSibling || c.Use != nil || root.File == nil || root.File.Name == "" ||
		strings.TrimSuffix(filepath.Base(c.Path), Suffix) == c.Name || !strings.HasSuffix(c.Path, Suffix) {
		return nil
	}
	dir := f.dir(root.File.Name)
	self := filepath.Base(root.File.Name)
	entries, err := f.readDir(dir)
	if err != nil {
		return nil
	}
	var twins []string
	for _, e := range entries {
		n := e.Name()
		p := f.join(dir, n)
		if e.IsDir() || !strings.HasSuffix(n, Suffix) || strings.HasSuffix(n, ".test"+Suffix) || n == self || p == c.Path || !filekind.Listed(f.fsys(), p, e) {
			continue
		}
		if frontName(f, p) == c.Name {
			twins = append(twins, p)
		}
	}
	return twins
}

// SiblingNames lists the names sibling files answer to (stems and front
// matter names), for did-you-mean messages.
func (s *Spec) SiblingNames(f *Finder) []string {
	if s.File == nil || s.File.Name == "" {
		return nil
	}
	dir := f.dir(s.File.Name)
	entries, err := f.readDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, Suffix) || n == filepath.Base(s.File.Name) || !filekind.Listed(f.fsys(), f.join(dir, n), e) {
			continue
		}
		out = append(out, strings.TrimSuffix(n, Suffix))
		if fn := frontName(f, f.join(dir, n)); fn != "" {
			out = append(out, fn)
		}
	}
	sort.Strings(out)
	return out
}

// frontName reads the name: key of a file's front matter without loading
// the whole spec ("" when there is none), once per file with a Memo.
func frontName(f *Finder, p string) string {
	if f == nil || f.Memo == nil {
		return readFrontName(f, p)
	}
	m := f.Memo
	m.mu.Lock()
	n, ok := m.names[p]
	m.mu.Unlock()
	if ok {
		return n
	}
	n = readFrontName(f, p)
	m.mu.Lock()
	if m.names == nil {
		m.names = map[string]string{}
	}
	m.names[p] = n
	m.mu.Unlock()
	return n
}

// sourceFS is a file system that lends a file's bytes without a copy
// (the spec graph's); they are read, never changed.
type sourceFS interface {
	Source(name string) ([]byte, error)
}

func readFrontName(f *Finder, p string) string {
	if sfs, ok := f.fsys().(sourceFS); ok {
		src, err := sfs.Source(p)
		if err != nil {
			return ""
		}
		return frontNameIn(src)
	}
	fl, err := f.open(p)
	if err != nil {
		return ""
	}
	defer fl.Close()
	return scanFrontName(fl)
}

// scanFrontName is frontNameIn over a reader.
func scanFrontName(r io.Reader) string {
	sc := bufio.NewScanner(r)
	// the name is near the top: a small buffer first (the scanner's own
	// is 4 KiB), grown as far as the scanner's usual limit for a long line
	sc.Buffer(make([]byte, 512), bufio.MaxScanTokenSize)
	for i := 0; sc.Scan() && i < 40; i++ {
		ln := strings.TrimSpace(sc.Text())
		if i == 0 {
			if ln != "---" {
				return ""
			}
			continue
		}
		if ln == "---" {
			return ""
		}
		if v, ok := strings.CutPrefix(ln, "name:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// frontNameIn is the name: of a file's front matter, looked for in its
// first 40 lines (as scanFrontName reads them: a line too long for a
// scanner ends the search).
func frontNameIn(src []byte) string {
	for i, off := 0, 0; off < len(src) && i < 40; i++ {
		end := bytes.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src) - off
		}
		if end >= bufio.MaxScanTokenSize {
			return ""
		}
		ln := bytes.TrimSpace(src[off : off+end])
		off += end + 1
		if i == 0 {
			if string(ln) != "---" {
				return ""
			}
			continue
		}
		if string(ln) == "---" {
			return ""
		}
		if v, ok := bytes.CutPrefix(ln, []byte("name:")); ok {
			return strings.Trim(string(bytes.TrimSpace(v)), `"'`)
		}
	}
	return ""
}

// CallTargets lists the names a call in s could reach, for did-you-mean:
// its slots, the file's instances and nodes, and sibling names.
func (s *Spec) CallTargets(slots []string, f *Finder) []string {
	out := append([]string(nil), slots...)
	for _, sl := range s.Slots {
		out = append(out, sl.Name)
	}
	root := s.Root()
	for _, p := range root.Patterns {
		out = append(out, p.Name)
	}
	for _, n := range root.Nodes {
		out = append(out, n.Name)
	}
	if s.Execution != nil {
		for _, u := range s.Execution.Uses {
			out = append(out, u.Alias)
		}
	}
	return append(out, root.SiblingNames(f)...)
}

// WorldModelOp reports whether name is one of the responsibility
// world-model operations (read_world_model, write_world_model, subscribe)
// that calls may name but prose does not run yet.
func WorldModelOp(name string) bool {
	switch name {
	case "read_world_model", "write_world_model", "subscribe":
		return true
	}
	return false
}
