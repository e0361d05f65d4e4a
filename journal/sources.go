package journal

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/internal/wholefile"
	"github.com/proselang/prose/redact"
)

// Spec sources (FORMAT.md, "source").
//
// A run keeps the source of every spec file it loaded in its run
// directory, named by its digest (sources/HEX.prose.md, once per run
// however many paths or sessions name it), and journals which path it
// loaded with which digest. A replay reads the specs from there
// (SourceFS), so it replays what ran after the files were edited or
// removed; a resume runs live work and reads the files as they are now
// (a changed spec is refused unless forced, as before).
//
// A source that holds a secret (the value of a secret-looking environment
// variable, a credential-shaped token, a NAME=VALUE assignment of a secret
// name) is not kept: its record says it was withheld, and a replay reads
// that file as it is now, as it did before sources were kept.

// SourcesDir is the directory of a run's kept spec sources.
const SourcesDir = "sources"

// KeepSource keeps src, the spec file the run loaded by name, in the run
// directory and journals it. A source already kept under the same name
// and digest is not kept again. Nothing is written when replaying.
func (r *Run) KeepSource(name string, src []byte) error {
	if r.w == nil {
		return nil
	}
	sum := Digest(src)
	r.mu.Lock()
	if r.kept == nil {
		r.kept = map[string]string{}
	}
	if r.kept[name] == sum {
		r.mu.Unlock()
		return nil
	}
	r.kept[name] = sum
	r.mu.Unlock()
	rec := &Record{Type: TypeSource, Time: r.opt.Now().UTC(), Path: name, SpecDigest: sum}
	env := r.opt.Env
	if env == nil {
		env = os.Environ()
	}
	if _, secret := redact.ForEnv(env).WithShapes().Text(string(src)); secret {
		rec.Withheld = true
	} else if err := r.storeSource(sum, src); err != nil {
		return fmt.Errorf("journal: keeping the source of %s: %w", name, err)
	}
	return r.write(rec, false)
}

// storeSource writes src to the run's sources, named by its digest sum,
// unless it is there: written whole (wholefile.Write), so a kill never
// leaves a partial source under the digest.
func (r *Run) storeSource(sum string, src []byte) error {
	dir := filepath.Join(r.dir, SourcesDir)
	dst := filepath.Join(dir, sum+".prose.md")
	if st, err := os.Stat(dst); err == nil && st.Mode().IsRegular() {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return wholefile.Write(dst, src, 0o600)
}

// SourceFS is base with the spec sources the journal l of the run in dir
// kept: a file the run loaded by a name is read, under that name, from
// what the run kept (the latest record of the name), whatever the file
// holds now or whether it exists; everything else is read from base. A
// source whose kept copy is missing or does not match its digest is
// read from base too (a replay then reports a changed spec, as before).
func SourceFS(dir string, l *Log, base fs.FS) fs.FS {
	o := &sourceFS{base: base, kept: map[string]string{}}
	for _, rec := range l.Records {
		if rec.Type != TypeSource || rec.Path == "" {
			continue
		}
		k := path.Clean(rec.Path)
		if rec.Withheld || !isDigest(rec.SpecDigest) {
			delete(o.kept, k)
			continue
		}
		p := filepath.Join(dir, SourcesDir, rec.SpecDigest+".prose.md")
		// filekind: a named pipe or a device in a kept source's place is
		// no kept source (read as the file is now), never waited on.
		if b, err := filekind.ReadFile(p); err == nil && Digest(b) == rec.SpecDigest {
			o.kept[k] = p
		} else {
			delete(o.kept, k)
		}
	}
	return o
}

// Kept reports whether fsys (from SourceFS) reads name from the run's
// kept sources.
func Kept(fsys fs.FS, name string) bool {
	o, ok := fsys.(*sourceFS)
	if !ok {
		return false
	}
	_, ok = o.kept[path.Clean(name)]
	return ok
}

func isDigest(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}

type sourceFS struct {
	base fs.FS
	kept map[string]string // name -> file of its kept source
}

func (o *sourceFS) Open(name string) (fs.File, error) {
	if p, ok := o.kept[path.Clean(name)]; ok {
		f, err := filekind.Open(p)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return keptFile{f, name}, nil
	}
	return o.base.Open(name)
}

func (o *sourceFS) Stat(name string) (fs.FileInfo, error) {
	if p, ok := o.kept[path.Clean(name)]; ok {
		st, err := os.Stat(p)
		if err != nil {
			return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
		}
		return keptInfo{st, name}, nil
	}
	return fs.Stat(o.base, name)
}

func (o *sourceFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(o.base, name)
}

// keptFile is a kept source opened under the name the run loaded it by.
type keptFile struct {
	*os.File
	name string
}

func (f keptFile) Stat() (fs.FileInfo, error) {
	st, err := f.File.Stat()
	if err != nil {
		return nil, err
	}
	return keptInfo{st, f.name}, nil
}

// keptInfo names a kept source as the run loaded it.
type keptInfo struct {
	fs.FileInfo
	name string
}

func (i keptInfo) Name() string { return path.Base(i.name) }
