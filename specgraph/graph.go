// Package specgraph is the spec graph one command works on: every spec file a
// run, a lint or a test reaches is read once, parsed at most once, and each
// call target named in it resolved once, however many checks and runs ask.
//
// A Graph reads through a file system (New; OS and OSIn give the
// operating system's, names as given). It is itself an fs.FS that keeps
// what it read (files, directory listings and stats), so the sibling
// lookups of call resolution (spec.Finder), a test's subject lookup, the
// Tools checks' search for .mcp.json and the loader all share one read of
// each file. Load parses a file once and returns the
// same *spec.Spec every time; a std/... path that the file system does not
// hold is read from the embedded library. Finder gives the spec.Finder
// that resolves calls through the graph, with a memo of what each call
// resolved to; Calls lists a node's resolved call targets, and Callee the
// spec a call reaches. Files lists what was loaded, in load order.
//
// A Graph is safe for concurrent use (lint loads files on several
// goroutines). It never re-reads a file it keeps: a command that must see
// a file change (none does today) makes a new Graph. Release lets a file
// go once a command is done with it (lint releases each file it checked,
// so that its memory does not grow with the tree): the graph reads and
// parses such a file again when asked, and keeps nothing of it.
//
// Main types and entry points: Graph, New, Options, OS, OSIn, File, Call.
package specgraph

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/std"
)

// Options say where a Graph reads from. The zero value reads the
// operating system's files, names as given, and the embedded library.
type Options struct {
	// FS holds the files (nil: OS()).
	FS fs.FS
	// Std reports whether a std/... path names a library spec, for call
	// resolution (nil: the embedded library holds it).
	Std func(path string) bool
	// Load, when set, loads a spec in place of reading it from FS (a run
	// request that carries its sources). Its results are memoized too.
	Load func(path string) (*spec.Spec, diag.List, error)
	// Reuse, when set, is asked first for each spec Load reads: ok when
	// the file is known unchanged since another graph parsed it, which
	// gives that parse (shared) and its findings in place of a read and
	// a parse. A graph loaded again after some of its files changed (a
	// server's reload) so reads only those.
	Reuse func(path string) (s *spec.Spec, diags diag.List, ok bool)
}

// Graph is the memo of one command's spec files. The zero value is not
// ready; use New.
type Graph struct {
	fsys  fs.FS
	std   func(string) bool
	load  func(string) (*spec.Spec, diag.List, error)
	reuse func(string) (*spec.Spec, diag.List, bool)
	memo  spec.CallMemo
	stdOK sync.Map // std path -> bool

	mu    sync.Mutex
	data  map[string]*content
	dirs  map[string]*listing
	stats map[string]*statEntry
	specs map[string]*File
	order []*File
	calls map[*spec.Spec][]Call
	// released are the files Release let go: read and parsed again when
	// asked for, and not kept.
	released map[string]bool
}

// New returns an empty graph reading as o says.
func New(o Options) *Graph {
	g := &Graph{fsys: o.FS, std: o.Std, load: o.Load, reuse: o.Reuse,
		data: map[string]*content{}, dirs: map[string]*listing{}, stats: map[string]*statEntry{}, specs: map[string]*File{}, calls: map[*spec.Spec][]Call{},
		released: map[string]bool{}}
	if g.fsys == nil {
		g.fsys = OS()
	}
	if g.std == nil {
		g.std = g.inLibrary
	}
	return g
}

// FS is the file system the graph reads.
func (g *Graph) FS() fs.FS { return g.fsys }

// File is one loaded spec file.
type File struct {
	// Path is the path it was first loaded by.
	Path string
	Spec *spec.Spec
	// Diags are the loader's findings.
	Diags diag.List
	// Err is why it could not be read (nil when Spec is set).
	Err error

	once  sync.Once
	done  atomic.Bool // once has run
	index int         // in Graph.order
}

// content is what one Open of a regular file read.
type content struct {
	once   sync.Once
	filled atomic.Bool // once has run
	data   []byte
	info   fs.FileInfo
	err    error
}

// content is the entry of a regular file's source.
func (g *Graph) content(name string) *content {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.data[key(name)]
	if c == nil {
		c = &content{}
		if !g.released[key(name)] {
			g.data[key(name)] = c
		}
	}
	return c
}

// wholeReader is a file system that reads a file whole by itself, more
// cheaply than through Open, Stat and Read (the operating system's: OS,
// lint.OS and the library's resolver read with package wholefile). data
// and info are set for a regular file of which at most max bytes are
// read; other is any other file, open and unread.
type wholeReader interface {
	ReadWhole(name string, max int64) (data []byte, info fs.FileInfo, other fs.File, err error)
}

// fill reads the file once (a read in progress is waited for).
func (c *content) fill(fsys fs.FS, name string) {
	c.once.Do(func() {
		if wr, ok := fsys.(wholeReader); ok {
			data, info, other, err := wr.ReadWhole(name, spec.MaxSize+1)
			switch {
			case err != nil:
				c.err = err
			case other != nil:
				// no longer the regular file Open saw: not read
				other.Close()
				c.err = &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
			default:
				c.data, c.info = data, info
				c.filled.Store(true)
			}
			return
		}
		fl, err := fsys.Open(name)
		if err != nil {
			c.err = err
			return
		}
		info, err := fl.Stat()
		if err != nil {
			fl.Close()
			c.err = err
			return
		}
		c.read(fl, info, name)
	})
}

func (c *content) read(fl fs.File, info fs.FileInfo, name string) {
	c.info = info
	// the reader's own Stat answered from the one just made
	c.data, c.err = spec.ReadOpened(statted{fl, info}, name)
	c.filled.Store(true)
}

// statted is an open file whose Stat was already called.
type statted struct {
	fs.File
	info fs.FileInfo
}

func (f statted) Stat() (fs.FileInfo, error) { return f.info, nil }

type listing struct {
	once    sync.Once
	entries []fs.DirEntry
	err     error
}

func key(name string) string { return path.Clean(name) }

// Load loads the spec at path once: later calls, under any spelling that
// cleans to the same path, return the same spec (shared: callers must not
// change it), the same findings (a copy each) and the same error. The
// error is for a path that cannot be read, as spec.Load's; a std/... path
// that the file system does not hold is read from the embedded library.
func (g *Graph) Load(p string) (*spec.Spec, diag.List, error) {
	return g.loadAs(p, false)
}

// LoadCallee is Load of the file a call resolved to (a sibling or
// library spec: Callee, and spec.Finder's loads). Such a file is read
// only when it is a regular file (or a link to one): a named pipe, a
// socket or a device where a callee spec is expected is refused with an
// error naming it, at once, without being opened in a way that waits
// (decided: an open of a pipe no one writes to would hold the command
// for good, deaf to SIGTERM). A pipe named on the command line is Load's,
// which reads it as given.
func (g *Graph) LoadCallee(p string) (*spec.Spec, diag.List, error) {
	return g.loadAs(p, true)
}

// loadAs is Load, reading p as a callee's file when callee is set. The
// first load of a path decides how it is read.
func (g *Graph) loadAs(p string, callee bool) (*spec.Spec, diag.List, error) {
	g.mu.Lock()
	f := g.specs[key(p)]
	if f == nil {
		f = &File{Path: p}
		if !g.released[key(p)] {
			g.specs[key(p)] = f
		}
	}
	g.mu.Unlock()
	f.once.Do(func() {
		f.Spec, f.Diags, f.Err = g.read(p, callee)
		g.mu.Lock()
		if g.specs[key(p)] == f {
			f.index = len(g.order)
			g.order = append(g.order, f)
		}
		g.mu.Unlock()
		f.done.Store(true)
	})
	// a copy: callers append to and sort the findings they get
	return f.Spec, slices.Clone(f.Diags), f.Err
}

// read loads p: by Options.Load, else a regular file by the one read it
// shares with Open (a sibling lookup reading its name), else as it is (a
// named pipe given by name is read; a missing file's error is the
// open's). The file is opened and stat'ed once. A callee's file is
// read only when it is regular (LoadCallee).
func (g *Graph) read(p string, callee bool) (*spec.Spec, diag.List, error) {
	if g.reuse != nil {
		if s, d, ok := g.reuse(p); ok {
			return s, slices.Clone(d), nil
		}
	}
	if g.load != nil {
		return g.load(p)
	}
	c := g.content(p)
	if callee {
		if err := g.fillRegular(c, p); err != nil {
			return nil, nil, err
		}
	}
	var other fs.File // not a regular file: read as it is, not kept
	c.once.Do(func() {
		if wr, ok := g.fsys.(wholeReader); ok {
			data, info, fl, err := wr.ReadWhole(p, spec.MaxSize+1)
			switch {
			case err != nil:
				c.err = err
			case fl != nil:
				other = fl
				c.err = &fs.PathError{Op: "open", Path: p, Err: errNotRegular}
			default:
				c.data, c.info = data, info
				c.filled.Store(true)
			}
			return
		}
		fl, err := g.fsys.Open(p)
		if err != nil {
			c.err = err
			return
		}
		info, err := fl.Stat()
		switch {
		case err != nil:
			fl.Close()
			c.err = err
		case !info.Mode().IsRegular():
			other = fl
			// Open refuses such a file before it looks here
			c.err = &fs.PathError{Op: "open", Path: p, Err: errNotRegular}
		default:
			c.read(fl, info, p)
		}
	})
	if other != nil {
		src, err := spec.ReadOpened(other, p)
		if err != nil {
			return nil, nil, err
		}
		s, d := spec.ParseOwned(p, src)
		return s, d, nil
	}
	if errors.Is(c.err, fs.ErrNotExist) && std.IsStd(p) {
		if src, name, err := std.Open(p); err == nil {
			s, d := spec.ParseOwned(name, src)
			return s, d, nil
		}
	}
	return g.parse(p, c)
}

// regularOpener is a file system that opens a file only when it is a
// regular file or a directory, without waiting (OS: filekind.Open).
type regularOpener interface {
	OpenRegular(name string) (fs.File, error)
}

// fillRegular reads c, the content of the callee file p, unless it was
// read already, refusing a file that is not regular without waiting on
// it: through the file system's non-blocking open when it has one (the
// file checked is the file read), else by a stat before the read (when
// the file system stats without opening: os.DirFS does). A
// file that does not exist is left to read (a library path the file
// system does not hold is the embedded library's).
func (g *Graph) fillRegular(c *content, p string) error {
	if c.filled.Load() {
		return nil
	}
	if ro, ok := g.fsys.(regularOpener); ok {
		fl, err := ro.OpenRegular(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		used := false
		c.once.Do(func() {
			used = true
			info, err := fl.Stat()
			if err != nil {
				fl.Close()
				c.err = err
				return
			}
			c.read(fl, info, p)
		})
		if !used {
			fl.Close()
		}
		return nil
	}
	sf, ok := g.fsys.(fs.StatFS)
	if !ok {
		return nil // a stat would open the file: the read does, once
	}
	info, err := sf.Stat(p)
	if err == nil && !info.Mode().IsRegular() && !info.IsDir() {
		return &fs.PathError{Op: "open", Path: p, Err: errNotRegular}
	}
	return nil
}

// filled is the content of p when it was read already, else nil.
func (g *Graph) filled(p string) *content {
	g.mu.Lock()
	c := g.data[key(p)]
	g.mu.Unlock()
	if c != nil && c.filled.Load() {
		return c
	}
	return nil
}

func (g *Graph) parse(p string, c *content) (*spec.Spec, diag.List, error) {
	if c.err != nil {
		return nil, nil, c.err
	}
	s, d := spec.ParseOwned(p, c.data)
	return s, d, nil
}

// Twin is a spec the graph has loaded from a file whose source is src,
// byte for byte, and whose base name is base; nil when it has none (yet:
// a file being loaded is not one). Its texts and fields are what a parse
// of src would give; only its file's name, and the findings that name
// it, are another file's.
func (g *Graph) Twin(src []byte, base string) *spec.Spec {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, f := range g.order {
		if f == nil || f.Spec == nil || f.Spec.File == nil || f.Spec.File.Size() != len(src) || path.Base(f.Spec.File.Name) != base {
			continue
		}
		if bytes.Equal(f.Spec.File.Source(), src) {
			return f.Spec
		}
	}
	return nil
}

// Files lists the files loaded so far, in the order their loading ended.
func (g *Graph) Files() []*File {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]*File, 0, len(g.order))
	for _, f := range g.order {
		if f != nil {
			out = append(out, f)
		}
	}
	return out
}

// Loads counts the loads that ended so far (a file let go and loaded
// again counts again): it is more than a count taken before whenever
// Files lists a file it did not, so a caller that follows what was read
// (a server watching the files it serves) asks Files only then.
func (g *Graph) Loads() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.order)
}

// Release lets go of the file at p (under any spelling that cleans to the
// same path) once its Load has returned: its source, its parse and
// findings, and what its calls resolved to. A command that checks files
// one by one (lint) releases each once it is checked, so that it holds
// the files being checked, not every file it has seen: a later Load or
// Open of the file reads and parses it again, and keeps nothing (the
// file's findings are whatever the caller kept of them). Release of a
// file not loaded, or being loaded, only stops the graph from keeping it
// from then on.
func (g *Graph) Release(p string) {
	k := key(p)
	g.mu.Lock()
	g.released[k] = true
	delete(g.data, k)
	f := g.specs[k]
	if f == nil || !f.done.Load() {
		g.mu.Unlock()
		return
	}
	delete(g.specs, k)
	if f.index < len(g.order) && g.order[f.index] == f {
		g.order[f.index] = nil
	}
	var root *spec.Spec
	if f.Spec != nil {
		root = f.Spec.Root()
		delete(g.calls, root)
		for _, n := range root.Nodes {
			delete(g.calls, n)
		}
	}
	g.mu.Unlock()
	if root != nil {
		g.memo.Forget(root)
	}
}

// Open opens a file through the graph: a regular file is read once and
// served from memory after; a directory is opened as the file system
// does. Anything else (a named pipe, a device) is refused rather than
// read, so a lookup among siblings never blocks on one.
func (g *Graph) Open(name string) (fs.File, error) {
	c, err := g.regular(name)
	if c == nil && err == nil {
		return g.fsys.Open(name) // a directory
	}
	if err != nil {
		return nil, err
	}
	return &memFile{Reader: bytes.NewReader(c.data), info: c.info}, nil
}

// Source is the bytes of the regular file name, read once and shared:
// the caller must not change them (spec's front matter name lookup reads
// a sibling's first lines through it, without a reader or a copy).
func (g *Graph) Source(name string) ([]byte, error) {
	c, err := g.regular(name)
	if c == nil && err == nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errNotRegular}
	}
	if err != nil {
		return nil, err
	}
	return c.data, nil
}

// regular is the content of name read once when it is a regular file;
// nil and no error for a directory; an error for anything else.
func (g *Graph) regular(name string) (*content, error) {
	if c := g.filled(name); c != nil && c.err == nil {
		return c, nil
	}
	info, err := g.Stat(name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, nil
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	}
	c := g.content(name)
	c.fill(g.fsys, name)
	if c.err != nil {
		return nil, c.err
	}
	return c, nil
}

var errNotRegular = errors.New("not a regular file")

// Stat is fs.Stat of the graph's file system, once per path: a lint asks
// the same questions of every file of a directory (is there a .mcp.json
// here, or above? a .git? a go.mod?), and the answers are the graph's
// view of the files, which does not change while it is used.
func (g *Graph) Stat(name string) (fs.FileInfo, error) {
	if name == key(name) {
		// a file read already: its stat then (a name spelled otherwise
		// is the file system's to answer, or refuse, as before)
		if c := g.filled(name); c != nil && c.err == nil && c.info != nil {
			return c.info, nil
		}
	}
	g.mu.Lock()
	st := g.stats[name] // as given: an error names the path so
	if st == nil {
		st = &statEntry{}
		g.stats[name] = st
	}
	g.mu.Unlock()
	st.once.Do(func() { st.info, st.err = fs.Stat(g.fsys, name) })
	return st.info, st.err
}

type statEntry struct {
	once sync.Once
	info fs.FileInfo
	err  error
}

// ReadDir lists a directory once.
func (g *Graph) ReadDir(name string) ([]fs.DirEntry, error) {
	g.mu.Lock()
	l := g.dirs[key(name)]
	if l == nil {
		l = &listing{}
		g.dirs[key(name)] = l
	}
	g.mu.Unlock()
	l.once.Do(func() { l.entries, l.err = fs.ReadDir(g.fsys, name) })
	return l.entries, l.err
}

// Finder is the spec.Finder of calls made in the graph's specs: sibling
// files are looked up through the graph, library specs in the library,
// and each resolution is kept.
func (g *Graph) Finder() *spec.Finder {
	return &spec.Finder{FS: g, Std: g.std, Memo: &g.memo}
}

// inLibrary reports whether the embedded library holds a std/... path.
func (g *Graph) inLibrary(p string) bool {
	if v, ok := g.stdOK.Load(p); ok {
		return v.(bool)
	}
	ok := InStd(p)
	g.stdOK.Store(p, ok)
	return ok
}

// Call is one call target named in a node's program, resolved.
type Call struct {
	Name string
	// Pos is where the target is named, in the node's file.
	Pos diag.Pos
	// Callee is what the name resolves to (spec.ResolveCall's order), nil
	// when nothing does.
	Callee *spec.Callee
}

// Calls lists the call targets of n's program (its Execution, or its
// Delegation), in order, each name once, resolved through the graph. A
// target the program binds itself (a loop variable) is not listed.
// Calls resolves n's targets once; later calls return the same list.
func (g *Graph) Calls(n *spec.Spec) []Call {
	g.mu.Lock()
	out, ok := g.calls[n]
	g.mu.Unlock()
	if ok {
		return out
	}
	body := n.Body()
	if body == nil || body.Program == nil {
		return nil
	}
	f := g.Finder()
	seen := map[string]bool{}
	for _, t := range targets(body.Program) {
		if seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		t.Callee = n.ResolveCall(t.Name, nil, f)
		out = append(out, t)
	}
	g.mu.Lock()
	g.calls[n] = out
	g.mu.Unlock()
	return out
}

// targets lists the bare-name targets of prog's calls that the program
// does not bind itself.
func targets(prog *syntax.Program) []Call {
	// one walk: the loop variables anywhere, and the calls in order,
	// those to a loop variable dropped after
	var locals map[string]bool
	var calls []Call
	syntax.Walk(prog, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.ForExpr:
			if locals == nil {
				locals = map[string]bool{}
			}
			locals[x.Var.Name] = true
		case *syntax.CallExpr:
			if id, ok := x.Target.(*syntax.Ident); ok && x.Session == nil { // a session calls a model, no spec
				calls = append(calls, Call{Name: id.Name, Pos: id.NamePos})
			}
		}
		return true
	})
	out := calls[:0]
	for _, c := range calls {
		if !locals[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

// Callee is the spec a resolved call reaches: the inline node, or the
// sibling or library file loaded through the graph. nil for a slot or a
// pattern instance (and for a nil c); the error is the file's read error.
func (g *Graph) Callee(c *spec.Callee) (*spec.Spec, diag.List, error) {
	switch {
	case c == nil:
		return nil, nil, nil
	case c.Kind == spec.CalleeNode:
		return c.Node, nil, nil
	case c.Path != "":
		return g.LoadCallee(c.Path)
	}
	return nil, nil, nil
}

// memFile is a file served from what the graph read.
type memFile struct {
	*bytes.Reader
	info fs.FileInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

var (
	_ fs.ReadDirFS = (*Graph)(nil)
	_ fs.StatFS    = (*Graph)(nil)
	_ spec.Loader  = (*Graph)(nil)
	_ io.Seeker    = (*memFile)(nil)
)

// InStd reports whether the embedded library holds the std/... path p
// (with or without its .prose.md): the one answer to "is this a library
// spec" that call resolution, lint and the Temporal worker share. A
// file on disk at p that is not a regular file (a named pipe) counts, so
// that the call resolves to it and its load names what is there.
func InStd(p string) bool {
	_, _, err := std.Open(p)
	var nr *filekind.NotRegularError
	return err == nil || errors.As(err, &nr)
}
