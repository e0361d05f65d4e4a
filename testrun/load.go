package testrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/execsvc"
	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/std"
	"github.com/proselang/prose/world/drain"
)

// Suffix is the file name ending the walk looks for; a file is a test when
// its front matter says `kind: test`.
const Suffix = ".prose.md"

// skipDirs are not walked unless named on the command line.
var skipDirs = map[string]bool{".prose": true, ".git": true, "testdata": true}

// Discover lists the test files under paths: a file named is taken as it
// is (it must be a test), a directory is walked for *.prose.md files whose
// kind is test, skipping .prose/, .git/ and testdata/ directories below
// it. The list is sorted and without duplicates.
func Discover(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	var errs []error
	for _, root := range paths {
		st, err := os.Stat(root)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !st.IsDir() {
			add(filepath.Clean(root))
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != root && skipDirs[d.Name()] {
					return filepath.SkipDir
				}
				return nil
			}
			// A named pipe is never a test: reading its kind would hang.
			if strings.HasSuffix(p, Suffix) && filekind.Listed(nil, p, d) && isTest(p) {
				add(p)
			}
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	sort.Strings(out)
	return out, errors.Join(errs...)
}

// isTest reports whether the file's front matter says kind: test.
func isTest(p string) bool {
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	return frontKind(string(b)) == "test"
}

// frontKind is the front matter's kind, read without the YAML decoder.
func frontKind(src string) string {
	if !strings.HasPrefix(src, "---") {
		return ""
	}
	for i, ln := range strings.SplitN(src, "\n", 200) {
		if i > 0 && strings.TrimSpace(ln) == "---" {
			break
		}
		if rest, ok := strings.CutPrefix(ln, "kind:"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"'`)
		}
	}
	return ""
}

// Case is a loaded test: its file, its subject, and the fixtures sorted
// into the subject's slots, config and inputs.
type Case struct {
	Path string // the test file as found
	Dir  string // its directory, absolute
	Name string
	Test *spec.TestFile
	// SubjectPath is the subject's file (a path on disk, or a std/ path of
	// the embedded library); Subject the loaded spec.
	SubjectPath string
	Subject     *spec.Spec

	Slots  []Binding // NAME=BINDING, relative paths made absolute
	Config []Binding // NAME=VALUE (JSON for non-strings)
	Inputs map[string]any

	// World is the test's ### Drains (package drain): the subject's
	// project is drained, and Expects judge its published truth. nil for
	// a test that runs its subject once.
	World *drain.Test

	// Err is why the test cannot run as written (it did not load, or its
	// fixtures do not bind its subject); the suite reports it as an error
	// and runs the other tests.
	Err error
}

// Binding is one name and its text, with the fixture's position.
type Binding struct {
	Name, Value string
	Pos         diag.Position
}

// LoadError is a test that cannot run: every problem found, positioned.
type LoadError struct {
	Path  string
	Diags diag.List
}

func (e *LoadError) Error() string { return strings.TrimRight(e.Diags.String(), "\n") }

// Load reads a test file, resolves its subject and sorts its fixtures.
// Problems (the checks prose lint makes of test files: a missing or
// unknown subject, a fixture naming nothing of the subject, an input with
// no fixture and no default, an item naming no output, no Expects) come
// back together in a *LoadError; nothing has run.
func Load(p string) (*Case, error) {
	cs, err := LoadCases(p)
	if len(cs) == 0 {
		return nil, err
	}
	return cs[0], err
}

// LoadCases is Load for a test whose Fixtures hold `- fixture: NAME`
// cases: one Case per case, named TEST/NAME, each with the fixtures
// outside any case and its own (one Case when there are none).
func LoadCases(p string) ([]*Case, error) {
	c, err := loadCase(p)
	if c == nil || err != nil || len(c.Test.Cases) == 0 {
		if c == nil {
			return nil, err
		}
		return []*Case{c}, err
	}
	var out []*Case
	for _, fc := range c.Test.Cases {
		cc := &Case{Path: c.Path, Dir: c.Dir, Name: c.Name + "/" + fc.Name, Test: c.Test,
			SubjectPath: c.SubjectPath, Subject: c.Subject, Inputs: map[string]any{}, World: c.World}
		cc.sortFixtures(fc.Name)
		out = append(out, cc)
	}
	return out, nil
}

func loadCase(p string) (*Case, error) {
	sp, diags, err := spec.Load(p)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	if sp.Kind != spec.KindTest {
		var l diag.List
		l.Errorf(sp.File, 0, "test/not-a-test", "not a test file (kind: %s): prose test runs files whose front matter says kind: test", sp.Kind)
		return nil, &LoadError{Path: p, Diags: l}
	}
	tf, _ := spec.ReadTest(sp)
	diags = append(loaderErrors(diags), lint.TestFile(osFS{}, abs, sp).Errors()...)
	c := &Case{Path: p, Dir: filepath.Dir(abs), Name: tf.Name, Test: tf, Inputs: map[string]any{}}
	if c.Name == "" {
		c.Name = strings.TrimSuffix(filepath.Base(p), Suffix)
	}
	if w, wd := drain.ParseTest(sp); w != nil || len(wd) > 0 {
		c.World = w
		diags = append(diags, wd...)
	}
	if !diags.HasErrors() {
		c.SubjectPath = SubjectPath(abs, tf.Subject)
		if c.Subject, err = loadSubject(c.SubjectPath); err != nil {
			diags.Errorf(sp.File, tf.SubjectPos, lint.CodeTestUnknownSubject, "subject %q: %v", tf.Subject, err)
		} else if len(tf.Cases) == 0 {
			c.sortFixtures("")
		}
	}
	if diags.HasErrors() {
		diags.Sort()
		return c, &LoadError{Path: p, Diags: diags.Errors()}
	}
	return c, nil
}

// SubjectPath resolves a test's subject (see spec.ResolveSubject); a
// std/ path not on disk names the embedded library. "" when nothing
// matches.
func SubjectPath(testAbs, subject string) string {
	if p := spec.ResolveSubject(osFS{}, testAbs, subject); p != "" {
		return p
	}
	if std.IsStd(subject) {
		if _, _, err := std.Open(subject); err == nil {
			return subject
		}
	}
	return ""
}

// loadSubject loads the subject and refuses one with errors.
func loadSubject(p string) (*spec.Spec, error) {
	var sp *spec.Spec
	var diags diag.List
	var err error
	if _, statErr := os.Stat(p); statErr != nil && std.IsStd(p) {
		src, name, oerr := std.Open(p)
		if oerr != nil {
			return nil, oerr
		}
		sp, diags = spec.Parse(name, src)
	} else if sp, diags, err = spec.Load(p); err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("the subject has errors (see prose lint %s)", p)
	}
	return sp, nil
}

// sortFixtures files each fixture of the case (and outside any case)
// under the subject's slots (and callees), config or inputs;
// lint.TestFile has checked that each names one of them.
func (c *Case) sortFixtures(fixtureCase string) {
	names := lint.SubjectNames(c.Subject)
	for _, fx := range c.Test.Fixtures {
		if fx.Case != "" && fx.Case != fixtureCase {
			continue
		}
		pos := c.Test.Spec.File.Position(fx.Pos)
		root, _, _ := strings.Cut(fx.Name, ".")
		switch names[root] {
		case lint.NameSlot, lint.NameCallee:
			for _, v := range bindingTexts(fx) {
				c.Slots = append(c.Slots, Binding{Name: fx.Name, Value: c.absBinding(v), Pos: pos})
			}
		case lint.NameConfig:
			c.Config = append(c.Config, Binding{Name: fx.Name, Value: valueText(fx), Pos: pos})
		default:
			c.Inputs[fx.Name] = fx.Value
		}
	}
}

// bindingTexts is a slot fixture's bindings: one, or one per element of a
// JSON list (a list slot).
func bindingTexts(fx *spec.Fixture) []string {
	if l, ok := fx.Value.([]any); ok {
		out := make([]string, 0, len(l))
		for _, e := range l {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return []string{valueText(fx)}
}

// valueText is a fixture's value as flag text: a string as it is, any
// other value as JSON.
func valueText(fx *spec.Fixture) string {
	if s, ok := fx.Value.(string); ok {
		return s
	}
	b, err := json.Marshal(fx.Value)
	if err != nil {
		return fx.Raw
	}
	return string(b)
}

// absBinding makes a binding's relative paths absolute from the test's
// directory, so that a fixture means what the same binding means to
// `prose run` started in that directory (programs run there in the
// current directory; a test's run in its own scratch directory). In an
// exec: command those are the words that are certainly paths: every word
// starting with ./ or ../, the program itself when it is a relative path
// with a slash (bin/tool, which the shell looks for from the working
// directory), and the script an interpreter runs (sh fake.sh, python3
// tool.py: the first word after sh, bash, python3, node and the like,
// when no option comes before it and that file is beside the test).
// Other words are left as written: whether `echo notes` names a file
// cannot be known, and rewriting it would change the program's output.
// A spec path (PATH.prose.md) that exists relative to the test is made
// absolute too.
func (c *Case) absBinding(b string) string {
	if cmd, ok := strings.CutPrefix(b, "exec:"); ok {
		cmd = relWord.ReplaceAllStringFunc(cmd, func(w string) string {
			lead := w[:len(w)-len(strings.TrimLeft(w, " \t"))]
			return lead + shellQuote(filepath.Join(c.Dir, strings.TrimLeft(w, " \t")))
		})
		return "exec:" + c.absProgram(cmd)
	}
	if strings.HasSuffix(b, Suffix) && !filepath.IsAbs(b) {
		if p := filepath.Join(c.Dir, b); fileExists(p) {
			return p
		}
	}
	return b
}

// absProgram resolves the program word of cmd (bin/tool) and an
// interpreter's script (sh fake.sh) from the test's directory; cmd's
// ./ and ../ words are already absolute.
func (c *Case) absProgram(cmd string) string {
	words := strings.FieldsFunc(cmd, func(r rune) bool { return r == ' ' || r == '\t' })
	if len(words) == 0 || !plainWord(words[0]) {
		return cmd
	}
	at := 0 // the word to resolve
	switch {
	case strings.Contains(words[0], "/"):
		if filepath.IsAbs(words[0]) {
			if len(words) < 2 || !interpreters[filepath.Base(words[0])] {
				return cmd
			}
			at = 1
		}
	case interpreters[words[0]] && len(words) > 1:
		at = 1
	default:
		return cmd
	}
	w := words[at]
	if at == 1 {
		if strings.HasPrefix(w, "-") || filepath.IsAbs(w) || !plainWord(w) || !fileExists(filepath.Join(c.Dir, w)) {
			return cmd
		}
	}
	// Replace the at'th word in place, keeping the rest of cmd as written.
	i := 0
	for n := 0; ; n++ {
		for i < len(cmd) && (cmd[i] == ' ' || cmd[i] == '\t') {
			i++
		}
		if n == at {
			return cmd[:i] + shellQuote(filepath.Join(c.Dir, w)) + cmd[i+len(w):]
		}
		for i < len(cmd) && cmd[i] != ' ' && cmd[i] != '\t' {
			i++
		}
	}
}

// plainWord is a word of a command holding no shell syntax (quotes,
// variables, redirections, an assignment), which is then a path as it
// stands.
func plainWord(w string) bool {
	return !strings.ContainsAny(w, "'\"\\$`;|&<>(){}*?[]=~#!")
}

// interpreters are the programs whose first operand is the script they
// run.
var interpreters = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true,
	"python": true, "python3": true, "node": true, "ruby": true, "perl": true,
	"php": true, "Rscript": true, "lua": true,
}

// bareProgram is the problem of an exec fixture whose program is a bare
// name of a file beside the test that PATH does not have (exec:fake.sh):
// the shell looks a bare name up in PATH only, so prose run started
// there refuses it too; the fix is ./NAME. Nil when there is none.
func (c *Case) bareProgram() error {
	for _, b := range c.Slots {
		cmd, ok := strings.CutPrefix(b.Value, "exec:")
		if !ok {
			continue
		}
		word, ok := execsvc.BesideFile(c.Dir, cmd)
		if !ok {
			continue
		}
		if _, err := exec.LookPath(word); err == nil {
			continue
		}
		return fmt.Errorf("%s: fixture %s: exec:%s: the program %s is not in PATH, and the shell looks for a bare name nowhere else: to run the file %s beside the test, write exec:./%s",
			b.Pos, b.Name, cmd, word, word, strings.TrimSpace(cmd))
	}
	return nil
}

// relWord is a word of a command starting with ./ or ../.
var relWord = regexp.MustCompile(`(^|[ \t])\.\.?/[^ \t'"]*`)

// shellQuote quotes s for /bin/sh when it needs it.
func shellQuote(s string) string {
	if !strings.ContainsAny(s, " \t'\"\\$`*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// osFS opens OS paths as they are (absolute ones included).
type osFS struct{}

func (osFS) Open(name string) (fs.File, error) { return os.Open(name) }

// loaderErrors are the loader's error-level findings that stop a test
// file from running.
func loaderErrors(l diag.List) diag.List { return l.Errors() }
