package lint

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/proselang/prose/bind/typed"
	"github.com/proselang/prose/claim/form"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/shape"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/std"
	"github.com/proselang/prose/world/canon"
)

// Checks of `kind: test` files, run by File on every test file (and by
// prose test before it runs anything):
//
//	test/no-subject          the front matter names no subject
//	test/bad-item            a Fixtures or Expects item that cannot be read
//	test/unknown-subject     the subject is no file and no spec name in the
//	                         test's directory or above it (to the project root)
//	test/unknown-fixture     a fixture names no input, slot, config key or
//	                         callee of the subject
//	test/missing-input       a required input of the subject has no fixture
//	test/unknown-output      an Expects item names no output of the subject
//	test/never-holds         an Expects item compares an output with a
//	                         literal its declared type never is (equals,
//	                         is one of), or looks in a list output for one
//	                         its element type never is (contains)
//	test/empty-expects       the test has no Expects item
//	test/duplicate-name      two test files linted (or run) together share a
//	                         name (testnames.go)
//	test/subject-kind        the subject is a test or a gateway, which
//	                         prose test does not run (a gateway is driven
//	                         from outside: test what it wakes)
//
// `__error` and `__error.md` name the run's error (upstream's error file)
// and are outputs of every subject.
const (
	CodeTestUnknownSubject = "test/unknown-subject"
	CodeTestUnknownFixture = "test/unknown-fixture"
	CodeTestMissingInput   = "test/missing-input"
	CodeTestUnknownOutput  = "test/unknown-output"
	CodeTestEmptyExpects   = "test/empty-expects"
	CodeTestSubjectKind    = "test/subject-kind"
	// CodeTestNearForm warns of a claim no form decides whose first words
	// are a slip for a form's ("is at leest 0.4"): it would go to a model
	// judge (or SKIP without one) instead of being decided by the data.
	CodeTestNearForm = "test/near-form"
	// CodeTestFixtureType is a fixture of another type than the input it
	// gives.
	CodeTestFixtureType = "test/fixture-type"
	// CodeTestNeverHolds is an Expects item comparing an output with a
	// literal its declared type never is.
	CodeTestNeverHolds = "test/never-holds"
	// CodeTestModelCallee warns of an inline node the subject calls that
	// a model would render, in a test that binds other callees to
	// programs: a fixture forgotten, the test SKIP without a model.
	CodeTestModelCallee = "test/model-callee"
)

// formLeads are the first words of the claim forms package claim decides
// without a model, for the did-you-mean of test/near-form.
var formLeads = []string{
	"is at least", "is at most", "is greater than", "is less than", "is between", "is under", "is over",
	"is above", "is below", "has at least", "has at most", "has exactly", "has more than", "has fewer than",
	"contains", "includes", "equals", "matches", "is exactly", "is null", "is not null", "is present",
	"is empty", "is not empty", "is missing", "is absent", "has key", "every item", "each element",
	"does not contain", "does not match", "does not equal", "starts with", "ends with", "does not start with",
	"does not end with",
}

// nearForm is claim with its first words replaced by the form's they are
// a slip for, when that makes it a claim the data decides; "" when claim
// is one already, or no form's words are close.
func nearForm(claim string) string {
	if decided(claim) {
		return ""
	}
	// a number written in quotes where a comparison wants one ("is at
	// least "2""): the quoted text is no number to the form
	if unq := quotedNumber.ReplaceAllString(claim, "$1"); unq != claim && decided(unq) {
		return unq
	}
	words := strings.Fields(claim)
	for _, lead := range formLeads {
		k := len(strings.Fields(lead))
		// the lead's words, or fewer run together ("is atleast")
		for n := k; n >= 1 && n > k-3; n-- {
			if len(words) < n {
				continue
			}
			head := strings.ToLower(strings.Join(words[:n], " "))
			if head == lead {
				continue
			}
			if n == k && didyoumean.Closest(head, []string{lead}, 2) != lead ||
				n < k && strings.ReplaceAll(head, " ", "") != strings.ReplaceAll(lead, " ", "") {
				continue
			}
			fixed := strings.Join(append([]string{lead}, words[n:]...), " ")
			if decided(fixed) {
				return fixed
			}
		}
	}
	return ""
}

// quotedNumber is a number in quotes or backticks.
var quotedNumber = regexp.MustCompile("[\"'`](-?[0-9]+(?:\\.[0-9]+)?)[\"'`]")

// decided reports whether a form decides claim for some value.
func decided(claim string) bool {
	for _, v := range []delegation.Value{"text", int64(1), delegation.NewList("a")} {
		if _, ok := form.Decide(claim, v); ok {
			return true
		}
	}
	return false
}

// What a fixture may bind: a name of the subject and its role.
const (
	NameInput  = "input"
	NameSlot   = "slot"
	NameConfig = "config"
	NameCallee = "callee"
)

// SubjectNames maps each name a fixture may bind to its role: an input,
// a slot, a config key, or a callee (a `##` node of the subject's file or
// a target its program calls). An input named like a slot or config key
// is that slot or key.
func SubjectNames(sp *spec.Spec) map[string]string {
	m := map[string]string{}
	if sp.Contract && sp.Kind != spec.KindPattern && sp.Name != "" && sp.Renders() {
		// The subject's own render is bound by its name, as prose run
		// --slot NAME=BINDING binds it: tested offline with a program.
		m[sp.Name] = NameCallee
	}
	if body := sp.Body(); body != nil && body.Program != nil {
		for _, c := range body.Program.Calls() {
			if id, ok := c.Target.(*syntax.Ident); ok && c.Session == nil { // a session calls a model, no callee

				m[id.Name] = NameCallee
			}
		}
	}
	for _, n := range sp.Nodes {
		m[n.Name] = NameCallee
	}
	for _, in := range sp.Inputs {
		m[in.Name] = NameInput
	}
	for _, name := range sp.ImpliedInputs() {
		m[name] = NameInput
	}
	for _, c := range sp.Config {
		m[c.Name] = NameConfig
	}
	for _, s := range sp.Slots {
		m[s.Name] = NameSlot
	}
	return m
}

// TestFile checks a loaded test file of fsys; nil for any other kind.
func TestFile(fsys fs.FS, name string, s *spec.Spec) diag.List {
	if s == nil || s.Kind != spec.KindTest {
		return nil
	}
	tf, diags := spec.ReadTest(s)
	if !hasPositive(tf.Expects) {
		at := tf.ExpectsPos
		if at < 0 {
			at = 0
		}
		diags.Errorf(s.File, at, CodeTestEmptyExpects, "the test has no ### Expects item: add - `output`: CLAIM items (a test that checks nothing always passes)")
	}
	for _, e := range tf.Expects {
		if near := nearForm(e.Claim); near != "" {
			diags.Warnf(s.File, e.Pos, CodeTestNearForm, "%q is no claim prose decides from the data, so a model judges it; did you mean %q?", e.Claim, near)
		}
	}
	if tf.Subject == "" {
		return diags
	}
	sub, why := loadSubject(fsys, name, tf.Subject, true)
	if sub == nil {
		diags.Errorf(s.File, tf.SubjectPos, CodeTestUnknownSubject, "subject %q: %s", tf.Subject, why)
		return diags
	}
	// A test with ### Drains drains its subject's project (package
	// drain): a gateway may be its subject, and the inputs its
	// producers give need no fixture.
	world := hasDrains(s)
	switch sub.Kind {
	case spec.KindTest:
		diags.Errorf(s.File, tf.SubjectPos, CodeTestSubjectKind, "subject %q is a test; a test's subject is a function, a responsibility or a pattern", tf.Subject)
		return diags
	case spec.KindGateway:
		if world {
			break
		}
		diags.Errorf(s.File, tf.SubjectPos, CodeTestSubjectKind, "subject %q is a gateway, driven from outside and never run by prose; test the responsibility it wakes (its ### Emits)", tf.Subject)
		return diags
	}
	names := SubjectNames(sub)
	given := map[string]map[string]bool{} // case ("" for all) -> roots given
	for _, fx := range tf.Fixtures {
		root, _, _ := strings.Cut(fx.Name, ".")
		if given[fx.Case] == nil {
			given[fx.Case] = map[string]bool{}
		}
		given[fx.Case][root] = true
		if names[root] == "" {
			diags.Errorf(s.File, fx.Pos, CodeTestUnknownFixture, "fixture %q names no input, slot, config key or callee of %s%s", fx.Name, sub.Name, testDidYouMean(root, names))
		}
		if (names[root] == NameInput || names[root] == NameConfig) && fx.Name == root {
			fixtureType(s, sub, fx, &diags)
		}
		if lit, kept := roundedInteger(fx); lit != "" {
			diags.Errorf(s.File, fx.Pos, CodeTestFixtureType, "fixture %q holds the integer %s, which the test would give as %s (a fixture's numbers are JSON numbers, exact up to 2^53): give it as a string", fx.Name, lit, kept)
		}
	}
	cases := tf.Cases
	if len(cases) == 0 {
		cases = []*spec.FixtureCase{{Pos: tf.SubjectPos}}
	}
	for _, c := range cases {
		wired := inlineProduced(sub)
		for _, in := range sub.Inputs {
			if world || given[""][in.Name] || given[c.Name][in.Name] || in.Optional || in.HasDefault || names[in.Name] != NameInput || wired[in.Name] {
				continue
			}
			if c.Name == "" {
				diags.Errorf(s.File, tf.SubjectPos, CodeTestMissingInput, "the subject's input %q has no fixture and no default: add - `%s`: VALUE under ### Fixtures", in.Name, in.Name)
			} else {
				diags.Errorf(s.File, c.Pos, CodeTestMissingInput, "fixture case %q gives no value for the subject's input %q, which has no default: add %s: VALUE under it", c.Name, in.Name, in.Name)
			}
		}
	}
	if !world {
		modelCallees(s, sub, tf, names, &diags)
	}
	outs := map[string]bool{"__error": true, "__error.md": true}
	for _, o := range sub.Outputs {
		outs[o.Name] = true
	}
	for _, e := range tf.Expects {
		if e.Output != "" && e.Output == e.Path {
			neverEquals(s, sub, e, &diags)
			neverContains(s, sub, e, &diags)
			neverOneOf(s, sub, e, &diags)
		}
		if e.Output != "" && !outs[e.Output] {
			hint := didYouMeanOutput(e.Output, sub.Outputs)
			if len(sub.Outputs) == 0 {
				hint = " (it declares no outputs: an item without a name, - CLAIM, checks its whole result)"
			}
			diags.Errorf(s.File, e.Pos, CodeTestUnknownOutput, "%q is no output of %s%s", e.Output, sub.Name, hint)
		}
	}
	return diags
}

// modelCallees warns of each inline node of sub its program calls that a
// model renders (no Execution) and no fixture binds, in a test that
// binds another callee to a program (`exec:`): the test means to run
// offline, and without a model it is SKIP, with exit 0, for the fixture
// forgotten. Decided: a warning, as a model configured serves it.
func modelCallees(s, sub *spec.Spec, tf *spec.TestFile, names map[string]string, diags *diag.List) {
	programs := false
	bound := map[string]bool{}
	for _, fx := range tf.Fixtures {
		root, _, _ := strings.Cut(fx.Name, ".")
		if names[root] != NameCallee {
			continue
		}
		bound[root] = bound[root] || fx.Case == ""
		programs = programs || strings.HasPrefix(strings.TrimSpace(fx.Raw), "exec:")
	}
	if !programs || sub.Body() == nil || sub.Body().Program == nil {
		return
	}
	called := map[string]bool{}
	for _, c := range sub.Body().Program.Calls() {
		if id, ok := c.Target.(*syntax.Ident); ok && c.Session == nil {
			called[id.Name] = true
		}
	}
	for _, n := range sub.Nodes {
		if !called[n.Name] || bound[n.Name] || !n.Renders() || caseBinds(tf, n.Name) {
			continue
		}
		diags.Warnf(s.File, tf.SubjectPos, CodeTestModelCallee, "%s calls %s, which no fixture binds, so a model renders it (without one the test is SKIP) while the test binds other callees to programs: add - `%s`: exec:COMMAND under ### Fixtures", sub.Name, n.Name, n.Name)
	}
}

// caseBinds reports whether every fixture case binds name (a case that
// does not leaves it to a model).
func caseBinds(tf *spec.TestFile, name string) bool {
	if len(tf.Cases) == 0 {
		return false
	}
	for _, c := range tf.Cases {
		if !slices.ContainsFunc(tf.Fixtures, func(fx *spec.Fixture) bool { return fx.Case == c.Name && fx.Name == name }) {
			return false
		}
	}
	return true
}

// inlineProduced are the names the inline nodes of sub give when sub has
// no Execution: the run wires them to sub's inputs (a ## collector's
// notes for a render that requires notes), so a test gives them no
// fixture.
func inlineProduced(sub *spec.Spec) map[string]bool {
	out := map[string]bool{}
	if !sub.Renders() {
		return out
	}
	for _, n := range sub.Nodes {
		if n.Kind != spec.KindFunction && n.Kind != spec.KindResponsibility {
			continue
		}
		for _, o := range n.Outputs {
			out[o.Name] = true
		}
	}
	return out
}

// neverEquals reports an Expects item that compares an output with a
// literal its declared type never holds (`count` (integer): equals "2";
// `priority` ("low" | "high"): equals "urgent"). In ### Expects the item
// always fails; in ### Expects Not, or as "is not", it always passes, a
// test that cannot fail. null is left alone: an optional output may be.
func neverEquals(s, sub *spec.Spec, e *spec.Expect, diags *diag.List) {
	want, not, ok := form.Equals(e.Claim)
	if !ok || want == nil {
		return
	}
	for _, o := range sub.Outputs {
		if o.Name != e.Output || o.Type == "" || !shape.Known(o.ValueType()) || shape.Fits(o.ValueType(), want) {
			continue
		}
		diags.Errorf(s.File, e.Pos, CodeTestNeverHolds, "%s is declared (%s) at %s, so it never equals %s: this item always %s; write %s",
			e.Output, o.Type, sub.File.Position(o.Pos), shape.Show(want), outcome(e.Negated != not), shape.Article(o.Type))
	}
}

// neverContains reports an Expects item `contains LIT` of an output
// declared a list of one type (`ids` (integer[])) where no element of
// that type is LIT or, for text, holds it: `ids`: contains "4" never
// holds for [4], so under Expects Not it passes whatever the subject
// gives. A string, an object or an untyped output is left alone (text
// contains any text; an object contains its keys).
func neverContains(s, sub *spec.Spec, e *spec.Expect, diags *diag.List) {
	want, not, ok := form.Contains(e.Claim)
	if !ok {
		return
	}
	for _, o := range sub.Outputs {
		typ := strings.TrimSpace(o.ValueType())
		elem, isList := strings.CutSuffix(typ, "[]")
		if o.Name != e.Output || !isList || strings.ContainsAny(typ, "|") || !shape.Known(typ) || elemMayContain(elem, want) {
			continue
		}
		diags.Errorf(s.File, e.Pos, CodeTestNeverHolds, "%s is declared (%s) at %s, so it never contains %s: this item always %s; write %s",
			e.Output, o.Type, sub.File.Position(o.Pos), shape.Show(want), outcome(e.Negated != not), shape.Article(elem))
	}
}

// elemMayContain reports whether an element of type elem can make a
// list contain want: be it, or, for text, hold it as the contains form
// reads text elements.
func elemMayContain(elem string, want delegation.Value) bool {
	if shape.Fits(elem, want) {
		return true
	}
	_, isText := want.(string)
	name, _ := spec.BaseType(elem)
	return isText && name == "any"
}

// neverOneOf reports an Expects item `is one of A, B` of an output whose
// declared type none of A, B is (`count` (integer): is not one of "1",
// "2"), which under a negation passes whatever the subject gives. A list
// or an object is left alone: the form fails it either way.
func neverOneOf(s, sub *spec.Spec, e *spec.Expect, diags *diag.List) {
	set, not, ok := form.OneOf(e.Claim)
	if !ok {
		return
	}
	for _, o := range sub.Outputs {
		if o.Name != e.Output || o.Type == "" || !shape.Known(o.ValueType()) || !oneValue(o.ValueType()) {
			continue
		}
		var shown []string
		fits := false
		for _, v := range set {
			fits = fits || v == nil || shape.Fits(o.ValueType(), v)
			shown = append(shown, shape.Show(v))
		}
		if fits {
			continue
		}
		diags.Errorf(s.File, e.Pos, CodeTestNeverHolds, "%s is declared (%s) at %s, so it is never one of %s: this item always %s; write %s",
			e.Output, o.Type, sub.File.Position(o.Pos), strings.Join(shown, ", "), outcome(e.Negated != not), shape.Article(o.Type))
	}
}

// oneValue reports whether every value of type typ is a single value
// the one-of form compares (no list and no object).
func oneValue(typ string) bool {
	for p := range strings.SplitSeq(typ, "|") {
		p = strings.TrimSpace(p)
		name, _ := spec.BaseType(p)
		if strings.HasSuffix(p, "[]") || name == "object" || name == "any" {
			return false
		}
	}
	return true
}

// outcome is how an item that never holds is reported: one that
// expects it not to hold (in Expects Not or "is not", not both) passes.
func outcome(negated bool) string {
	if negated {
		return "passes, whatever the subject gives"
	}
	return "fails"
}

// fixtureType reports a fixture whose value is not of the type the
// subject declares for the input it gives (the run would refuse it,
// naming no line of the test): `"10"`, quoted, for an integer.
func fixtureType(s, sub *spec.Spec, fx *spec.Fixture, diags *diag.List) {
	for _, in := range sub.Inputs {
		if in.Name != fx.Name || in.Type == "" || in.Type == "run" || in.Type == "run[]" || fx.Value == nil {
			continue
		}
		v, err := delegation.FromGo(fx.Value)
		if err != nil || shape.Fits(in.Type, v) {
			return
		}
		diags.Errorf(s.File, fx.Pos, CodeTestFixtureType, "fixture %q is %s, but %s declares its input %s (%s): write %s", fx.Name, shape.Show(v), sub.Name, in.Name, in.Type, fixtureHint(in.Type))
		return
	}
	// A config key's fixture is its flag text (--config NAME=TEXT: a
	// string as it is, any other value as JSON), typed as the run types
	// it, so that the run's refusal is reported here, at the fixture.
	for _, c := range sub.Config {
		if c.Name != fx.Name || c.Type == "" {
			continue
		}
		text, ok := fx.Value.(string)
		if !ok {
			b, err := json.Marshal(fx.Value)
			if err != nil {
				return
			}
			text = string(b)
		}
		if _, err := typed.ParseText(c.Type, text); err != nil {
			// the run's error would name --config, not the fixture
			diags.Errorf(s.File, fx.Pos, CodeTestFixtureType, "fixture %q is %s, but %s declares its config key %s (%s): write %s", fx.Name, clipText(fx.Raw), sub.Name, c.Name, c.Type, shape.Article(c.Type))
		}
		return
	}
}

// roundedInteger is the first integer written in fixture fx (as JSON)
// that a fixture's value, whose numbers are float64, holds as another
// integer, and what it becomes; "" for none.
func roundedInteger(fx *spec.Fixture) (lit, kept string) {
	if !fx.JSON {
		return "", ""
	}
	dec := json.NewDecoder(strings.NewReader(fx.Raw))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", ""
		}
		n, ok := tok.(json.Number)
		if !ok || strings.ContainsAny(string(n), ".eE") {
			continue
		}
		if k, err := canon.Kept(string(n)); err == nil && k != string(n) {
			return string(n), k
		}
	}
}

// clipText is a fixture's text as written, shortened for a message.
func clipText(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "..."
	}
	return s
}

func fixtureHint(typ string) string {
	switch typ {
	case "integer", "number":
		return "the number without quotes"
	case "boolean":
		return "true or false without quotes"
	}
	return "a value of that type (JSON)"
}

// hasDrains reports whether test file s has a ### Drains section.
func hasDrains(s *spec.Spec) bool {
	for _, sec := range s.Sections {
		if strings.EqualFold(strings.TrimSpace(sec.Heading), "drains") {
			return true
		}
	}
	return false
}

func hasPositive(es []*spec.Expect) bool {
	for _, e := range es {
		if !e.Negated {
			return true
		}
	}
	return false
}

// loadSubject resolves and loads a test's subject (see
// spec.ResolveSubject; a std/ path not in fsys is the embedded library).
// On failure it returns nil and why. twin says that a library subject may
// be the spec of a file the graph fsys loaded with the same source (a lint of
// std/ itself reads each library spec there already): TestFile reads
// only its subject's names, which a parse of the same bytes gives alike.
func loadSubject(fsys fs.FS, testName, subject string, twin bool) (*spec.Spec, string) {
	if p := spec.ResolveSubject(fsys, testName, subject); p != "" {
		if twins := spec.SubjectTwins(fsys, testName, subject, p); len(twins) > 0 {
			files := []string{path.Base(p)}
			for _, t := range twins {
				files = append(files, path.Base(t))
			}
			return nil, fmt.Sprintf("%s have name: %s, so which one the test runs is not known: rename all but one, or name the file as the subject (subject: %s)",
				listFiles(files), subject, files[0])
		}
		sp, diags, err := spec.LoadFrom(fsys, p)
		if err != nil {
			return nil, err.Error()
		}
		if diags.HasErrors() {
			return nil, "the subject " + p + " has errors (lint it)"
		}
		return sp, ""
	}
	if std.IsStd(subject) {
		// A library path that names a file on disk names it (std.Open):
		// the graph of the operating system's files reads it as given, and
		// when it is a file of the lint (prose lint std/ from the
		// repository), it was read and parsed already.
		if g, ok := fsys.(*specgraph.Graph); ok && twin {
			if std.IsDisk(g.FS()) {
				if st, err := fs.Stat(g, subject); err == nil && st.Mode().IsRegular() {
					if sp, _, err := g.Load(subject); err == nil {
						return sp, ""
					}
				}
			}
		}
		if src, file, err := std.Open(subject); err == nil {
			if g, ok := fsys.(*specgraph.Graph); ok && twin {
				if sp := g.Twin(src, path.Base(file)); sp != nil {
					return sp, ""
				}
			}
			sp, _ := spec.ParseOwned(file, src)
			return sp, ""
		}
	}
	if strings.Contains(subject, "/") || strings.HasSuffix(subject, ".md") {
		return nil, "no such file (paths are relative to the test's directory: " + path.Dir(testName) + ")"
	}
	why := "no spec of that name in the test's directory or above it, up to the project root"
	if best := didyoumean.Closest(subject, spec.SubjectNames(fsys, testName), 2); best != "" {
		why += "; did you mean " + best + "?"
	}
	return nil, why
}

// testDidYouMean is " (did you mean X?)" for the name of names closest to
// name, or "".
func testDidYouMean(name string, names map[string]string) string {
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	best := didyoumean.Closest(name, keys, 2)
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

func didYouMeanOutput(name string, outs []*spec.Output) string {
	m := map[string]string{}
	for _, o := range outs {
		m[o.Name] = "output"
	}
	return testDidYouMean(name, m)
}
