// Package diag holds the source positions and diagnostics shared by every
// stage of prose: the spec loader, the Delegation parser and checker, and the
// evaluator's runtime errors.
//
// A Pos is a byte offset into one .md file; line and column are computed only
// when printing, from the File's line table (as go/token does). A Diagnostic
// carries a severity, a stable code and a message; a List sorts, dedupes and
// prints them one per line as FILE:LINE:COL: SEVERITY: MESSAGE [CODE].
//
// Main types: File, Pos, Position, Diagnostic, List.
package diag

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Pos is a byte offset into a File's source. NoPos (-1) means "unknown".
type Pos int

// NoPos is the zero-information position.
const NoPos Pos = -1

// IsValid reports whether p refers to a real offset.
func (p Pos) IsValid() bool { return p >= 0 }

// File is a named source with a line table. It is immutable after NewFile and
// safe for concurrent use.
type File struct {
	Name  string
	src   []byte
	once  sync.Once
	lines []int // offset of the first byte of each line; built by table
}

// NewFile makes a File of src. The File keeps src; callers must not
// modify it afterwards. The line table is built on first use: most files
// a command loads are never asked for a position (a lint of a clean tree
// reports none), and the table was a few percent of loading a file.
func NewFile(name string, src []byte) *File {
	return &File{Name: name, src: src}
}

// table returns the line table, building it once.
func (f *File) table() []int {
	f.once.Do(func() {
		lines := make([]int, 1, bytes.Count(f.src, []byte{'\n'})+1)
		for i := bytes.IndexByte(f.src, '\n'); i >= 0; {
			lines = append(lines, i+1)
			j := bytes.IndexByte(f.src[i+1:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
		}
		f.lines = lines
	})
	return f.lines
}

// Source returns the file's bytes.
func (f *File) Source() []byte { return f.src }

// Size is the length of the source in bytes.
func (f *File) Size() int { return len(f.src) }

// LineCount is the number of lines (a final line without newline counts).
func (f *File) LineCount() int { return len(f.table()) }

// LineStart returns the offset of the first byte of 1-based line n.
func (f *File) LineStart(n int) Pos {
	lines := f.table()
	if n < 1 || n > len(lines) {
		return NoPos
	}
	return Pos(lines[n-1])
}

// Position converts an offset to a printable file:line:col. Columns count
// runes, 1-based. An invalid or out-of-range Pos yields line 0.
func (f *File) Position(p Pos) Position {
	if f == nil {
		return Position{}
	}
	if !p.IsValid() || int(p) > len(f.src) {
		return Position{File: f.Name}
	}
	lines := f.table()
	i := sort.Search(len(lines), func(i int) bool { return lines[i] > int(p) }) - 1
	start := lines[i]
	col := utf8.RuneCount(f.src[start:int(p)]) + 1
	return Position{File: f.Name, Line: i + 1, Col: col, Offset: int(p)}
}

// Position is a resolved location. Line and Col are 1-based; Line 0 means
// unknown.
type Position struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Col    int    `json:"col"`
	Offset int    `json:"-"`
}

// IsValid reports whether the position has a line.
func (p Position) IsValid() bool { return p.Line > 0 }

// String prints file:line:col, file:line, or file alone.
func (p Position) String() string {
	s := p.File
	if p.Line > 0 {
		if s != "" {
			s += ":"
		}
		s += strconv.Itoa(p.Line)
		if p.Col > 0 {
			s += ":" + strconv.Itoa(p.Col)
		}
	}
	if s == "" {
		s = "-"
	}
	return s
}

// Severity orders findings; Error makes lint exit 1.
type Severity int

const (
	Warning Severity = iota
	Error
)

func (s Severity) String() string {
	if s == Error {
		return "error"
	}
	return "warning"
}

// MarshalText writes "error" or "warning".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Diagnostic is one finding at a position. Code is stable across releases
// (for example "spec/missing-section" or "check/undefined-name").
type Diagnostic struct {
	Position
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
}

// String prints FILE:LINE:COL: SEVERITY: MESSAGE [CODE].
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", d.Position, d.Severity, d.Message, d.Code)
}

// Error makes a Diagnostic usable as an error.
func (d Diagnostic) Error() string { return d.String() }

// List is a list of diagnostics. The zero value is empty and ready to use.
type List []Diagnostic

// Add appends a diagnostic at offset p of f.
func (l *List) Add(f *File, p Pos, sev Severity, code, format string, args ...any) {
	*l = append(*l, Diagnostic{Position: f.Position(p), Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
}

// Errorf appends an error-level diagnostic.
func (l *List) Errorf(f *File, p Pos, code, format string, args ...any) {
	l.Add(f, p, Error, code, format, args...)
}

// Warnf appends a warning.
func (l *List) Warnf(f *File, p Pos, code, format string, args ...any) {
	l.Add(f, p, Warning, code, format, args...)
}

// Sort orders by file, line, column, then severity (errors first), code,
// message.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		switch {
		case a.File != b.File:
			return a.File < b.File
		case a.Line != b.Line:
			return a.Line < b.Line
		case a.Col != b.Col:
			return a.Col < b.Col
		case a.Severity != b.Severity:
			return a.Severity > b.Severity
		case a.Code != b.Code:
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
}

// Dedupe sorts the list and drops a finding whose file, line, code and
// message repeat an earlier one on the same line.
func (l List) Dedupe() List {
	l.Sort()
	out := l[:0]
	type key struct {
		file       string
		line       int
		code, mesg string
	}
	seen := map[key]bool{}
	for _, d := range l {
		k := key{d.File, d.Line, d.Code, d.Message}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

// HasErrors reports whether any finding is error-level.
func (l List) HasErrors() bool {
	for _, d := range l {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns only the error-level findings.
func (l List) Errors() List {
	var out List
	for _, d := range l {
		if d.Severity == Error {
			out = append(out, d)
		}
	}
	return out
}

// Err returns nil when the list has no error-level finding, else the list
// of errors as an error.
func (l List) Err() error {
	if e := l.Errors(); len(e) > 0 {
		return e
	}
	return nil
}

// Error prints the first finding and how many more there are.
func (l List) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].String()
	}
	return fmt.Sprintf("%s (and %d more)", l[0], len(l)-1)
}

// String prints one finding per line.
func (l List) String() string {
	var b strings.Builder
	for _, d := range l {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}
