// Package testrun runs `kind: test` files: it finds them, runs each one's
// subject with the test's fixtures as its own journaled run in its own
// working directory, checks the Expects and Expects Not items against what
// the subject returned, and reports the outcome as text, GitHub workflow
// annotations, JSON lines or JUnit XML.
//
// Main types and entry points: Discover, Load, Case, Prepare, Options,
// Suite.Run, Result, Item, WriteText, WriteGitHub, WriteJSON, WriteJUnit.
//
// # Decisions
//
//   - Subjects are patterns today (the run library runs them) and, where
//     the loader supports them, functions and responsibilities. A fixture
//     named like a slot of the subject binds it (`exec:...`, `llm`, a spec
//     path); one named like a config key sets it; any other names an input
//     and may be any JSON value.
//   - A binding means what it means to `prose run` started in the test
//     file's directory, although the test's programs run in a scratch
//     directory: relative spec paths, and the words of an exec command
//     that are certainly paths (those starting with ./ or ../, the program
//     when it is a relative path such as bin/tool, an interpreter's script
//     such as fake.sh in `sh fake.sh`), are resolved from the test file's
//     directory (Case.absBinding). Other words stay as written, since
//     rewriting a word that only looks like a file name would change what
//     the program is given. A bare program name (exec:fake.sh) is looked
//     up in PATH, as the shell looks it up; one that PATH lacks and that
//     names a file beside the test makes the test an ERROR before it runs,
//     saying to write exec:./fake.sh (prose run says the same).
//   - Every test is loaded and bound before any runs. A test that cannot
//     run as written (it does not load; a fixture naming nothing, an input
//     with no fixture and no default, an unknown subject) is an ERROR
//     result with its first problem, and every other test still runs, as
//     upstream's "all tests run (no early exit)" asks.
//   - Each test's services run in a fresh scratch directory, removed
//     afterwards; its journal goes under Options.RunDir like any prose run,
//     so `prose runs` lists it and `prose replay` replays it. The journal
//     records the `prose run` command line equivalent to the test and, as
//     the run's directory, the test file's (the scratch one is gone).
//   - An item names an output of the subject (or a member path into it);
//     `__error` (upstream writes `__error.md`) is the run's error message,
//     null when the run succeeded, so `- \`__error.md\` exists` under
//     Expects Not says the run did not fail. A run that fails is ERROR
//     (with the failure's message: a program's stderr tail) unless the test
//     speaks about `__error`.
//   - A test is FAIL when any item is decided against it; else SKIP when a
//     model was needed (by the subject or by a claim) and none is
//     configured; else PASS. Options.Strict turns such a SKIP into ERROR.
package testrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/proselang/prose/claim"
	"github.com/proselang/prose/claim/form"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/world/drain"
)

// Status is a test's outcome.
type Status string

// Outcomes.
const (
	Pass  Status = "pass"
	Fail  Status = "fail"
	Error Status = "error"
	Skip  Status = "skip"
)

// Options tune a Suite's run.
type Options struct {
	Models Models
	// RunDir is where each test's journal goes ("" for none).
	RunDir string
	// ScratchDir holds the tests' working directories ("" for the system's
	// temporary directory).
	ScratchDir string
	// Parallel is how many tests run at once (0: the number of CPUs).
	Parallel int
	// Strict makes a test that needs an absent model an error, not a skip.
	Strict bool
	// OnResult, when set, is called with each result in the suite's order,
	// as soon as it and all before it are done.
	OnResult func(*Result)
}

// Result is the outcome of one test.
type Result struct {
	Name     string        `json:"name"`
	File     string        `json:"file"`
	Status   Status        `json:"status"`
	Duration time.Duration `json:"duration_ns"`
	// Reason says why a test errored or was skipped.
	Reason string `json:"reason,omitempty"`
	// Items are the expectations checked, in file order (none when the run
	// errored).
	Items  []*Item `json:"items,omitempty"`
	Passed int     `json:"passed"`
	RunID  string  `json:"run_id,omitempty"`
	// Pos is where a test error points (the test file).
	Pos diag.Position `json:"-"`
}

// Item is one expectation checked.
type Item struct {
	Text     string        `json:"text"`
	Pos      diag.Position `json:"pos"`
	Negated  bool          `json:"negated,omitempty"`
	Status   Status        `json:"status"`   // pass, fail, or skip (needs a model)
	Observed string        `json:"observed"` // the value, as JSON, cut
	Rule     string        `json:"rule"`     // what decided (see package claim)
	Detail   string        `json:"detail,omitempty"`
}

// Suite is a set of loaded tests, bound and ready to run.
type Suite struct {
	cases []*Case
	preps []*prepared
	dirs  []string
}

// Prepare binds every case with opts' models, each in its own scratch
// directory. A case that cannot be bound keeps the problem in Case.Err
// and is reported as an error when the suite runs; the error returned is
// only one that stops every test (no scratch directory).
func Prepare(cases []*Case, opts Options) (*Suite, error) {
	s := &Suite{cases: cases}
	sameName(cases)
	for _, c := range cases {
		if c.Err == nil && c.World == nil {
			c.Err = c.bareProgram()
		}
		if c.Err != nil {
			s.preps = append(s.preps, nil)
			continue
		}
		dir, err := mkScratch(opts.ScratchDir, c.Name)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.dirs = append(s.dirs, dir)
		if c.World != nil {
			s.preps = append(s.preps, &prepared{world: dir})
			continue
		}
		p, err := prepare(c, dir, opts.RunDir, opts.Models)
		if err != nil {
			c.Err = fmt.Errorf("%s: %w", c.Path, err)
		}
		s.preps = append(s.preps, p)
	}
	return s, nil
}

// sameName makes an error of every case whose name another case has too:
// a report, and JUnit above all, tells tests apart by name, so two tests
// of one name would read as one test run twice (both PASS under one
// name). The case keeps its name, so the report names both files.
func sameName(cases []*Case) {
	files := map[string][]string{}
	for _, c := range cases {
		if !slices.Contains(files[c.Name], c.Path) {
			files[c.Name] = append(files[c.Name], c.Path)
		}
	}
	for _, c := range cases {
		paths := files[c.Name]
		if len(paths) < 2 || c.Err != nil {
			continue
		}
		var others []string
		for _, p := range paths {
			if p != c.Path {
				others = append(others, p)
			}
		}
		c.Err = fmt.Errorf("%s: test name %q is also the name of %s: give each test its own name [%s]", c.Path, c.Name, strings.Join(others, ", "), lint.CodeTestDuplicateName)
	}
}

// Broken is the case of a test file that cannot be loaded: it runs as an
// error saying why.
func Broken(path string, err error) *Case {
	return &Case{Path: path, Name: strings.TrimSuffix(filepath.Base(path), Suffix), Err: err}
}

// Close removes the scratch directories.
func (s *Suite) Close() {
	for _, d := range s.dirs {
		os.RemoveAll(d)
	}
	s.dirs = nil
}

// Run runs every test, at most opts.Parallel at once, and returns the
// results in the suite's order. A test's failure or error never stops the
// others; cancelling ctx does.
func (s *Suite) Run(ctx context.Context, opts Options) []*Result {
	n := opts.Parallel
	if n <= 0 {
		n = runtime.NumCPU()
	}
	results := make([]*Result, len(s.cases))
	done := make([]chan struct{}, len(s.cases))
	for i := range done {
		done[i] = make(chan struct{})
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i := range s.cases {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer close(done[i])
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i] = &Result{Name: s.cases[i].Name, File: s.cases[i].Path, Status: Error, Reason: "interrupted"}
				return
			}
			defer func() { <-sem }()
			results[i] = s.runOne(ctx, i, opts)
		}(i)
	}
	for i := range s.cases {
		<-done[i]
		if opts.OnResult != nil {
			opts.OnResult(results[i])
		}
	}
	wg.Wait()
	return results
}

// runOne runs test i and checks its expectations.
func (s *Suite) runOne(ctx context.Context, i int, opts Options) *Result {
	c := s.cases[i]
	start := time.Now()
	r := &Result{Name: c.Name, File: c.Path, Pos: diag.Position{File: c.Path, Line: 1, Col: 1}}
	defer func() { r.Duration = time.Since(start) }()
	if c.Err != nil {
		r.Status, r.Reason = Error, "cannot run as written: "+firstLine(c.Err.Error())
		return r
	}
	r.Pos = c.Test.Spec.File.Position(0)
	if c.World != nil {
		return s.runWorld(ctx, r, c, s.preps[i].world, opts)
	}
	v, runID, needModel, err := s.preps[i].run(ctx)
	r.RunID = runID
	switch {
	case needModel != "":
		return skip(r, "needs a model, and none is configured: "+needModel, opts.Strict)
	case ctx.Err() != nil:
		r.Status, r.Reason = Error, "interrupted"
		return r
	case err != nil && !c.speaksOfError():
		r.Status, r.Reason = Error, oneLine(err.Error())
		return r
	}
	return s.judge(ctx, r, c, v, err, opts)
}

// runWorld runs a test with ### Drains: each drain is an item of the
// report, then Expects judge the subject's published truth.
func (s *Suite) runWorld(ctx context.Context, r *Result, c *Case, dir string, opts Options) *Result {
	truth, checks, err := drain.RunTest(ctx, c.World, c.SubjectPath, drain.TestOptions{Dir: c.Dir, State: filepath.Join(dir, "world"), Seeds: c.Inputs, Fixtures: c.Test.Fixtures})
	for _, ch := range checks {
		it := &Item{Text: ch.Text, Pos: c.Test.Spec.File.Position(ch.Pos), Status: Fail, Observed: ch.Observed, Rule: "drain"}
		if ch.OK {
			it.Status = Pass
			r.Passed++
		}
		r.Items = append(r.Items, it)
	}
	if err != nil {
		r.Status, r.Reason = Error, oneLine(err.Error())
		return r
	}
	v, err := delegation.FromGo(truth)
	if err != nil {
		r.Status, r.Reason = Error, oneLine(err.Error())
		return r
	}
	return s.judge(ctx, r, c, v, nil, opts)
}

// judge checks c's Expects against the subject's value v.
func (s *Suite) judge(ctx context.Context, r *Result, c *Case, v delegation.Value, err error, opts Options) *Result {
	scope := outputs(c, v, err)
	checker := &claim.Checker{Model: opts.Models.Claims}
	var skipped string
	for _, e := range c.Test.Expects {
		it := &Item{Text: e.Text, Pos: c.Test.Spec.File.Position(e.Pos), Negated: e.Negated}
		val, perr := lookup(ctx, scope, e.Path, v)
		it.Observed = cut(observe(val))
		if perr != nil && !presenceClaim(e.Claim) {
			// a path that reads nothing is no null to judge: under
			// Expects Not, `equals "x"` of it would pass
			it.Status, it.Detail = Fail, "the path cannot be read: "+perr.Error()
			r.Items = append(r.Items, it)
			continue
		}
		res, cerr := checker.Check(ctx, claim.Question{Path: e.Path, Claim: e.Claim, Value: val, Scope: scope, Pos: it.Pos})
		switch {
		case errors.Is(cerr, claim.ErrNeedsModel):
			it.Status, it.Rule = Skip, "model"
			if skipped == "" {
				skipped = cerr.Error()
			}
		case cerr != nil:
			r.Items = append(r.Items, it)
			r.Status, r.Reason = Error, oneLine(cerr.Error())
			return r
		default:
			it.Rule, it.Detail = res.Rule, res.Detail
			it.Status = Fail
			if res.Mismatch != "" {
				it.Detail = "the claim cannot be decided: the value is " + res.Mismatch
			} else if res.Holds != e.Negated {
				it.Status = Pass
				r.Passed++
			}
		}
		r.Items = append(r.Items, it)
	}
	switch {
	case r.Passed+countStatus(r.Items, Skip) < len(r.Items):
		r.Status = Fail
	case skipped != "":
		return skip(r, "the expectation "+skipped, opts.Strict)
	default:
		r.Status = Pass
	}
	return r
}

// skip marks r skipped (an error when strict).
func skip(r *Result, why string, strict bool) *Result {
	r.Status, r.Reason = Skip, why
	if strict {
		r.Status = Error
		r.Reason += " (--strict)"
	}
	return r
}

func countStatus(items []*Item, st Status) int {
	n := 0
	for _, it := range items {
		if it.Status == st {
			n++
		}
	}
	return n
}

// speaksOfError reports whether an Expects item names __error (or
// __error.md): the test expects the run to fail. (Expects Not `__error.md`
// exists says the opposite: a failed run is then an ERROR.)
func (c *Case) speaksOfError() bool {
	for _, e := range c.Test.Expects {
		if isErrorName(e.Output) && !e.Negated {
			return true
		}
	}
	return false
}

func isErrorName(n string) bool { return n == "__error" || n == "__error.md" }

// outputs is the scope expectations read: the result's keys when it is an
// object, the whole result under the subject's one output otherwise, and
// __error.
func outputs(c *Case, v delegation.Value, runErr error) map[string]delegation.Value {
	scope := map[string]delegation.Value{}
	if o, ok := v.(*delegation.Object); ok {
		for _, k := range o.Keys() {
			scope[k], _ = o.Get(k)
		}
	}
	if outs := c.Subject.Outputs; len(outs) == 1 {
		if _, ok := scope[outs[0].Name]; !ok {
			scope[outs[0].Name] = v
		}
	}
	var e delegation.Value
	if runErr != nil {
		e = runErr.Error()
	}
	scope["__error"], scope["__error.md"] = e, e
	return scope
}

// lookup is the value a path names: a name in scope, or a member path
// evaluated as a Delegation expression; "" is the whole result. A path
// that does not resolve is null.
//
// A path that reads nothing (not a path, an index past the end, a member
// of a list or of text) gives null and an error saying why: only a
// presence claim (`is absent`, `is null`) may judge that null.
func lookup(ctx context.Context, scope map[string]delegation.Value, path string, whole delegation.Value) (delegation.Value, error) {
	if path == "" {
		return whole, nil
	}
	if v, ok := scope[path]; ok {
		return v, nil
	}
	prog, diags := syntax.ParseString("path", "return "+path+"\n")
	if diags.HasErrors() {
		return nil, fmt.Errorf("%q is not a path of the result (write output.member or output[INDEX])", path)
	}
	v, err := delegation.Run(ctx, prog, scope, &delegation.Host{MaxSteps: 100})
	if err != nil {
		var de *delegation.Error
		if errors.As(err, &de) {
			return nil, fmt.Errorf("%s", de.Msg)
		}
		return nil, err
	}
	return v, nil
}

// presenceClaim reports whether claim asks whether its subject is
// there (`is null`, `is absent`, `exists`, negated or not): of a path
// that reads nothing, such a claim is decided on null.
func presenceClaim(claim string) bool {
	r, ok := form.Decide(claim, nil)
	return ok && r.Rule == "presence"
}

// observe is a value as JSON (null for nothing).
func observe(v delegation.Value) string {
	b, err := delegation.ToJSON(v)
	if err != nil {
		return delegation.Text(v)
	}
	return string(b)
}

// MaxObserved is how much of an observed value a report shows.
const MaxObserved = 120

// cut shortens s to MaxObserved characters, marking the cut.
func cut(s string) string {
	if utf8.RuneCountInString(s) <= MaxObserved {
		return s
	}
	r := []rune(s)
	return string(r[:MaxObserved-1]) + "…"
}

// oneLine joins the lines of an error message.
// firstLine is the first line of s (of a list of problems, the first).
func firstLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\t", " ")), " ")
}

// Match keeps the cases whose name matches re (nil keeps all).
func Match(cases []*Case, re *regexp.Regexp) []*Case {
	if re == nil {
		return cases
	}
	var out []*Case
	for _, c := range cases {
		if re.MatchString(c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// safeName is name reduced to characters safe in a file name.
func safeName(name string) string {
	b := []byte(name)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_') {
			b[i] = '_'
		}
	}
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}
