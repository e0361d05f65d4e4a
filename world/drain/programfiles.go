package drain

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/proselang/prose/run"
	"github.com/proselang/prose/skilldecl"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/graph"
)

// What a program's files add to its node's contract (decided): a
// program that renders a node is part of what makes the node's truth, as
// its contract is, so editing it renders the node again. The command of
// an exec: binding is read as words; each word that names a regular file
// of the project (a relative path under Config.Dir, no "..": sh
// render.sh, ./score.py, python3 tools/rank.py) adds the file's SHA-256
// to the text the fingerprint holds, and so does the file of a spec
// binding (PATH.prose.md). Programs on the PATH, files outside the
// project, and what a script itself reads are not followed: a binding
// names what it runs, and a render that reads other files says so by
// naming them in its command. A file larger than maxProgramFile, or one
// that cannot be read, adds its size and modification time instead. The
// functions an Execution or a model render calls (directly or from a
// function it calls) count as the program does: their name, kind and
// sections (calleeDigest). So do the skills a model render uses (its
// node's ### Skills, its responsibility's, and those of the functions it
// calls): each one's SKILL.md, found as the render finds it, by its path
// and SHA-256, so an edited, moved or newly installed skill renders the
// node again; the other files of a skill's directory are not followed.
const maxProgramFile = 16 << 20

// programFiles digests the files bindings name, for the drains of one
// Prepared. A drain stats each file once (drainFiles); a file whose
// identity did not move since it was hashed is not read again.
type programFiles struct {
	mu   sync.Mutex
	sums map[string]fileSum
}

type fileSum struct {
	size  int64
	mtime time.Time
	sum   string
}

// drainFiles is the file digests of one drain: each file is looked at
// once, however many nodes name it.
type drainFiles struct {
	p    *programFiles
	dir  string
	seen map[string]string // path -> "" when it is no file of the project
}

func (p *Prepared) drainBinding() func(*graph.Node) string {
	if p.given != nil {
		return p.Binding
	}
	d := &drainFiles{p: &p.files, dir: p.cfg.Dir, seen: map[string]string{}}
	var mu sync.Mutex
	return func(n *graph.Node) string {
		text := p.Binding(n)
		var words []string
		add := func(b run.Binding) {
			switch b := b.(type) {
			case run.Exec:
				words = append(words, strings.Fields(b.Command)...)
			case run.Spec:
				words = append(words, b.Path)
			}
		}
		own := p.binding(n)
		add(own)
		for _, s := range p.b.Callees[n.ID] {
			add(s.Binding)
		}
		var callees calleeSum
		var skills []skilldecl.Decl
		if _, model := own.(run.Model); own == nil || model {
			callees = p.calleeDigest(n)
			skills = append(skilldecl.ForRender(n.Spec), callees.skills...)
		}
		if len(words) == 0 && callees.digest == "" && len(skills) == 0 {
			return text
		}
		mu.Lock()
		defer mu.Unlock()
		var b strings.Builder
		b.WriteString(text)
		if callees.digest != "" {
			b.WriteString("\x00functions ")
			b.WriteString(callees.digest)
		}
		for _, s := range skills {
			b.WriteString("\x00skill ")
			b.WriteString(d.skill(s))
		}
		for _, w := range words {
			if s := d.digest(w); s != "" {
				b.WriteString("\x00")
				b.WriteString(s)
			}
		}
		return b.String()
	}
}

// calleeDigest is a digest of the functions an Execution or a model
// render of n calls, directly or from a function it calls: each one's
// name, kind and sections (a function's whole text is what it does,
// whether a model or its own Execution runs it), or "" for none. It is
// computed once per Prepared, whose spec graph is read once.
func (p *Prepared) calleeDigest(n *graph.Node) calleeSum {
	p.calleeMu.Lock()
	defer p.calleeMu.Unlock()
	if d, ok := p.calleeSums[n.ID]; ok {
		return d
	}
	type callee struct{ name, text string }
	var cs []callee
	var skills []skilldecl.Decl
	if p.cfg.Specs != nil {
		p.eachCallee(p.cfg.Specs.Finder(), n.Spec, func(name string, c *spec.Spec) bool {
			if c == nil {
				return true
			}
			skills = append(skills, skilldecl.Declared(c)...)
			var b strings.Builder
			b.WriteString(string(c.Kind))
			for _, s := range c.Sections {
				b.WriteString("\x00")
				b.WriteString(s.Heading)
				b.WriteString("\x00")
				b.WriteString(s.Body)
			}
			cs = append(cs, callee{name, b.String()})
			return true
		})
	}
	d := ""
	if len(cs) > 0 {
		slices.SortFunc(cs, func(a, b callee) int { return strings.Compare(a.name, b.name) })
		h := sha256.New()
		for _, c := range cs {
			io.WriteString(h, c.name)
			h.Write([]byte{0})
			io.WriteString(h, c.text)
			h.Write([]byte{0})
		}
		d = "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	if p.calleeSums == nil {
		p.calleeSums = map[string]calleeSum{}
	}
	sum := calleeSum{digest: d, skills: skills}
	p.calleeSums[n.ID] = sum
	return sum
}

// calleeSum is what the functions a render calls add to its node's
// fingerprint: the digest of their text, and the skills they declare
// (whose files are read at each drain, skill).
type calleeSum struct {
	digest string
	skills []skilldecl.Decl
}

// skill is "NAME FILE sha256:HEX" for a declared skill: the SKILL.md it
// resolves to now (from the declaring file's project and the home
// directory), or "NAME unresolved CODE" (its render fails, and renders
// again once the skill is installed).
func (d *drainFiles) skill(s skilldecl.Decl) string {
	if code, _ := s.Problem(); code != "" {
		return s.Text + " " + code
	}
	found, code, _ := skilldecl.ResolverFor(s, d.dir, skilldecl.Home()).Resolve(s)
	if code != "" {
		return s.Text + " " + code
	}
	return s.Text + " " + found.File + " " + d.p.sum(found.File)
}

// digest is "NAME sha256:HEX" for a word of a command that names a
// regular file of the project, else "".
func (d *drainFiles) digest(word string) string {
	word = strings.Trim(word, `'"`)
	if word == "" || strings.ContainsAny(word, "$`*?[]{}<>|;&=\\") || !filepath.IsLocal(word) {
		return ""
	}
	name := filepath.Clean(word)
	if s, ok := d.seen[name]; ok {
		return s
	}
	s := d.p.sum(filepath.Join(d.dir, name))
	if s != "" {
		s = name + " " + s
	}
	d.seen[name] = s
	return s
}

// sum is the digest of the regular file at path ("" for no such file),
// read again only when its size or modification time moved.
func (p *programFiles) sum(path string) string {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	id := fileSum{size: st.Size(), mtime: st.ModTime()}
	p.mu.Lock()
	old, ok := p.sums[path]
	p.mu.Unlock()
	if ok && old.size == id.size && old.mtime.Equal(id.mtime) {
		return old.sum
	}
	id.sum = "size:" + strconv.FormatInt(id.size, 10) + " mtime:" + id.mtime.UTC().Format(time.RFC3339Nano)
	if id.size <= maxProgramFile {
		if f, err := os.Open(path); err == nil {
			h := sha256.New()
			if _, err := io.Copy(h, io.LimitReader(f, maxProgramFile+1)); err == nil {
				id.sum = "sha256:" + hex.EncodeToString(h.Sum(nil))
			}
			f.Close()
		}
	}
	p.mu.Lock()
	if p.sums == nil {
		p.sums = map[string]fileSum{}
	}
	p.sums[path] = id
	p.mu.Unlock()
	return id.sum
}
