package run

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/journal"
)

// Inputs typed run or run[] (a contract's "- `subject`: run — a
// completed run to inspect") are bound to earlier runs of this machine,
// not to the text naming them. Package bind splits what was given into
// references (one for run; for run[] a comma-separated list, a JSON array,
// or one --input per run); each is resolved here, before the run starts,
// and an error names the input, the reference and the fix (exit 2). What
// was decided:
//
// A reference is
//   - a run id (no slash): the run of that id in the run directory in use,
//     Options.RunDir (prose run's --run-dir, .prose/runs by default,
//     relative to the working directory of the process), or, for a run
//     that keeps no journal, Options.InputRunDir, else DefaultRunDir;
//   - a path (it holds a slash, or is absolute): that run directory,
//     a relative path read from the run's directory (Request.Dir).
//
// "latest" is refused: a resume of the run binds its inputs again, and the
// newest run would then be another one (the run being resumed, say); the
// id `prose runs` lists is the one to give. A "~/" path is refused too:
// nothing expands it.
//
// The run directory must hold a journal (journal.jsonl). Its status is
// the one `prose runs` shows (journal.Summarize):
//   - ok binds;
//   - error and diverged (the run ended by failing) bind with a warning:
//     a failed run is worth inspecting;
//   - running, waiting (at a gate), interrupted and incomplete (killed)
//     are errors: the run has not ended, and its fix is named (resume
//     it, answer its gates, wait for it); so is unreadable (its journal
//     cannot be read), with the reason.
//
// The bound value is an object a program reads as JSON and a render sees
// in its prompt (RunInput): the run's id, its directory and journal as
// absolute paths, the root spec's name and file, its status, and its
// error when it failed. The journal and the spec sources the directory
// keeps (sources/) are what an inspector reads there.
//
// Staleness: the journal keeps the root spec's digest and, unless it held
// a secret, its source. When the spec file at the journaled path differs
// from that, not only in whitespace, or is gone, the binding goes on
// with a warning naming the run and the file (the warnings of the run,
// at the input's declaration). Without the kept source any change
// counts, whitespace too.
//
// A resume or replay binds its inputs again from the journaled texts: a
// run removed since is then an error, and a warning may differ.

// RunInput is the value an input typed run is bound to (its JSON: run,
// path, journal, root, spec, status and, for a failed run, error).
type RunInput struct {
	ID      string // the run's id: its directory's name
	Path    string // the run directory, absolute
	Journal string // its journal file, absolute
	Root    string // the root spec's name: its file name without .prose.md
	Spec    string // the root spec's file as the journal names it
	Status  string // journal.StatusOK, StatusError or StatusDiverged
	Err     string // the run's error, for a failed run
}

// Value is the run as the input's value.
func (r *RunInput) Value() delegation.Value {
	o := delegation.NewObject()
	o.Set("run", r.ID)
	o.Set("path", r.Path)
	o.Set("journal", r.Journal)
	o.Set("root", r.Root)
	o.Set("spec", r.Spec)
	o.Set("status", r.Status)
	if r.Err != "" {
		o.Set("error", r.Err)
	}
	return o
}

// latestRef is the alias resume and replay take, refused here.
const latestRef = "latest"

// ResolveRunInput resolves ref, the reference given to an input typed
// run, to the run it names: runDir is the run directory bare ids are
// looked up in, dir the directory relative paths are read from (see
// above). The warnings are the bound run's (failed, its spec changed).
func ResolveRunInput(runDir, dir, ref string) (*RunInput, []string, error) {
	shown := runDir
	runDir = absDir(runDir)
	var at string
	switch {
	case ref == latestRef:
		return nil, nil, fmt.Errorf("%q is not taken here: a resume of this run would bind the newest run again, and find another; give the run's id ('prose runs' lists the runs)", ref)
	case strings.HasPrefix(ref, "~"):
		return nil, nil, fmt.Errorf("%q: ~ is not expanded; give the run directory's full path, or a run id ('prose runs' lists the runs)", ref)
	case ref == "." || ref == ".." || strings.ContainsAny(ref, `/\`) || filepath.IsAbs(ref):
		at = ref
		if !filepath.IsAbs(at) {
			at = filepath.Join(absDir(dir), at)
		}
		at = filepath.Clean(at)
		if _, err := os.Stat(at); errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s: no such run directory", ref)
		}
	default:
		at = filepath.Join(runDir, ref)
		if _, err := os.Stat(at); errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("no run %q in %s ('prose runs%s' lists the runs; a run elsewhere is given by the path of its directory)", ref, shown, runDirHint(runDir))
		}
	}
	if st, err := os.Stat(at); err != nil {
		return nil, nil, fmt.Errorf("run %s: %w", ref, err)
	} else if !st.IsDir() {
		return nil, nil, fmt.Errorf("%s is not a run directory (a run is a directory holding a %s)", at, journal.FileName)
	}
	jf := filepath.Join(at, journal.FileName)
	if _, err := os.Lstat(jf); err != nil {
		return nil, nil, fmt.Errorf("%s holds no %s, so it is not a run directory ('prose runs%s' lists the runs)", at, journal.FileName, runDirHint(runDir))
	}
	sum := journal.Summarize(jf)
	runID := filepath.Base(at)
	again := runDirHint(filepath.Dir(at))
	switch sum.Status {
	case journal.StatusOK, journal.StatusError, journal.StatusDiverged:
	case journal.StatusRunning:
		return nil, nil, fmt.Errorf("run %s is still running: wait for it to end, then bind it", runID)
	case journal.StatusWaiting:
		return nil, nil, fmt.Errorf("run %s has not ended: it waits at a gate; answer it (prose answer %s%s) and resume it (prose resume %s%s), or give a run that ended", runID, runID, again, runID, again)
	case journal.StatusInterrupted, journal.StatusIncomplete:
		return nil, nil, fmt.Errorf("run %s has not ended (%s): resume it (prose resume %s%s), or give a run that ended", runID, sum.Status, runID, again)
	case journal.StatusUnreadable:
		return nil, nil, fmt.Errorf("run %s cannot be read: %s", runID, sum.Err)
	default:
		return nil, nil, fmt.Errorf("run %s has not ended (status %s): give a run that ended", runID, sum.Status)
	}
	l, err := journal.ReadFile(jf)
	if err == nil && l.Header == nil {
		err = errors.New("it holds no header")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("run %s cannot be read: %w", runID, err)
	}
	r := &RunInput{ID: runID, Path: at, Journal: jf, Spec: l.Header.Spec, Status: sum.Status}
	r.Root = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(r.Spec), ".md"), ".prose")
	var warnings []string
	if sum.Status != journal.StatusOK {
		r.Err = sum.Err
		why := sum.Status
		if sum.Err != "" {
			why += ": " + sum.Err
		}
		warnings = append(warnings, fmt.Sprintf("run %s failed (%s); it is bound all the same", runID, why))
	}
	if w := staleRun(runID, at, l.Header); w != "" {
		warnings = append(warnings, w)
	}
	return r, warnings, nil
}

// staleRun is the warning for a run whose root spec changed since it ran
// (see above), "" when it did not or cannot be told (a library spec).
func staleRun(runID, dir string, h *journal.Header) string {
	file := h.Spec
	if file == "" || h.SpecDigest == "" || strings.HasPrefix(file, "std/") {
		return ""
	}
	if !filepath.IsAbs(file) {
		if h.Dir == "" {
			return ""
		}
		file = filepath.Join(h.Dir, file)
	}
	now, err := filekind.ReadFile(file) // a named pipe is refused, not waited on
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Sprintf("run %s ran %s, which is gone: what it found may not hold for any spec now", runID, file)
	case err != nil:
		return fmt.Sprintf("run %s ran %s, which cannot be read now (%v): whether it changed since is not known", runID, file, err)
	case journal.Digest(now) == h.SpecDigest:
		return ""
	}
	kept, err := filekind.ReadFile(filepath.Join(dir, journal.SourcesDir, h.SpecDigest+".prose.md"))
	if err == nil && journal.Digest(kept) == h.SpecDigest && sameWords(kept, now) {
		return "" // a whitespace change is no change
	}
	return fmt.Sprintf("run %s is stale: %s changed since it ran, so what it found may not hold for the spec as it is now; run it again to be sure", runID, file)
}

// sameWords reports whether a and b differ in whitespace alone.
func sameWords(a, b []byte) bool {
	fa, fb := bytes.Fields(a), bytes.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if !bytes.Equal(fa[i], fb[i]) {
			return false
		}
	}
	return true
}

// absDir is dir made absolute against the working directory ("" is the
// working directory).
func absDir(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}

// runDirHint is the --run-dir flag naming dir, "" for the default one.
func runDirHint(dir string) string {
	if dir == absDir(DefaultRunDir) {
		return ""
	}
	return " --run-dir " + dir
}

// runResolver is the bind.RunResolver of a run prepared with o from dir.
func runResolver(o Options, dir string) bind.RunResolver {
	if o.Deterministic {
		return nil // reads no file: such inputs are refused (bind)
	}
	runDir := o.RunDir
	if runDir == "" {
		runDir = o.InputRunDir
	}
	if runDir == "" {
		runDir = DefaultRunDir
	}
	return func(ref string) (delegation.Value, []string, error) {
		r, warnings, err := ResolveRunInput(runDir, dir, ref)
		if err != nil {
			return nil, nil, err
		}
		return r.Value(), warnings, nil
	}
}
