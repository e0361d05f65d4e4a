package spec

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"
	"unsafe"

	"gopkg.in/yaml.v3"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/filekind"
)

// A test file (front matter `kind: test`) runs a subject with fixtures and
// checks what it returns. ReadTest reads one from a loaded Spec:
//
//	---
//	name: ratchet-keeps-certified-steps
//	kind: test
//	subject: std/patterns/ratchet.prose.md
//	---
//
//	### Fixtures
//
//	- `task_brief`: "ship release 1.2"
//	- `advancer`: exec:sh ./scripts/reply.sh advancer {"step": 1}
//
//	### Expects
//
//	- `result`: has 3 items
//	- path: result[0].step
//	  predicate: is_integer_between(1, 3)
//
//	### Expects Not
//
//	- `__error.md` exists
//
// Fixture values are JSON when the text parses as JSON, the inner text when
// the whole value is one `code span`, else the trimmed text. A fixture
// item may continue on indented lines (a JSON object written over several
// lines). An Expects item is `` `NAME`: CLAIM ``, `NAME: CLAIM`,
// `` `NAME` CLAIM `` (upstream's `__error.md` exists), a `path:` line with a
// `predicate:` line (as continuation lines or sub-bullets), or a bare
// CLAIM about the whole result. Which claims are decided without a model is
// package claim's business; this file only reads them, with positions.

// TestFile is a loaded `kind: test` file.
type TestFile struct {
	Spec       *Spec
	Name       string
	Subject    string   // front matter `subject`, as written
	SubjectPos diag.Pos // the subject's value in the front matter (the file start when absent)
	Fixtures   []*Fixture
	// Cases are the `- fixture: NAME` items, in order: the test runs once
	// per case (none: once).
	Cases   []*FixtureCase
	Expects []*Expect // the Expects items, then the Expects Not items (Negated)
	// ExpectsPos is the Expects heading (-1 when the file has none).
	ExpectsPos diag.Pos
}

// Fixture is one `### Fixtures` item.
type Fixture struct {
	Name  string
	Case  string   // the `- fixture: NAME` case it belongs to, "" for every case
	Pos   diag.Pos // the item's first byte
	Raw   string   // the value as written, trimmed, a code span unwrapped
	Value any      // decoded JSON (map[string]any, []any, float64, string, bool, nil), else Raw
	JSON  bool     // Raw parsed as JSON
}

// Expect is one `### Expects` or `### Expects Not` item.
type Expect struct {
	// Output is the output the item names ("" for a claim about the whole
	// result); Path is the member path into it as written ("result[0].step",
	// equal to Output for a bare name).
	Output string
	Path   string
	Claim  string
	Text   string // the item's whole text, as written on one line
	Pos    diag.Pos
	// Negated is set for an item of Expects Not: the claim must not hold.
	Negated bool
}

// Test codes of the loader.
const (
	CodeTestNoSubject = "test/no-subject"
	CodeTestItem      = "test/bad-item"
)

// ReadTest reads the test parts of a spec whose kind is test. The
// diagnostics are the test file's own (a missing subject, an unreadable
// item); the spec loader's are not repeated.
func ReadTest(s *Spec) (*TestFile, diag.List) {
	t := &TestFile{Spec: s, Name: s.Name, ExpectsPos: -1}
	var diags diag.List
	if v, ok := s.Front["subject"].(string); ok {
		t.Subject = strings.TrimSpace(v)
	}
	t.SubjectPos = frontKeyPos(s.File, "subject")
	if t.Subject == "" {
		diags.Errorf(s.File, t.SubjectPos, CodeTestNoSubject, "a test needs a subject: add `subject: NAME` (a function, responsibility or pattern name, or a path) to the front matter")
	}
	for _, sec := range s.Sections {
		switch strings.ToLower(strings.TrimSpace(sec.Heading)) {
		case "fixtures":
			for _, it := range bulletItems(sec.Body, int(sec.BodyPos)) {
				if name, ok := fixtureCase(it); ok {
					fs, err := caseFixtures(it, name)
					if err != nil {
						diags.Errorf(s.File, diag.Pos(it.pos), CodeTestItem, "fixture case %q: its keys are not a YAML mapping (%v): write - fixture: NAME, then one indented key: value line per fixture (a value on lines of its own is YAML: quote one holding \": \")", name, err)
						continue
					}
					if c := t.fixtureCase(name); c != nil {
						// its fixtures would merge into the first's (and
						// be reported as given twice), the test running
						// one case where the author wrote two
						diags.Errorf(s.File, diag.Pos(it.pos), CodeTestItem, "fixture case %q is named twice (first on line %d): give each case its own name",
							name, s.File.Position(c.Pos).Line)
						continue
					}
					t.Cases = append(t.Cases, &FixtureCase{Name: name, Pos: diag.Pos(it.pos)})
					t.Fixtures = append(t.Fixtures, fs...)
				} else if f := readFixture(it); f != nil {
					t.Fixtures = append(t.Fixtures, f)
				} else {
					diags.Errorf(s.File, diag.Pos(it.pos), CodeTestItem, "a fixture is written - `name`: value")
				}
			}
		case "expects", "expects not":
			neg := strings.HasSuffix(strings.ToLower(strings.TrimSpace(sec.Heading)), "not")
			if !neg && t.ExpectsPos < 0 {
				t.ExpectsPos = sec.Pos
			}
			for _, it := range bulletItems(sec.Body, int(sec.BodyPos)) {
				e := readExpect(it)
				e.Negated = neg
				if e.Claim == "" {
					diags.Errorf(s.File, e.Pos, CodeTestItem, "an expectation needs a claim: - `output`: contains `text`")
					continue
				}
				t.Expects = append(t.Expects, e)
			}
		}
	}
	duplicateFixtures(t, &diags)
	return t, diags
}

// frontKeyPos is the offset of key's value in the front matter, or 0.
func frontKeyPos(f *diag.File, key string) diag.Pos {
	if f == nil {
		return 0
	}
	// read in place, not copied: nothing of it outlives the call
	b := f.Source()
	src := unsafe.String(unsafe.SliceData(b), len(b))
	off := 0
	for i := 0; off < len(src) && i < 200; i++ {
		ln, next := lineAt(src, off)
		if i > 0 && strings.TrimSpace(ln) == "---" {
			break
		}
		if rest, ok := strings.CutPrefix(ln, key+":"); ok {
			return diag.Pos(off + len(ln) - len(strings.TrimLeft(rest, " \t")))
		}
		off = next
	}
	return 0
}

// item is one top-level bullet of a section body: its first line and its
// continuation lines (indentation removed), with their offsets.
type item struct {
	pos   int
	lines []string
	offs  []int
	raw   []string // the continuation lines with their indentation
}

// bulletItems splits a section body into its top-level `-`/`*` items.
// Lines indented under an item continue it; blank lines end nothing.
//
// The items, and their lines and offsets, are cut from three arrays sized
// by the body's line count (an item's lines are contiguous, so each item
// holds a capped window of them): a test file's sections are mostly
// bullets, and they were three allocations an item besides the growth.
func bulletItems(body string, base int) []*item {
	var out []*item
	var cur *item
	n := strings.Count(body, "\n") + 1
	var slab []item
	var lines []string
	var offs []int
	start := 0 // where cur's lines begin in lines and offs
	for off := 0; off < len(body); {
		ln, next := lineAt(body, off)
		ln = strings.TrimRight(ln, " \t\r")
		trimmed := strings.TrimLeft(ln, " \t")
		indent := len(ln) - len(trimmed)
		switch {
		case indent == 0 && (strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ")):
			if slab == nil {
				slab, lines, offs = make([]item, 0, n), make([]string, 0, n), make([]int, 0, n)
			}
			start = len(lines)
			lines, offs = append(lines, trimmed[2:]), append(offs, base+off+2)
			slab = append(slab, item{pos: base + off, lines: lines[start:len(lines):len(lines)], offs: offs[start:len(offs):len(offs)]})
			cur = &slab[len(slab)-1]
			out = append(out, cur)
		case cur != nil && indent > 0 && trimmed != "":
			lines, offs = append(lines, trimmed), append(offs, base+off+indent)
			cur.lines, cur.offs = lines[start:len(lines):len(lines)], offs[start:len(offs):len(offs)]
			cur.raw = append(cur.raw, ln)
		case indent == 0 && trimmed != "":
			cur = nil // a paragraph: documentation
		}
		off = next
	}
	return out
}

// readFixture reads `name`: value; nil when the item has no name. A
// value that is a YAML block scalar indicator (`request: |`, `>-`) is
// the block of the indented lines below it, read as YAML reads it.
func readFixture(it *item) *Fixture {
	name, rest, _, ok := keyed(it.lines[0])
	if !ok {
		return nil
	}
	f := &Fixture{Name: name, Pos: diag.Pos(it.pos)}
	if isBlockScalar(rest) {
		var v struct{ V string }
		doc := "v: " + rest + "\n" + strings.Join(it.raw, "\n") + "\n"
		if yaml.Unmarshal([]byte(doc), &v) == nil {
			f.Raw, f.Value = v.V, v.V
			return f
		}
	}
	raw := strings.TrimSpace(strings.Join(append([]string{rest}, it.lines[1:]...), "\n"))
	f.Raw, f.Value, f.JSON = fixtureValue(raw)
	return f
}

// isBlockScalar reports whether s is a YAML block scalar header: | or >,
// with an optional chomping indicator.
func isBlockScalar(s string) bool {
	switch strings.TrimSpace(s) {
	case "|", "|-", "|+", ">", ">-", ">+":
		return true
	}
	return false
}

// FixtureCase is one `- fixture: NAME` item of Fixtures: a case of the
// test, run with the fixtures outside any case plus its own.
type FixtureCase struct {
	Name string
	Pos  diag.Pos
}

// fixtureCase is the case called name, or nil.
func (t *TestFile) fixtureCase(name string) *FixtureCase {
	for _, c := range t.Cases {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// fixtureCase reports whether it opens a case, `- fixture: NAME`.
func fixtureCase(it *item) (string, bool) {
	k, v, _, ok := keyed(it.lines[0])
	if !ok || k != "fixture" || strings.HasPrefix(it.lines[0], "`") {
		return "", false
	}
	v, _ = codeSpan(strings.Trim(strings.TrimSpace(v), `"'`))
	return v, v != ""
}

// caseFixtures reads the indented `key: value` lines of a case as one
// YAML mapping (block scalars, nested lists and maps as YAML has them).
//
// Decided: a value YAML cannot read, or reads as nothing, is read as a
// fixture outside a case reads it (JSON, else the text as written), so
// a line copied from there means the same in a case:
// `fetch: exec:echo '{"body": "x"}'` (": " inside, which YAML refuses)
// is that command, and `tag: #1` is the text "#1", not a YAML comment
// that would pass null for the input.
func caseFixtures(it *item, name string) ([]*Fixture, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(dedent(it.raw)), &doc); err != nil {
		if fs, ok := plainCaseFixtures(it, name); ok {
			return fs, nil
		}
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("not a mapping")
	}
	var out []*Fixture
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := strings.Trim(m.Content[i].Value, "`")
		var v any
		if err := m.Content[i+1].Decode(&v); err != nil {
			return nil, err
		}
		f := &Fixture{Name: k, Case: name, Pos: diag.Pos(it.pos)}
		if line := m.Content[i].Line - 1; line >= 0 && line < len(it.offs)-1 {
			f.Pos = diag.Pos(it.offs[line+1])
			if val := m.Content[i+1]; val.Kind == yaml.ScalarNode && val.Tag == "!!null" && val.Value == "" {
				// `key: # text`: a comment to YAML, the text to the author
				if _, rest, _, ok := keyed(it.lines[line+1]); ok && strings.HasPrefix(rest, "#") {
					f.Raw, f.Value, f.JSON = fixtureValue(rest)
					out = append(out, f)
					continue
				}
			}
		}
		n := normalize(v)
		f.Value = jsonValue(n)
		if str, ok := f.Value.(string); ok {
			f.Raw = str
		} else {
			// Raw from the value before its numbers became float64, so
			// that an integer the value rounds is seen (lint)
			b, _ := json.Marshal(n)
			f.Raw, f.JSON = string(b), true
		}
		out = append(out, f)
	}
	return out, nil
}

// plainCaseFixtures reads a case whose lines YAML refuses as one
// `key: value` line a fixture, each value read as fixtureValue reads a
// fixture outside a case; ok is false when a line is not of that form
// (indented under another, or with no key).
func plainCaseFixtures(it *item, name string) ([]*Fixture, bool) {
	var out []*Fixture
	indent := -1
	for k, ln := range it.raw {
		n := len(ln) - len(strings.TrimLeft(ln, " "))
		if indent < 0 {
			indent = n
		}
		key, rest, _, ok := keyed(it.lines[k+1])
		if n != indent || !ok || rest == "" || isBlockScalar(rest) {
			return nil, false
		}
		f := &Fixture{Name: key, Case: name, Pos: diag.Pos(it.offs[k+1])}
		f.Raw, f.Value, f.JSON = fixtureValue(rest)
		out = append(out, f)
	}
	return out, len(out) > 0
}

// jsonValue is v as encoding/json decodes it (float64 numbers).
func jsonValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// dedent removes the indentation common to the non-blank lines.
func dedent(lines []string) string {
	cut := -1
	for _, ln := range lines {
		if strings.TrimSpace(ln) == "" {
			continue
		}
		if n := len(ln) - len(strings.TrimLeft(ln, " ")); cut < 0 || n < cut {
			cut = n
		}
	}
	var b strings.Builder
	for _, ln := range lines {
		if len(ln) >= cut && cut > 0 {
			ln = ln[cut:]
		}
		b.WriteString(ln)
		b.WriteByte('\n')
	}
	return b.String()
}

// fixtureValue decodes a fixture's text.
func fixtureValue(raw string) (string, any, bool) {
	if inner, ok := codeSpan(raw); ok {
		return inner, inner, false
	}
	if s, ok := plainJSONString(raw); ok {
		return raw, s, true
	}
	if f, ok := plainJSONInt(raw); ok {
		return raw, f, true
	}
	var v any
	if mayBeJSON(raw) && json.Unmarshal([]byte(raw), &v) == nil {
		return raw, v, true
	}
	return raw, raw, false
}

// mayBeJSON reports whether raw's first byte after JSON's white space can
// begin a JSON value; when it cannot (`exec:sh ./reply.sh`, prose),
// json.Unmarshal would fail, and is not asked.
func mayBeJSON(raw string) bool {
	s := strings.TrimLeft(raw, " \t\r\n")
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case c == '{' || c == '[' || c == '"' || c == '-' || c == 't' || c == 'f' || c == 'n':
		return true
	default:
		return '0' <= c && c <= '9'
	}
}

// plainJSONInt is the value json.Unmarshal decodes from a JSON integer of
// at most 15 digits (`3`, `120`) into an any: the float64 of it.
func plainJSONInt(raw string) (float64, bool) {
	if raw == "" || len(raw) > 15 || raw[0] == '0' && len(raw) > 1 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return float64(n), true
}

// plainJSONString is the value of a JSON string without escapes, as
// json.Unmarshal decodes it: the text between the quotes, when there is
// no backslash, quote or control character in it and it is valid UTF-8
// (which json.Unmarshal would otherwise rewrite).
func plainJSONString(raw string) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	for i := 0; i < len(in); i++ {
		if c := in[i]; c < ' ' || c == '"' || c == '\\' {
			return "", false
		}
	}
	return in, utf8.ValidString(in)
}

// codeSpan unwraps a text that is one `code span`.
func codeSpan(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' && !strings.Contains(s[1:len(s)-1], "`") {
		return s[1 : len(s)-1], true
	}
	return s, false
}

// readExpect reads an Expects item.
func readExpect(it *item) *Expect {
	text := strings.Join(it.lines, " ")
	e := &Expect{Text: text, Pos: diag.Pos(it.pos)}
	if p, pred, ok := pathPredicate(it); ok {
		e.Path, e.Claim = p, pred
		e.Output = rootName(p)
		return e
	}
	if name, rest, _, ok := keyed(text); ok {
		e.Output, e.Path, e.Claim = name, name, rest
		return e
	}
	if strings.HasPrefix(text, "`") {
		if end := strings.IndexByte(text[1:], '`'); end > 0 {
			name := text[1 : 1+end]
			if isPathText(name) {
				rest := strings.TrimSpace(text[2+end:])
				e.Output, e.Path, e.Claim = rootName(name), name, strings.TrimSpace(strings.TrimPrefix(rest, ":"))
				return e
			}
		}
	}
	e.Claim = text
	return e
}

// pathPredicate reads the `path:`/`predicate:` form: the item's lines (or
// its sub-bullets) are `path: P` and `predicate: Q`.
func pathPredicate(it *item) (p, pred string, ok bool) {
	for _, ln := range it.lines {
		ln = strings.TrimPrefix(strings.TrimPrefix(ln, "- "), "* ")
		k, v, _, kok := keyed(ln)
		if !kok {
			continue
		}
		switch k {
		case "path":
			p, _ = codeSpan(v)
		case "predicate":
			pred, _ = codeSpan(v)
		}
	}
	return p, pred, p != "" && pred != ""
}

// rootName is the output a member path starts with: "result" of
// "result[0].step".
func rootName(p string) string {
	if i := strings.IndexAny(p, ".["); i >= 0 {
		return p[:i]
	}
	return p
}

// isPathText reports whether s looks like a name or member path (or a
// file name such as __error.md).
func isPathText(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r == '[' || r == ']' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// ResolveSubject finds the file a test's subject names, in fsys (paths
// slash-separated, as io/fs wants). testPath is the test file. A subject
// containing a slash or ending in .md is a path relative to the test's
// directory (a std/ path is left to the caller when not on disk). A bare
// name is matched against the front-matter `name` (then the file stem, then
// NAME/index.prose.md) of the *.prose.md files in the test's directory,
// then in each parent up to the project root: the nearest directory
// holding go.mod or .git. At each parent the folders beside the one the
// search came from are searched too, one level deep, in name order
// (upstream: a bare subject resolves in the test's directory and in its
// nearest source/package root, so packages/co/evals/x.eval.prose.md
// finds a subject in packages/co/services/); the nearest level wins.
// Hidden folders, testdata/ and node_modules/ are not searched. The
// returned path is "" when nothing matches.
func ResolveSubject(fsys fs.FS, testPath, subject string) string {
	dir := path.Dir(testPath)
	if strings.Contains(subject, "/") || strings.HasSuffix(subject, ".md") {
		p := path.Join(dir, subject)
		if _, err := fs.Stat(fsys, p); err == nil {
			return p
		}
		return ""
	}
	from := ""
	for {
		if p := matchName(fsys, dir, subject, testPath); p != "" {
			return p
		}
		if p := matchBeside(fsys, dir, from, subject, testPath); p != "" {
			return p
		}
		if isProjectRoot(fsys, dir) || dir == "." || dir == "/" {
			return ""
		}
		from, dir = dir, path.Dir(dir)
	}
}

// SubjectTwins are the other spec files in the directory of p, the file
// a bare subject resolved to (ResolveSubject), whose front-matter name is
// the subject too
// (a copy kept beside the original): ResolveSubject takes the first in
// name order, a choice the test's author never made, so a caller
// refuses the subject when there are any. nil when the subject is a
// path or matched a file stem.
func SubjectTwins(fsys fs.FS, testPath, subject, p string) []string {
	// a file whose stem is the subject is the one it names, as a call
	// of the name finds it first; any other (but NAME/index.prose.md)
	// was found by its front matter name, which is not read again
	if p == "" || strings.Contains(subject, "/") || strings.HasSuffix(subject, ".md") ||
		strings.TrimSuffix(path.Base(p), ".prose.md") == subject || path.Base(p) == "index.prose.md" {
		return nil
	}
	dir := path.Dir(p)
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil
	}
	var twins []string
	for _, e := range ents {
		q := path.Join(dir, e.Name())
		// a test file is no subject (another test is not read for its
		// name: a lint of a project reads each file once or twice)
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".prose.md") || strings.HasSuffix(e.Name(), ".test.prose.md") || q == p || q == testPath || !filekind.Listed(fsys, q, e) {
			continue
		}
		if FrontName(fsys, q) == subject {
			twins = append(twins, q)
		}
	}
	return twins
}

// SubjectNames are the names a bare subject of the test at testPath
// could have matched in the directories ResolveSubject searches first
// (the test's own and each above it, up to the project root): each other
// spec's front-matter name and file stem, for a near-miss suggestion when
// none matched.
func SubjectNames(fsys fs.FS, testPath string) []string {
	var names []string
	for dir := path.Dir(testPath); ; dir = path.Dir(dir) {
		ents, _ := fs.ReadDir(fsys, dir)
		for _, e := range ents {
			p := path.Join(dir, e.Name())
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".prose.md") || p == testPath || !filekind.Listed(fsys, p, e) {
				continue
			}
			if n := FrontName(fsys, p); n != "" {
				names = append(names, n)
			}
			names = append(names, strings.TrimSuffix(e.Name(), ".prose.md"))
		}
		if isProjectRoot(fsys, dir) || dir == "." || dir == "/" {
			return names
		}
	}
}

// matchBeside is matchName in each folder of dir other than from (the
// folder already searched), in name order; "" when none matches. The
// test's own directory (from == "") has no folders searched: its
// subfolders are other tests' business.
func matchBeside(fsys fs.FS, dir, from, name, self string) string {
	if from == "" {
		return ""
	}
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		n := e.Name()
		p := path.Join(dir, n)
		if !e.IsDir() || p == from || strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" {
			continue
		}
		if m := matchName(fsys, p, name, self); m != "" {
			return m
		}
	}
	return ""
}

// matchName is the spec in dir whose front-matter name is name (else whose
// stem is), other than the test itself.
func matchName(fsys fs.FS, dir, name, self string) string {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return ""
	}
	stem := ""
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".prose.md") {
			continue
		}
		p := path.Join(dir, e.Name())
		if !filekind.Listed(fsys, p, e) {
			continue // a named pipe: reading its name would hang
		}
		if p == self {
			continue
		}
		if FrontName(fsys, p) == name {
			return p
		}
		if stem == "" && strings.TrimSuffix(e.Name(), ".prose.md") == name {
			stem = p
		}
	}
	if stem == "" {
		// NAME/index.prose.md, as a call finds a sibling directory.
		if p := path.Join(dir, name, "index.prose.md"); p != self {
			if _, err := fs.Stat(fsys, p); err == nil {
				return p
			}
		}
	}
	return stem
}

// FrontName is the front-matter `name` of a spec file ("" when it has
// none or cannot be read). Only the front matter is read.
func FrontName(fsys fs.FS, p string) string {
	b, err := fs.ReadFile(fsys, p)
	if err != nil {
		return ""
	}
	src := string(b)
	if !strings.HasPrefix(src, "---") {
		return ""
	}
	off := 0
	for i := 0; off < len(src) && i < 200; i++ {
		ln, next := lineAt(src, off)
		if i > 0 && strings.TrimSpace(ln) == "---" {
			break
		}
		if rest, ok := strings.CutPrefix(ln, "name:"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"'`)
		}
		off = next
	}
	return ""
}

// isProjectRoot reports whether dir holds go.mod or .git.
func isProjectRoot(fsys fs.FS, dir string) bool {
	for _, m := range []string{"go.mod", ".git"} {
		if _, err := fs.Stat(fsys, path.Join(dir, m)); err == nil {
			return true
		}
	}
	return false
}

// duplicateFixtures reports a fixture given twice in one case (or outside
// any): the run would silently take the last value (decided: an error at
// the second, naming the first; a list slot takes one fixture holding a
// JSON list).
func duplicateFixtures(t *TestFile, diags *diag.List) {
	first := map[[2]string]*Fixture{}
	for _, f := range t.Fixtures {
		k := [2]string{f.Case, f.Name}
		if p := first[k]; p != nil {
			diags.Errorf(t.Spec.File, f.Pos, CodeTestItem, "fixture %q is given twice (first on line %d): give it once", f.Name, t.Spec.File.Position(p.Pos).Line)
			continue
		}
		first[k] = f
	}
}
