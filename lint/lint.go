// Package lint checks OpenProse spec files: it walks paths for
// *.prose.md files, loads each with the spec loader (structure rules, the
// Delegation parser) and runs the static checks of package check on every
// Delegation that parsed, then merges, dedupes and sorts the findings.
//
// Paths lints files and directories; Write prints a Result as text, JSON,
// GitHub workflow annotations or SARIF 2.1.0.
//
// Main types and entry points: Options, Result, Paths, File, Format,
// ParseFormat, Write, Resolver, OS.
package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// Suffix is the file name ending a directory walk looks for.
const Suffix = ".prose.md"

// Resolver maps a path given by the user to the file system that holds it
// and the name of the path inside that file system. Every file lint reads
// is opened through the Resolver in effect, so a resolver can serve paths
// from an embedded library as well as from disk.
type Resolver func(arg string) (fsys fs.FS, name string)

// Options tune Paths. The zero value lints from the OS file system with
// one worker per CPU.
type Options struct {
	// Resolve maps each path argument to a file system; nil means OS.
	Resolve Resolver
	// Workers is the number of files linted at once; 0 means GOMAXPROCS.
	Workers int
}

// Result is the outcome of linting some paths.
type Result struct {
	// Diags are the findings of every file, deduped and sorted by file,
	// line and column.
	Diags diag.List
	// Files is the number of spec files linted.
	Files int
}

// HasErrors reports whether any finding is error-level.
func (r *Result) HasErrors() bool { return r.Diags.HasErrors() }

// PathError lists the paths that could not be read.
type PathError struct {
	Errs []error
}

func (e *PathError) Error() string {
	msgs := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap gives the individual errors.
func (e *PathError) Unwrap() []error { return e.Errs }

// Paths lints every path: a file is linted whatever its name, a directory
// is walked for *.prose.md files (skipping directories whose name starts
// with a dot). Findings of the files that could be read are in the Result
// even when the error (a *PathError) reports paths that could not be read.
func Paths(paths []string, opts Options) (*Result, error) {
	resolve := opts.Resolve
	if resolve == nil {
		resolve = OS
	}
	type key struct {
		fsys int
		name string
	}
	var (
		files   []target
		errs    []error
		systems []fs.FS
		seen    = map[key]bool{}
	)
	for _, p := range paths {
		fsys, name := resolve(p)
		found, err := expand(fsys, name)
		if err != nil {
			errs = append(errs, err)
		}
		id := fsID(&systems, fsys)
		for _, t := range found {
			k := key{id, path.Clean(t.name)}
			if !seen[k] {
				seen[k] = true
				files = append(files, t)
			}
		}
	}
	res, readErrs := lintAll(files, opts.Workers)
	errs = append(errs, readErrs...)
	if len(errs) > 0 {
		return res, &PathError{Errs: errs}
	}
	return res, nil
}

// fsID numbers the distinct file systems seen so far; one that cannot be
// compared (a map such as fstest.MapFS) gets a number of its own.
func fsID(systems *[]fs.FS, fsys fs.FS) int {
	if reflect.TypeOf(fsys).Comparable() {
		for i, s := range *systems {
			if reflect.TypeOf(s) == reflect.TypeOf(fsys) && s == fsys {
				return i
			}
		}
	}
	*systems = append(*systems, fsys)
	return len(*systems) - 1
}

// target is one file to lint.
type target struct {
	fsys fs.FS
	name string
}

// expand lists the spec files under name: name itself when it is a file.
func expand(fsys fs.FS, name string) ([]target, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, cleanPathError(name, err)
	}
	if !st.IsDir() {
		return []target{{fsys, name}}, nil
	}
	var out []target
	err = fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return cleanPathError(p, err)
		}
		if d.IsDir() {
			if p != name && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), Suffix) {
			out = append(out, target{fsys, p})
		}
		return nil
	})
	return out, err
}

// cleanPathError makes a read error name its path once.
func cleanPathError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", name, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// lintAll lints the files on workers goroutines and merges the findings.
func lintAll(files []target, workers int) (*Result, []error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(len(files), 1))
	type out struct {
		diags diag.List
		err   error
	}
	outs := make([]out, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				outs[i].diags, outs[i].err = File(files[i].fsys, files[i].name)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	res := &Result{}
	var errs []error
	for _, o := range outs {
		if o.err != nil {
			errs = append(errs, o.err)
			continue
		}
		res.Files++
		res.Diags = append(res.Diags, o.diags...)
	}
	res.Diags = res.Diags.Dedupe()
	return res, errs
}

// File lints one spec file of fsys: the loader's findings, then the static
// checks of its Delegation when that parsed without a syntax error. The
// error is non-nil only when the file cannot be read.
func File(fsys fs.FS, name string) (diag.List, error) {
	s, diags, err := spec.LoadFS(fsys, name)
	if err != nil {
		return nil, cleanPathError(name, err)
	}
	diags = append(diags, Spec(s, diags)...)
	diags = append(diags, TestFile(fsys, name, s)...)
	return append(diags, contract(s, diags, &spec.Finder{FS: fsys, Std: stdExists})...), nil
}

// Contract runs the Contract Markdown checks of a loaded spec (nothing
// for a file of an earlier generation), finding sibling files with f
// (nil: StdFinder).
func Contract(s *spec.Spec, loaded diag.List, f *spec.Finder) diag.List {
	if f == nil {
		f = StdFinder()
	}
	return contract(s, loaded, f)
}

// Spec runs the static checks on a loaded spec, given the loader's
// findings: nothing when there is no Delegation program or when the
// loader reported a syntax error in it (checks of a broken program would
// only cascade).
func Spec(s *spec.Spec, loaded diag.List) diag.List {
	if s == nil || s.Delegation == nil || s.Delegation.Program == nil {
		return nil
	}
	for _, d := range loaded {
		if d.Severity == diag.Error && strings.HasPrefix(d.Code, "syntax/") {
			return nil
		}
	}
	return check.Check(s.Delegation.Program, s.Decls())
}

// sortedCodes returns the distinct codes of l, sorted.
func sortedCodes(l diag.List) []string {
	set := map[string]bool{}
	for _, d := range l {
		set[d.Code] = true
	}
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// slashPath is name with forward slashes, cleaned, for URIs.
func slashPath(name string) string {
	return path.Clean(strings.ReplaceAll(name, "\\", "/"))
}
