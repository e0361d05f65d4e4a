package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/std"
	"github.com/proselang/prose/testrun"
)

// testOptions are the flags of `prose test`.
type testOptions struct {
	run            string
	junit          string
	format         string
	json           bool
	parallel       int
	strict         bool
	runDir         string
	model, baseURL string
	allowEmpty     bool
}

const testLong = `test runs the kind: test files under the paths (default: the current
directory; directories are walked, skipping .prose/, .git/ and testdata/
unless named). Each test runs its subject (a pattern, function or
responsibility, named by path or by front-matter name in the test's
directory or above it up to the project root, and in the folders beside
the way up: packages/co/evals/ finds packages/co/services/) with its ### Fixtures as
inputs, as its own journaled run in its own scratch directory, then checks
each ### Expects item (it must hold) and ### Expects Not item (it must not).

A fixture named like a slot of the subject binds it: exec:COMMAND, llm, or
a spec path, read as prose run started in the test file's directory reads
it: words starting with ./ or ../, a relative program path (bin/tool) and
an interpreter's script (sh fake.sh, python3 tool.py) are paths from the
test file's directory, although the program runs in the test's scratch
directory; write any other file argument as ./FILE. One named like a config key sets it; any other is an input,
and may be any JSON value. Every test is checked before any runs: a
fixture naming nothing, an input with no fixture and no default, or an
unknown subject makes that test an ERROR (its problems printed on
stderr), and the other tests still run.

Claims the data decides are decided without a model: contains, equals,
is null / present / empty, counts of items, words, characters or lines,
numeric comparisons and ranges (is_integer_between(0, 100)), types,
matches /REGEXP/, every item ..., and the Delegation language's own
conditions. Any other claim goes to the model judge (temperature 0, each
distinct question asked once). A test that needs a model when none is
configured is SKIP with the reason, never PASS; --strict makes it an error.

Output: one line per test (PASS name (1.2s), FAIL name: 2/5 expectations
with the unmet items, their file:line and the observed value, ERROR name:
why, SKIP name: why), then "N passed, N failed" (", N errors", ", N
skipped" when there are any). --format github adds workflow annotations
at the unmet items; --json prints one JSON object per test instead;
--junit FILE also writes JUnit XML.

std/... paths not on disk run the built-in library's own tests, as lint
reads std/ from the built-in library.

Exit status: 0 all passed (or skipped), 1 a test failed or errored (one
that cannot be loaded is an error) or no test was found (--allow-empty:
0), 2 bad usage (a --junit file that cannot be written, before any test
runs), 130 interrupted.`

const testExample = `  # Every test in the repository, four at a time, with a JUnit report:
  prose test --parallel 4 --junit prose-tests.xml

  # Only the ratchet tests of the library, as annotations on a pull request:
  prose test std/ --run 'ratchet' --format github`

func newTestCmd(s streams) *cobra.Command {
	o := &testOptions{}
	cmd := &cobra.Command{
		Use:     "test [PATH]...",
		Short:   "Run kind: test files and check their expectations",
		Long:    testLong,
		Example: testExample,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTest(cmd, s, o, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.run, "run", "", "run only the tests whose name matches `REGEXP`")
	fl.StringVar(&o.junit, "junit", "", "write a JUnit XML report to `FILE`")
	fl.StringVar(&o.format, "format", "text", "output `FORMAT`: text, or github (annotations at unmet expectations)")
	fl.BoolVar(&o.json, "json", false, "print one JSON object per test instead of text")
	fl.IntVar(&o.parallel, "parallel", runtime.NumCPU(), "run at most `N` tests at once")
	fl.BoolVar(&o.strict, "strict", false, "a test that needs a model when none is configured is an error, not a skip")
	fl.StringVar(&o.runDir, "run-dir", run.DefaultRunDir, "directory `DIR` holding the tests' run journals")
	fl.StringVar(&o.model, "model", "", "`MODEL` for claims and subjects that need one (default $PROSE_MODEL)")
	fl.StringVar(&o.baseURL, "base-url", "", "OpenAI-compatible API base `URL` (default $OPENAI_BASE_URL)")
	fl.BoolVar(&o.allowEmpty, "allow-empty", false, "exit 0 when the paths hold no test (or --run matches none); without it that is exit 1")
	return cmd
}

// runTest is `prose test [PATH]...`.
func runTest(cmd *cobra.Command, s streams, o *testOptions, paths []string) error {
	if o.format != "text" && o.format != "github" {
		return usageErrorf("--format %q: want text or github", o.format)
	}
	if o.parallel < 1 {
		return usageErrorf("--parallel must be at least 1, got %d", o.parallel)
	}
	var re *regexp.Regexp
	if o.run != "" {
		var err error
		if re, err = regexp.Compile(o.run); err != nil {
			return usageErrorf("--run: %v", err)
		}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	// A report that cannot be written is refused before any test runs.
	var junit *os.File
	if o.junit != "" {
		f, err := os.OpenFile(o.junit, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return usageErrorf("--junit: %v", err)
		}
		defer f.Close()
		junit = f
	}
	paths, cleanup, err := stdTestPaths(paths)
	if err != nil {
		return &exitError{Code: exitFailure, Err: err}
	}
	defer cleanup()
	files, err := testrun.Discover(paths)
	if err != nil {
		return usageErrorf("%v", err)
	}
	cases := testrun.Match(loadTests(s.err, files), re)
	if len(cases) == 0 && !o.allowEmpty {
		// CI must not pass on nothing (decided): no test found, or none
		// that --run selects, is a failure unless asked for.
		what := "no kind: test files in " + strings.Join(paths, " ")
		if re != nil && len(files) > 0 {
			what = fmt.Sprintf("no test in %s matches --run %q", strings.Join(paths, " "), o.run)
		}
		return &exitError{Code: exitFailure, Err: fmt.Errorf("test: %s (--allow-empty passes on none)", what)}
	}
	models, err := testModels(o)
	if err != nil {
		return usageErrorf("%v", err)
	}
	opts := testrun.Options{Models: models, RunDir: o.runDir, Parallel: o.parallel, Strict: o.strict}
	suite, err := testrun.Prepare(cases, opts)
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("no test was run: %v", err)}
	}
	defer suite.Close()
	for _, c := range cases {
		if c.Err != nil && !errors.As(c.Err, new(*testrun.LoadError)) {
			fmt.Fprintf(s.err, "prose: %v\n", c.Err)
		}
	}
	if !o.json {
		opts.OnResult = func(r *testrun.Result) { testrun.WriteResult(s.out, r) }
	}
	results := suite.Run(cmd.Context(), opts)
	return reportTests(cmd, s, o, junit, results)
}

// loadTests loads every test file; one that cannot be loaded is printed
// with all its problems and becomes an error case, and the others run.
func loadTests(w io.Writer, files []string) []*testrun.Case {
	var cases []*testrun.Case
	for _, f := range files {
		cs, err := testrun.LoadCases(f)
		if err != nil {
			fmt.Fprintf(w, "%v\n", err)
			b := testrun.Broken(f, err)
			if len(cs) > 0 && cs[0].Name != "" {
				b.Name = cs[0].Name
			}
			cases = append(cases, b)
			continue
		}
		cases = append(cases, cs...)
	}
	return cases
}

// reportTests prints what is left to print and sets the exit status.
func reportTests(cmd *cobra.Command, s streams, o *testOptions, junit *os.File, results []*testrun.Result) error {
	if o.json {
		if err := testrun.WriteJSON(s.out, results); err != nil {
			return &exitError{Code: exitFailure, Err: err}
		}
	}
	if o.format == "github" {
		if err := testrun.WriteGitHub(s.out, results); err != nil {
			return &exitError{Code: exitFailure, Err: err}
		}
	}
	if junit != nil {
		if err := writeJUnitFile(junit, results); err != nil {
			return &exitError{Code: exitFailure, Err: fmt.Errorf("--junit: %v", err)}
		}
	}
	counts := testrun.Count(results)
	if !o.json {
		fmt.Fprintln(s.out, counts)
	}
	if ctx := cmd.Context(); ctx != nil && ctx.Err() != nil {
		return &exitError{Code: exitInterrupt, Err: errors.New("interrupted")}
	}
	if !counts.OK() {
		return &exitError{Code: exitFailure}
	}
	return nil
}

// writeJUnitFile writes the report to f, opened before the tests ran,
// replacing what it held.
func writeJUnitFile(f *os.File, results []*testrun.Result) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := testrun.WriteJUnit(f, results); err != nil {
		return err
	}
	return f.Close()
}

// stdTestPaths maps the std/... paths that are not on disk to the
// library's embedded tests, written out to a scratch directory (tests
// run their fixtures' scripts from files, and resolve their subjects
// beside them), as lint reads std/ from the embedded library; cleanup
// removes the scratch directory.
func stdTestPaths(paths []string) (out []string, cleanup func(), err error) {
	cleanup = func() {}
	var dir string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil || !std.IsStd(p) {
			out = append(out, p)
			continue
		}
		if dir == "" {
			if dir, err = os.MkdirTemp("", "prose-std-"); err != nil {
				return nil, cleanup, fmt.Errorf("test: writing out the built-in library's tests: %v", err)
			}
			cleanup = func() { os.RemoveAll(dir) }
			if err := writeStd(dir); err != nil {
				cleanup()
				return nil, func() {}, fmt.Errorf("test: writing out the built-in library's tests: %v", err)
			}
		}
		out = append(out, filepath.Join(dir, filepath.FromSlash(path.Clean(strings.ReplaceAll(p, "\\", "/")))))
	}
	return out, cleanup, nil
}

// writeStd writes the embedded library (specs and tests) under dir/std.
func writeStd(dir string) error {
	write := func(fsys fs.FS, root, under string) error {
		return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			dst := filepath.Join(dir, under, filepath.FromSlash(p))
			if d.IsDir() {
				return os.MkdirAll(dst, 0o755)
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if strings.HasSuffix(p, ".sh") {
				mode = 0o755
			}
			return os.WriteFile(dst, data, mode)
		})
	}
	if err := write(std.FS(), "std", ""); err != nil {
		return err
	}
	return write(std.Tests(), "tests", "std")
}

// testModels reads the model configuration as prose run does; with no
// model configured the models are empty and tests that need one skip.
func testModels(o *testOptions) (testrun.Models, error) {
	m, err := run.NewModels(os.Getenv, o.model, o.baseURL)
	if err != nil {
		return testrun.Models{}, err
	}
	out := testrun.Models{Secrets: m.Secrets()}
	c := m.Configured()
	if c == nil {
		return out, nil
	}
	out.LLM = m.SlotService
	out.Render = m.RenderService
	out.Subagent = m.SubagentService
	out.JudgeFor = func(sp *spec.Spec) delegation.Judge {
		return llm.NewModelJudge(c, llm.JudgeOptions{Pattern: sp.Name, Invariants: sp.Invariants})
	}
	out.Claims = llm.NewModelJudge(c, llm.JudgeOptions{Pattern: "test expectations"})
	return out, nil
}
