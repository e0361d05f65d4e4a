package graph

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// Identity (decided, as OpenProse 0.15 says): a responsibility's front
// matter `id:` is its identity, its name is for display. An id is 16
// bytes, UUIDv7-compatible, written as 26 upper-case Crockford base32
// characters (0-9 and A-Z without I, L, O and U; the first 0-7, since 26
// characters hold 130 bits). A node is named by its id or its name
// wherever a node is named; messages show both (Node.Label).
//
// An id that is not so written is an error of the graph (CodeInvalidID);
// a responsibility without one is a lint warning (CodeMissingID) whose fix
// is `prose fix --ids DIR` (AddIDs), which writes a new id into the front
// matter of each.

// Identity diagnostic codes.
const (
	CodeInvalidID = "graph/invalid-id"
	CodeMissingID = "graph/missing-id"
)

// crockford is the Crockford base32 alphabet.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ValidID says why id is not a valid responsibility id ("" when it is).
func ValidID(id string) string {
	if len(id) != 26 {
		return fmt.Sprintf("it has %d characters, want 26", len(id))
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if strings.IndexByte(crockford, c) < 0 {
			if strings.IndexByte(crockford, c-'a'+'A') >= 0 && 'a' <= c && c <= 'z' {
				return fmt.Sprintf("%q is lower case: write it in upper case", c)
			}
			return fmt.Sprintf("%q is not a Crockford base32 character (0-9, A-Z without I, L, O, U)", c)
		}
	}
	if id[0] > '7' {
		return fmt.Sprintf("it starts with %q: 26 characters hold 16 bytes only when the first is 0-7", id[0])
	}
	return ""
}

// NewID makes a responsibility id: a UUIDv7 (48 bits of Unix
// milliseconds, version 7, variant 10, random bits from r) in Crockford
// base32.
func NewID(now time.Time, r io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(r, b[6:]); err != nil {
		return "", err
	}
	ms := uint64(now.UnixMilli())
	var t [8]byte
	binary.BigEndian.PutUint64(t[:], ms)
	copy(b[:6], t[2:])
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	// 128 bits as 26 five-bit digits, the first holding the top 3 bits.
	hi, lo := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	out := make([]byte, 26)
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out), nil
}

// frontMatterID finds the `id:` line of a spec's front matter: the
// offset of its value and the value.
func frontMatterID(src []byte) (diag.Pos, string, bool) {
	if !bytes.HasPrefix(src, []byte("---")) {
		return 0, "", false
	}
	off := 0
	for i, line := range strings.SplitAfter(string(src), "\n") {
		t := strings.TrimRight(line, "\r\n")
		if i > 0 && t == "---" {
			break
		}
		if v, ok := strings.CutPrefix(t, "id:"); ok {
			val := strings.TrimSpace(v)
			return diag.Pos(off + strings.Index(t, val)), strings.Trim(val, `"'`), true
		}
		off += len(line)
	}
	return 0, "", false
}

// checkIDs reports the invalid ids of the graph's nodes.
func (g *Graph) checkIDs() diag.List {
	var diags diag.List
	for _, n := range g.Nodes {
		if _, ok := n.Spec.Front["id"]; !ok {
			continue
		}
		pos, val, _ := frontMatterID(n.Spec.File.Source())
		if why := ValidID(n.ID); why != "" {
			diags.Errorf(n.Spec.File, pos, CodeInvalidID, "id %q of %s is not a responsibility id: %s; an id is 16 bytes in upper-case Crockford base32 (26 characters, as `prose fix --ids` writes): remove the line and run `prose fix --ids %s`",
				val, n.File, why, g.Root)
		}
	}
	return diags
}

// missingIDs warns of each responsibility without an `id:`.
func (g *Graph) missingIDs() diag.List {
	var diags diag.List
	for _, n := range g.Nodes {
		if _, ok := n.Spec.Front["id"]; ok || n.Kind != spec.KindResponsibility || n.Inline() {
			continue
		}
		diags.Add(n.Spec.File, 0, diag.Warning, CodeMissingID, "responsibility %s has no `id:` (its identity: names are for display, and a rename would start it over): run `prose fix --ids %s` to write one", n.Label(), g.Root)
	}
	return diags
}

// LintFile is what lint finds of one node file linted alone: a
// responsibility without an `id:` is warned of (CodeMissingID), as Lint
// does for a project, with the fix for that file, and its ### Maintains
// items that declare no field (plainFields: a type prose does not read
// is an error there as in the project). A file alone is not a project,
// so nothing of its wiring is checked; a file that does not load says
// nothing here (its own lint reports why).
func LintFile(path string) diag.List {
	if src, err := os.ReadFile(path); err != nil || notNode(src) {
		// the front matter names another kind: no need to load the file
		// a second time (prose lint has checked it already)
		return nil
	}
	s, _, err := spec.Load(path)
	if err != nil || s == nil || !s.Kind.IsNode() {
		return nil
	}
	var diags diag.List
	if _, ok := s.Front["id"]; !ok && s.Kind == spec.KindResponsibility {
		diags.Add(s.File, 0, diag.Warning, CodeMissingID, "responsibility %s has no `id:` (its identity: names are for display, and a rename would start it over): run `prose fix --ids %s` to write one", s.Name, path)
	}
	g := &Graph{Root: filepath.Dir(path), byID: map[string]*Node{}}
	var wiring diag.List // a project's findings, not a file's
	g.add(s, path, "", &wiring)
	return append(diags, g.plainFields()...)
}

// notNode reports whether src's front matter says, on a line `kind:
// WORD` of its own, that the file is of a kind other than responsibility
// or gateway. Anything less plain (no such line, a quoted or flow
// value, no front matter) is false: the file is loaded and its kind read
// as the loader reads it.
func notNode(src []byte) bool {
	rest, ok := bytes.CutPrefix(src, []byte("---\n"))
	if !ok {
		return false
	}
	var kind []byte
	for len(rest) > 0 {
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		rest = after
		line = bytes.TrimSuffix(line, []byte("\r"))
		if string(line) == "---" {
			return kind != nil && !spec.Kind(kind).IsNode()
		}
		v, ok := bytes.CutPrefix(line, []byte("kind:"))
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		if kind != nil || len(v) == 0 {
			return false // twice, or a value on the lines below
		}
		for _, c := range v {
			if (c < 'a' || c > 'z') && c != '-' {
				return false
			}
		}
		kind = v
	}
	return false // no end to the front matter
}

// AddIDs writes a new id into the front matter of each responsibility
// under path (a directory or a file) that has none, and returns the
// files it changed. Nothing else in a file changes.
func AddIDs(path string, now func() time.Time) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	if st.IsDir() {
		if files, err = walk(path); err != nil {
			return nil, err
		}
	}
	var changed []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return changed, err
		}
		s, _, err := spec.Load(f)
		if err != nil || s == nil || s.Kind != spec.KindResponsibility {
			continue
		}
		if _, ok := s.Front["id"]; ok {
			continue
		}
		id, err := NewID(now(), rand.Reader)
		if err != nil {
			return changed, err
		}
		out, ok := withID(src, id)
		if !ok {
			return changed, fmt.Errorf("%s: no front matter to write the id into", f)
		}
		fi, err := os.Stat(f)
		if err != nil {
			return changed, err
		}
		if err := os.WriteFile(f, out, fi.Mode().Perm()); err != nil {
			return changed, err
		}
		changed = append(changed, f)
	}
	return changed, nil
}

// withID is src with `id: ID` after the front matter's kind line (or
// as its last line).
func withID(src []byte, id string) ([]byte, bool) {
	if !bytes.HasPrefix(src, []byte("---")) {
		return nil, false
	}
	lines := strings.SplitAfter(string(src), "\n")
	nl := "\n"
	if strings.HasSuffix(lines[0], "\r\n") {
		nl = "\r\n"
	}
	at := -1
	for i := 1; i < len(lines); i++ {
		t := strings.TrimRight(lines[i], "\r\n")
		if strings.HasPrefix(t, "kind:") {
			at = i + 1
		}
		if t == "---" {
			if at < 0 {
				at = i
			}
			out := strings.Join(lines[:at], "") + "id: " + id + nl + strings.Join(lines[at:], "")
			return []byte(out), true
		}
	}
	return nil, false
}

// StoredNode is the id under which a state directory keeps the node
// named name: name itself when stored lists it, else the id of the node
// so named in the project whose .prose/world stateDir is (a node is named
// by its id or its name); name when neither knows it.
func StoredNode(stored []string, stateDir, name string) string {
	if contains(stored, name) {
		return name
	}
	if filepath.Base(stateDir) != "world" || filepath.Base(filepath.Dir(stateDir)) != ".prose" {
		return name
	}
	g, _, err := Load(filepath.Dir(filepath.Dir(stateDir)))
	if err != nil {
		return name
	}
	if n := g.Node(name); n != nil {
		return n.ID
	}
	return name
}
