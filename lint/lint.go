// Package lint checks OpenProse spec files: it walks paths for
// *.prose.md files, loads each with the spec loader (structure rules, the
// Delegation parser) and runs the static checks of package check on every
// Delegation that parsed, then merges, dedupes and sorts the findings.
//
// Paths lints files and directories; Write prints a Result as text, JSON,
// GitHub workflow annotations or SARIF 2.1.0, and Result.Summary counts
// the findings. A walk skips entries that are not regular files (a named
// pipe would block it forever) with a lint/not-regular warning, reports a
// subdirectory it cannot list and goes on, and stops when its context is
// done (PathsContext). The path "-" is the spec on Options.Stdin.
//
// Main types and entry points: Options, Result, Paths, PathsContext, File,
// Format, ParseFormat, Write, Resolver, OS.
package lint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/spec/cadence"
	"github.com/proselang/prose/specgraph"
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
	// Stdin, when set, is read for the path "-": one spec, named
	// spec.StdinName in findings. Without it "-" is a file name.
	Stdin io.Reader
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

// Summary counts the findings: "3 errors, 2 warnings in 12 files".
func (r *Result) Summary() string {
	errs, warns := 0, 0
	for _, d := range r.Diags {
		switch d.Severity {
		case diag.Error:
			errs++
		case diag.Warning:
			warns++
		}
	}
	return plural(errs, "error") + ", " + plural(warns, "warning") + " in " + plural(r.Files, "file")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

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

// CodeNotRegular is the warning for a *.prose.md entry of a walked
// directory that is not a regular file (a named pipe, a socket, a device),
// which lint skips rather than read: a pipe would block the walk forever.
const CodeNotRegular = "lint/not-regular"

// Paths is PathsContext without cancellation.
func Paths(paths []string, opts Options) (*Result, error) {
	return PathsContext(context.Background(), paths, opts)
}

// PathsContext lints every path: a file is linted whatever its name (a
// named pipe given by name is read), a directory is walked for *.prose.md
// files, skipping directories whose name starts with a dot and, with a
// warning, entries that are not regular files. Findings of the files that
// could be read are in the Result even when the error (a *PathError)
// reports paths that could not be read; a subdirectory that cannot be read
// is reported and the walk goes on.
//
// When ctx is done, PathsContext returns at once with ctx's error and the
// findings so far; a read blocked in the operating system (opening a pipe
// nobody writes) is abandoned to its goroutine, which a command then ends
// by exiting.
func PathsContext(ctx context.Context, paths []string, opts Options) (*Result, error) {
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
		skipped diag.List
		systems []fs.FS
		seen    = map[key]bool{}
		graphs  = map[int]*specgraph.Graph{}
	)
	for _, p := range paths {
		if p == "-" && opts.Stdin != nil {
			if !seen[key{-1, p}] {
				seen[key{-1, p}] = true
				files = append(files, target{stdin: opts.Stdin})
			}
			continue
		}
		fsys, name := resolve(p)
		id := fsID(&systems, fsys)
		if graphs[id] == nil {
			// one graph per file system: each file is read and parsed
			// once, and each directory listed once, whichever file's
			// calls or test reach it
			graphs[id] = specgraph.New(specgraph.Options{FS: fsys})
		}
		found, skip, err := expand(ctx, graphs[id], name)
		errs = append(errs, err...)
		skipped = append(skipped, skip...)
		if ctx.Err() != nil {
			return &Result{Diags: skipped}, ctx.Err()
		}
		for _, t := range found {
			t.fsys = graphs[id]
			k := key{id, path.Clean(t.name)}
			if !seen[k] {
				seen[k] = true
				files = append(files, t)
			}
		}
	}
	res, tests, readErrs := lintAll(ctx, files, opts.Workers)
	res.Diags = append(res.Diags, skipped...)
	if ctx.Err() == nil {
		res.Diags = append(res.Diags, DuplicateTestNames(tests)...)
	}
	res.Diags = res.Diags.Dedupe()
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
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

// target is one file to lint: name in fsys, or the spec read from stdin.
type target struct {
	fsys  fs.FS
	name  string
	stdin io.Reader
}

// expand lists the spec files under name: name itself when it is a file.
// The walk stops when ctx is done; a subdirectory that cannot be read is
// an error in errs and the walk goes on. Entries that are not regular
// files are skipped with a warning each.
func expand(ctx context.Context, fsys fs.FS, name string) (out []target, skipped diag.List, errs []error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, nil, []error{cleanPathError(name, err)}
	}
	if !st.IsDir() {
		return []target{{fsys: fsys, name: name}}, nil, nil
	}
	err = fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if p == name {
				return cleanPathError(p, err)
			}
			errs = append(errs, cleanPathError(p, err))
			return nil // a directory that could not be listed: go on
		}
		if d.IsDir() {
			if p != name && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), Suffix) {
			return nil
		}
		mode := d.Type()
		if mode&fs.ModeSymlink != 0 {
			if st, err := fs.Stat(fsys, p); err == nil {
				mode = st.Mode().Type()
			}
		}
		if !mode.IsRegular() {
			skipped.Warnf(diag.NewFile(p, nil), 0, CodeNotRegular, "skipped: %s, not a regular file", filekind.Describe(mode))
			return nil
		}
		out = append(out, target{fsys: fsys, name: p})
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return out, skipped, errs
}

// cleanPathError makes a read error name its path once.
func cleanPathError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", name, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// lintAll lints the files on workers goroutines and merges the findings;
// tests are the names of the test files among them, for the check across
// files. Each file is released from its graph once it is checked: what
// lint keeps of it is its findings and, for a test file, its name, so a
// lint's memory is that of the files being checked, not of every file.
// When ctx is done it returns what was linted so far without waiting for
// a worker blocked in a read.
func lintAll(ctx context.Context, files []target, workers int) (*Result, []TestName, []error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(len(files), 1))
	type out struct {
		diags diag.List
		test  *TestName
		err   error
		done  bool
	}
	outs := make([]out, len(files))
	var mu sync.Mutex // guards outs against the early return below
	var wg sync.WaitGroup
	// Workers take the next file by a counter, not from a feeding
	// goroutine's channel: a handoff a file was a wake-up between
	// threads, a few per cent of a lint's CPU.
	var next atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				diags, test, err := lintTarget(files[i])
				if g, ok := files[i].fsys.(*specgraph.Graph); ok {
					g.Release(files[i].name)
				}
				mu.Lock()
				outs[i] = out{diags, test, err, true}
				mu.Unlock()
			}
		}()
	}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		wg.Wait()
	}()
	select {
	case <-finished:
	case <-ctx.Done():
	}
	mu.Lock()
	defer mu.Unlock()
	res := &Result{}
	var errs []error
	var tests []TestName
	for _, o := range outs {
		if !o.done {
			continue
		}
		if o.err != nil {
			errs = append(errs, o.err)
			continue
		}
		res.Files++
		res.Diags = append(res.Diags, o.diags...)
		if o.test != nil {
			tests = append(tests, *o.test)
		}
	}
	res.Diags = res.Diags.Dedupe()
	return res, tests, errs
}

// lintTarget lints one target: a file, or the spec on stdin. test is the
// name of a test file (nil for another file, and for stdin).
func lintTarget(t target) (diags diag.List, test *TestName, err error) {
	if t.stdin == nil {
		return fileChecks(t.fsys, t.name)
	}
	s, diags, err := spec.Read(t.stdin, spec.StdinName)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", spec.StdinName, err)
	}
	return Loaded(s, diags), nil, nil
}

// Loaded runs lint's checks on a spec its caller loaded (from standard
// input, or a file read apart from a lint): the static checks of its
// program, its cadence and the Contract Markdown checks of its
// Execution and sections, the findings prose lint gives the file, but
// those that need the file's path in a project (its test fixtures, its
// tools and skills). Sibling files are looked for beside the spec's file
// name on the operating system: for standard input, in the current
// directory. It returns loaded (the loader's findings) and the checks'.
func Loaded(s *spec.Spec, loaded diag.List) diag.List {
	if s == nil {
		return loaded
	}
	diags := append(loaded, Spec(s, loaded)...)
	diags = append(diags, cadence.Check(s)...)
	found := contract(s, diags, StdFinder())
	if s.File != nil && s.File.Name == spec.StdinName {
		for i := range found {
			if found[i].Code == CodeUnresolvedCall {
				found[i].Message += " (a spec read from standard input finds its sibling files in the current directory: run prose lint - there)"
			}
		}
	}
	return NotProse(s, append(diags, found...))
}

// File lints one spec file of fsys: the loader's findings, then the static
// checks of its Delegation when that parsed without a syntax error. The
// error is non-nil only when the file cannot be read.
func File(fsys fs.FS, name string) (diag.List, error) {
	diags, _, err := fileChecks(fsys, name)
	return diags, err
}

// fileChecks is File, and the name of a test file (nil for another).
func fileChecks(fsys fs.FS, name string) (diag.List, *TestName, error) {
	g, ok := fsys.(*specgraph.Graph)
	if !ok {
		g = specgraph.New(specgraph.Options{FS: fsys})
	}
	s, diags, err := g.Load(name)
	if err != nil {
		return nil, nil, cleanPathError(name, err)
	}
	diags = append(diags, Spec(s, diags)...)
	diags = append(diags, TestFile(g, name, s)...)
	diags = append(diags, toolChecks(g, name, s)...)
	diags = append(diags, skillChecks(g, name, s)...)
	diags = append(diags, cadence.Check(s)...)
	var test *TestName
	if s.Kind == "test" {
		n := TestNameOf(s, name)
		test = &n
	}
	return NotProse(s, append(diags, contract(s, diags, g.Finder())...)), test, nil
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
// findings: spec.CheckProgram, which a run's checks use too.
func Spec(s *spec.Spec, loaded diag.List) diag.List { return spec.CheckProgram(s, loaded) }

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
