package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/yuin/goldmark/ast"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/mdblock"
)

// MaxSize is the largest spec file the loader accepts (4 MiB).
const MaxSize = 4 << 20

// Load reads the spec file at path and parses it. The error is non-nil only
// when the path cannot be read (missing, a directory, no permission); every
// problem with the file's content is a diagnostic, and the returned Spec is
// then as complete as the loader could make it.
func Load(path string) (*Spec, diag.List, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return parseOpened(f, path)
}

// LoadFS is Load reading from a file system (an embedded library, for
// example). The spec's file name is path as given.
func LoadFS(fsys fs.FS, path string) (*Spec, diag.List, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return parseOpened(f, path)
}

// Loader loads spec files by path: a memoizing one (package graph's
// Graph) reads each file once and parses it at most once.
type Loader interface {
	Load(path string) (*Spec, diag.List, error)
}

// LoadFrom is LoadFS, except that a file system that is also a Loader
// loads the spec itself (a graph answers from what it already read); a
// nil fsys is the operating system's, as Load.
func LoadFrom(fsys fs.FS, path string) (*Spec, diag.List, error) {
	switch l := fsys.(type) {
	case nil:
		return Load(path)
	case Loader:
		return l.Load(path)
	}
	return LoadFS(fsys, path)
}

// ReadOpened reads a spec file opened as path the way Load does (at most
// MaxSize+1 bytes; a directory is an error) and closes it. The source is
// for Parse.
func ReadOpened(f fs.File, path string) ([]byte, error) {
	defer f.Close()
	return readCapped(f, path)
}

// StdinName is the file name of a spec read from standard input, as
// diagnostics print it. It has no .prose.md suffix, so the spec's name is
// not compared with it.
const StdinName = "<stdin>"

// Read reads one spec from r (standard input, a pipe) and parses it as the
// file name. Like Load it reads at most MaxSize+1 bytes, leaving a bigger
// spec for Parse to refuse; the error is for a failed read only.
func Read(r io.Reader, name string) (*Spec, diag.List, error) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(r, MaxSize+1)); err != nil {
		return nil, nil, err
	}
	s, diags := ParseOwned(name, buf.Bytes())
	return s, diags, nil
}

// parseOpened reads the open file f, closes it and parses it as path: the
// part of Load and LoadFS that does not depend on where the file is.
func parseOpened(f fs.File, path string) (*Spec, diag.List, error) {
	defer f.Close()
	src, err := readCapped(f, path)
	if err != nil {
		return nil, nil, err
	}
	s, diags := ParseOwned(path, src)
	return s, diags, nil
}

// readCapped reads at most MaxSize+1 bytes of f: a bigger file is left for
// Parse to refuse without reading it all.
func readCapped(f fs.File, path string) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("is a directory, not a spec file")}
	}
	size := st.Size()
	if size > MaxSize || size <= 0 {
		size = MaxSize
	}
	// bytes.Buffer.ReadFrom wants MinRead bytes of room before it sees EOF.
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxSize+1)); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return buf.Bytes(), nil
}

// Parse parses the source of a .prose.md file. name is the file name used
// in diagnostics and for the name/file-name check. Parse never fails: it
// returns the spec it could build plus every diagnostic found, sorted.
func Parse(name string, src []byte) (*Spec, diag.List) {
	return parse(name, src, false)
}

// ParseOwned is Parse for a caller that gives src up: the spec's texts
// share its memory rather than a copy of it, so src must never be changed
// after (the spec graph parses the bytes it read and only ever reads
// them).
func ParseOwned(name string, src []byte) (*Spec, diag.List) {
	return parseSource(name, src, true, false)
}

// parse is Parse, with goldmark's own block parser when goldmarkOnly is
// set (tests compare the two).
func parse(name string, src []byte, goldmarkOnly bool) (*Spec, diag.List) {
	return parseSource(name, src, false, goldmarkOnly)
}

// parseSource is parse; owned says whether src may be shared (ParseOwned).
func parseSource(name string, src []byte, owned, goldmarkOnly bool) (*Spec, diag.List) {
	if len(src) > MaxSize {
		f := diag.NewFile(name, nil)
		var d diag.List
		// Load reads one byte past the limit, not the whole file: its
		// length here says only that the file is over the limit.
		d.Errorf(f, 0, CodeTooLarge, "file is over the 4 MiB limit of a spec (%d bytes)", MaxSize)
		return &Spec{File: f}, d
	}
	text := unsafe.String(unsafe.SliceData(src), len(src))
	if !owned {
		text = string(src)
	}
	l := &loader{f: diag.NewFile(name, src), src: src, text: text, goldmarkOnly: goldmarkOnly}
	l.s = &Spec{File: l.f}
	l.run()
	l.diags.Sort()
	return l.s, l.diags
}

// loader is the state of one Parse call.
type loader struct {
	f     *diag.File
	src   []byte
	text  string // src as a string; raw texts are substrings of it
	s     *Spec
	diags diag.List

	fmEnd    int        // offset where the Markdown starts (after the front matter)
	kindPos  diag.Pos   // the front matter's kind value, or 0
	namePos  diag.Pos   // the front matter's name value, or 0
	sections []*section // sections with their blocks

	syntaxErrors bool            // the Delegation parsed with errors (Program is partial)
	goldmarkOnly bool            // parse the Markdown with goldmark, not mdblock (markdown.go)
	md           *mdblock.Parser // the Parser whose nodes hold the tree (markdown.go)

	// Contract Markdown: the loaders of the inline nodes (on the file's
	// loader), the file's loader (on a node's), and the offsets of every
	// section and node heading in file order (on the file's loader).
	nodes     []*loader
	root      *loader
	heads     []int
	nodeNames map[string]*Spec // the first node of each name
}

// section is a Section plus the top-level Markdown blocks of its body.
type section struct {
	Section // the Spec's Sections point here
	level   int
	blocks  []ast.Node
}

func (l *loader) errorf(p int, code, format string, args ...any) {
	l.diags.Errorf(l.f, diag.Pos(p), code, format, args...)
}

func (l *loader) warnf(p int, code, format string, args ...any) {
	l.diags.Warnf(l.f, diag.Pos(p), code, format, args...)
}

func (l *loader) run() {
	if len(l.src) == 0 || strings.TrimSpace(l.text) == "" {
		l.errorf(0, CodeEmpty, "file is empty; a spec starts with a --- front matter block")
		return
	}
	if !utf8.Valid(l.src) {
		l.errorf(firstInvalidUTF8(l.src), CodeNotUTF8, "file is not valid UTF-8")
	}
	l.frontMatter()
	// A file whose kind is not known (its front matter is missing, not
	// closed or not YAML, or its kind misspelt, which is reported) is
	// read by the rules its body is written in: read by the earlier
	// ones, a Contract item (`- `x`: a value`) drew errors of its own
	// beside the real one (`unknown type "who"` beside kind: funtion).
	l.s.Contract = isContract(l.s.Kind, l.s.Version) ||
		(l.s.Kind == KindPattern && l.s.Version == "" || !slices.Contains(kinds, l.s.Kind)) && contractForms(l.text[l.fmEnd:]) // generation.go
	l.s.Pos = l.namePos // a file's node is where its name is
	if subj, ok := l.s.Front["subject"].(string); ok {
		l.s.Subject = subj
	}
	if off := deepLine(l.text[l.fmEnd:]); off >= 0 {
		l.errorf(l.fmEnd+off, CodeTooDeep, "this line nests indentation, quotes or list markers more than %d characters deep; the loader refuses such Markdown", maxPrefix)
		return
	}
	doc := l.markdown()
	l.structure(doc)
	l.readSections()
	l.delegation()
	l.contractSections()
	for _, n := range l.nodes {
		n.s.Kind = nodeKind(n.s, l.s.Kind)
		n.readSections()
		n.delegation()
		n.contractSections()
		n.resolve()
		l.diags = append(l.diags, n.diags...)
	}
	l.resolve()
	l.useCollisions()
	if len(l.s.Nodes) > 8 {
		l.s.nodeIndex, l.s.nodeCount = l.nodeNames, len(l.s.Nodes)
	}
	// The spec's sections outlive the parse and the Markdown blocks are
	// read by now: drop them, so the block tree is not kept as long as
	// the spec (a graph holds every spec of a command, and the
	// collector would walk every tree on each cycle).
	for _, sec := range l.sections {
		sec.blocks = nil
	}
	for _, n := range l.nodes {
		for _, sec := range n.sections {
			sec.blocks = nil
		}
	}
	l.doneMarkdown()
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

// String summarizes a spec for debugging.
func (s *Spec) String() string {
	return fmt.Sprintf("spec %q (%s, %d slots)", s.Name, s.Kind, len(s.Slots))
}
