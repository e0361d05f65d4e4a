package lint

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/proselang/prose/claim"
	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/spec/cadence"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/std"
)

// Contract Markdown (0.15) checks, run on files the loader read by the
// 0.15 rules (spec.Spec.Contract):
//
//   - every canonical section is checked against the table of the kind of
//     the node it belongs to (case-insensitive); a section of another kind
//     draws lint/section-kind (a warning: such a section is not ignored.
//     A function's ### Maintains is read as its outputs, each typed item
//     checked, and its postconditions the data decides are checked where
//     its value is made, callgraph postconditions; so the run gives no
//     value the section refuses, and the warning asks for ### Returns,
//     the section a function's contract is read from), a section 0.15 retired draws
//     lint/retired-section naming its replacement (a retired or unknown
//     kind is the loader's spec/retired-kind or spec/unknown-kind);
//   - each ### Patterns instance names a pattern that is found, binds
//     only its slots, to targets that resolve (lint/unresolved-call), and
//     leaves none unbound (lint/unbound-slot, a warning: --slot may bind
//     it);
//   - each Execution program is checked like a Delegation, with the node's
//     inputs and outputs, and with its call targets resolved by the order
//     of spec.ResolveCall: a target nothing resolves is
//     lint/unresolved-call (an error, with a did-you-mean), a target that
//     a nearer rung shadows draws lint/ambiguous-call (a warning), and a
//     target that the front matter of two sibling files names, neither
//     by its stem, is lint/twin-callee (an error: prose would pick one
//     by file order, a choice the author never made);
//   - each `use` of an Execution names a file beside the spec or a
//     library spec (lint/unresolved-use, at the string, naming what the
//     library has near it), and no other sibling file answers to its
//     alias (lint/use-shadows, uses.go); a call of the alias is checked
//     as a call of that file is;
//   - the node's callees (## nodes and sibling files) are handed to the
//     checker with their inputs and outputs (check.Decls.Callees), which
//     follows the shapes of their values: v.M, where v holds the value of
//     a call to a node, is checked against the node's outputs (a member
//     it does not declare is lint/unknown-member), and so are arguments'
//     types and fallbacks (delegation/check, shape.go); each call of a
//     node with one output is marked (syntax.CallExpr.Output) so that
//     the evaluator reads v.OUT as v and matches a fallback to OUT;
//   - the arguments of a call of a node or sibling function are checked
//     against its inputs: one it does not declare is
//     lint/unknown-argument, a required one left out
//     lint/missing-argument;
//   - each config value of a ### Patterns instance is checked against
//     the pattern's declared type and its uses as a count or a timeout
//     (lint/config-value, at the instance's config line), and the
//     pattern's own checks of its config (`throw usage`) are run with
//     the instance's config (refusals.go);
//   - calls among the nodes of the file that go round, a node calling
//     itself included, are lint/call-cycle (cycles.go).
//
// Files of earlier generations never reach these checks.

// Codes of the Contract Markdown checks.
const (
	CodeUnresolvedCall = "lint/unresolved-call"
	CodeAmbiguousCall  = "lint/ambiguous-call"
	CodeTwinCallee     = "lint/twin-callee"
	CodeSectionKind    = "lint/section-kind"
	CodeRetiredSection = "lint/retired-section"
	CodeUnboundSlot    = "lint/unbound-slot"
	// CodeUnknownMember: v.M where what v holds cannot have M (a call of
	// a node that declares no output M, a slot whose ensures names other
	// fields): reported by the checker (check.CodeUnknownMember).
	CodeUnknownMember = check.CodeUnknownMember
	// CodeUnknownArgument: a call passes an input its callee does not
	// declare; CodeMissingArgument: it leaves a required one out.
	CodeUnknownArgument = "lint/unknown-argument"
	CodeMissingArgument = "lint/missing-argument"
	// CodeModifierConflict: a call modifier (retry:, backoff:) named like
	// an input its callee declares.
	CodeModifierConflict = "lint/modifier-conflict"
	// CodeConfigValue is a ### Patterns instance's config value that its
	// pattern's declared type, or its use as a count or a timeout, would
	// refuse at run time.
	CodeConfigValue = "lint/config-value"
	// CodePostconditionSlip is a ### Maintains postcondition written as
	// `FIELD` CLAIM whose field the node does not give, or whose claim is
	// a slip for a form prose decides: nothing checks it where the value
	// is made.
	CodePostconditionSlip = "lint/postcondition-slip"
	// CodePostconditionField is a ### Maintains postcondition in a form
	// prose decides (`totl` is at least 0) about a field the node does
	// not give: nothing checks it, and the value breaking the claim
	// meant passes with exit 0. An error, as graph/postcondition is for
	// a responsibility.
	CodePostconditionField = "lint/postcondition-field"
)

// Rules lists the codes of the Contract Markdown checks.
func Rules() []spec.Rule {
	return append([]spec.Rule{
		{Code: CodeUnresolvedCall, Severity: diag.Error, Short: "Call target resolves to no slot, pattern instance, node, sibling file or library spec"},
		{Code: CodeAmbiguousCall, Severity: diag.Warning, Short: "Call target names a nearer and a farther callee (the nearer wins)"},
		{Code: CodeTwinCallee, Severity: diag.Error, Short: "Call target that the front matter name of two sibling files gives"},
		{Code: CodeUnresolvedUse, Severity: diag.Error, Short: "use whose path names no spec file relative to the spec, or no spec of the library"},
		{Code: CodeUseShadows, Severity: diag.Error, Short: "use alias that a sibling file other than the used one answers to as well"},
		{Code: CodeUnusedUse, Severity: diag.Warning, Short: "use whose alias no call of the Execution names"},
		{Code: CodeSectionKind, Severity: diag.Warning, Short: "Canonical section that does not apply to the node's kind"},
		{Code: CodeRetiredSection, Severity: diag.Warning, Short: "Section retired in 0.15"},
		{Code: CodeUnboundSlot, Severity: diag.Warning, Short: "Pattern instance leaves a slot of its pattern unbound"},
		{Code: CodeUnknownMember, Severity: diag.Error, Short: "Member that the value's declared shape cannot have (a callee's outputs, the fields a slot ensures, a declared type)"},
		{Code: CodeUnknownArgument, Severity: diag.Error, Short: "Call argument that the called node or function does not declare"},
		{Code: CodeModifierConflict, Severity: diag.Error, Short: "Call modifier (retry:, backoff:) named like an input the callee declares"},
		{Code: CodeMissingArgument, Severity: diag.Error, Short: "Call that leaves out a required input of the called node or function"},
		{Code: CodePostconditionSlip, Severity: diag.Warning, Short: "Postcondition whose form is misspelt: nothing checks it"},
		{Code: CodePostconditionField, Severity: diag.Error, Short: "Postcondition in a claim form whose field the node does not give: nothing checks it"},
		{Code: CodeConfigValue, Severity: diag.Error, Short: "Pattern instance config value its pattern's type or use would refuse"},
		{Code: CodeUndeclaredError, Severity: diag.Error, Short: "Throw of an error the node's ### Errors does not declare (where it declares some)"},
		{Code: CodeTwinProducer, Severity: diag.Error, Short: "Two inline nodes wired without an Execution give an output of one name the wiring reads"},
		{Code: CodeCallCycle, Severity: diag.Error, Short: "Node that calls itself, or calls among a file's nodes that go round"},
		{Code: cadence.CodeCadence, Severity: diag.Error, Short: "Cadence stated wrongly (a cron field, a time, a time zone); a warning for self-driven or ### Schedule text that names no cadence prose reads"},
	}, append(toolRules(), skillRules()...)...)
}

// kindSections are the canonical sections of each kind, lower-cased,
// beyond those every kind may have (description, metadata, notes).
var kindSections = map[spec.Kind]string{
	spec.KindFunction:       "parameters returns errors invariants strategies environment runtime skills tools shape execution patterns",
	spec.KindResponsibility: "goal requires maintains continuity errors invariants strategies environment runtime skills tools shape execution patterns",
	spec.KindGateway:        "goal maintains continuity schedule receives emits payload errors invariants runtime",
	spec.KindTest:           "fixtures expects expects-not strategies",
}

// retiredSections maps a section 0.15 retired to its replacement.
var retiredSections = map[string]string{
	"ensures":     "### Maintains (a responsibility) or ### Returns (a function)",
	"criteria":    "postconditions under ### Maintains",
	"fulfillment": "the render itself, or a called function",
	"constraints": "### Invariants or ### Shape",
	"memory":      "nothing: a responsibility's world-model holds its state, a function has none",
	"services":    "calls in ### Execution, or responsibilities wired by Requires/Maintains",
	"wiring":      "calls in ### Execution, or responsibilities wired by Requires/Maintains",
}

// canonical is every canonical 0.15 section, lower-cased.
var canonical = func() map[string]bool {
	m := map[string]bool{"description": true, "slots": true, "config": true, "delegation": true}
	for _, list := range kindSections {
		for _, s := range strings.Fields(list) {
			m[s] = true
		}
	}
	return m
}()

// StdFinder finds sibling files on the operating system and library specs
// in the embedded library.
func StdFinder() *spec.Finder {
	return specgraph.New(specgraph.Options{}).Finder()
}

// contract runs the Contract Markdown checks of s.
func contract(s *spec.Spec, loaded diag.List, f *spec.Finder) diag.List {
	if s == nil || !s.Contract {
		return nil
	}
	var out diag.List
	syntaxErr := false
	for _, d := range loaded {
		if d.Severity == diag.Error && (strings.HasPrefix(d.Code, "syntax/") || d.Code == spec.CodeUnsupportedScript || strings.HasPrefix(d.Code, "spec/use-")) {
			syntaxErr = true
		}
	}
	out = append(out, instances(s, f)...)
	if !syntaxErr {
		out = append(out, callCycles(s, f)...)
		out = append(out, wiringCycles(s)...)
		out = append(out, twinProducers(s)...)
	}
	for _, n := range append([]*spec.Spec{s}, s.Nodes...) {
		out = append(out, sectionKinds(n)...)
		out = append(out, uses(n, f)...)
		if !syntaxErr && n.Execution != nil && n.Execution.Program != nil {
			out = append(out, execution(n, f)...)
		}
		if !syntaxErr {
			out = append(out, undeclaredThrows(n)...)
		}
		out = append(out, postconditionSlips(n)...)
	}
	return out
}

// sectionKinds checks a node's sections against its kind's table.
func sectionKinds(n *spec.Spec) diag.List {
	var out diag.List
	allowed, ok := kindSections[n.Kind]
	var hbuf, kbuf [32]byte
	for _, sec := range n.Sections {
		h, key := foldSection(hbuf[:0], kbuf[:0], sec.Heading)
		if repl, retired := retiredSections[string(h)]; retired && n.Kind != spec.KindPattern {
			out.Warnf(n.File, sec.Pos, CodeRetiredSection, "### %s was retired in 0.15: use %s", sec.Heading, repl)
			continue
		}
		if !ok || !canonical[string(key)] || string(key) == "description" || hasWord(allowed, string(key)) {
			continue
		}
		if n.Kind == spec.KindGateway && (string(key) == "requires" || string(key) == "parameters") {
			continue // the loader's error, spec.CodeGatewayRequires, says what happens
		}
		out.Warnf(n.File, sec.Pos, CodeSectionKind, "### %s does not apply to a %s%s", sec.Heading, n.Kind, kindHint(n.Kind))
	}
	return out
}

// foldSection appends to h the heading with its words lowered and
// single-spaced (strings.ToLower(strings.Join(strings.Fields(heading),
// " "))) and to key the same with hyphens for spaces, without allocating
// for an ASCII heading that fits the buffers given.
func foldSection(h, key []byte, heading string) ([]byte, []byte) {
	space := false
	for i := 0; i < len(heading); i++ {
		c := heading[i]
		switch {
		case c >= 0x80:
			long := strings.ToLower(strings.Join(strings.Fields(heading), " "))
			return append(h[:0], long...), append(key[:0], strings.ReplaceAll(long, " ", "-")...)
		case c == ' ' || '\t' <= c && c <= '\r':
			space = len(h) > 0
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if space {
			h, key, space = append(h, ' '), append(key, '-'), false
		}
		h, key = append(h, c), append(key, c)
	}
	return h, key
}

// hasWord reports whether the space-separated list has word.
func hasWord(list, word string) bool {
	for list != "" {
		w, rest, _ := strings.Cut(list, " ")
		if w == word {
			return true
		}
		list = rest
	}
	return false
}

func kindHint(kind spec.Kind) string {
	switch kind {
	case spec.KindFunction:
		return " (a function takes ### Parameters and gives ### Returns)"
	case spec.KindResponsibility:
		return " (a responsibility takes ### Requires and keeps ### Maintains)"
	}
	return ""
}

// execution checks one node's Execution program: the checker's findings
// with the node's inputs and outputs and the call targets that resolve,
// plus the targets that do not.
func execution(n *spec.Spec, f *spec.Finder) diag.List {
	prog := n.Execution.Program
	d := n.Decls()
	// a function's or responsibility's value is matched to its outputs
	// by the return rule (check/return-shape)
	d.ReturnRule, d.Node = n.Kind == spec.KindFunction || n.Kind == spec.KindResponsibility, n.Name
	var out diag.List
	seen := map[string]bool{}
	outputs := map[string][]string{}     // call target -> its declared outputs
	params := map[string]*spec.Spec{}    // call target -> the node or file called
	instances := map[string]*spec.Spec{} // call target -> the pattern of the instance called
	for _, c := range callTargets(prog) {
		if seen[c.name] {
			continue
		}
		seen[c.name] = true
		if bound(d, c.name) || spec.WorldModelOp(c.name) {
			if callee := n.ResolveCall(c.name, nil, f); callee != nil && callee.Kind != spec.CalleeSlot && !spec.WorldModelOp(c.name) {
				// the input's value is called (text given with --input is
				// no service), never the callee the author meant
				out.Errorf(n.File, c.pos, check.CodeCallTarget, "call %s calls the input %q, which hides the %s of that name: rename the input",
					c.name, c.name, callee.Kind)
			}
			d.Slots = append(d.Slots, check.Slot{Name: c.name, Pos: c.pos})
			continue
		}
		callee := n.ResolveCall(c.name, nil, f)
		d.Slots = append(d.Slots, check.Slot{Name: c.name, Pos: c.pos})
		if callee == nil && (c.name == n.Name || c.name == n.Root().Name) {
			continue // the node itself, or its file's node: lint/call-cycle
		}
		if callee == nil && n.UseOf(c.name) != nil {
			continue // the use is lint/unresolved-use
		}
		if callee == nil {
			hint := didYouMean(c.name, n.CallTargets(nil, f))
			if lib := stdCallee(c.name, f); lib != "" {
				hint = fmt.Sprintf("; the library has one: write call %s", lib)
			}
			out.Errorf(n.File, c.pos, CodeUnresolvedCall, "call %s: no slot, pattern instance, ## node, sibling file or std/ spec is named %q%s",
				c.name, c.name, hint)
			continue
		}
		twinCallee(n, c.pos, "call "+c.name, callee, f, &out)
		if callee.Shadows != "" {
			out.Warnf(n.File, c.pos, CodeAmbiguousCall, "call %s reaches the %s %q; a %s of the same name is farther and not called: rename one of them",
				c.name, callee.Kind, c.name, callee.Shadows)
		}
		if callee.Kind == spec.CalleeInstance && callee.Instance != nil {
			if ps := patternOf(n.Root(), callee.Instance.Pattern, f); ps != nil && ps.Kind == spec.KindPattern {
				instances[c.name] = ps
				out = append(out, slotFunctionArguments(n.Root(), callee.Instance, ps, f)...)
				if ce, ok := instanceCallee(c.name, ps); ok {
					d.Callees = append(d.Callees, ce)
				}
			}
		}
		cs := calleeSpec(callee, f)
		if cs == nil && callee.Path != "" && f != nil {
			// a file the call reaches that cannot be read (a named pipe
			// where the spec should be) fails every run of the call
			if _, _, err := f.Load(callee.Path); err != nil {
				out.Errorf(n.File, c.pos, CodeUnresolvedCall, "call %s reaches %s, which cannot be read: %v", c.name, callee.Path, err)
			}
		}
		if cs != nil {
			params[c.name] = cs
			ce := check.Callee{Name: c.name}
			for _, in := range cs.Inputs {
				ce.Inputs = append(ce.Inputs, check.Name{Name: in.Name, Pos: in.Pos, Type: in.Type, Optional: in.Optional || in.HasDefault})
			}
			for _, o := range cs.Outputs {
				outputs[c.name] = append(outputs[c.name], o.Name)
				ce.Outputs = append(ce.Outputs, check.Name{Name: o.Name, Pos: o.Pos, Type: o.Type, Inferred: o.Inferred, Part: o.Facet})
			}
			for _, e := range cs.Errors {
				ce.Errors = append(ce.Errors, e.Name)
			}
			// a callee that runs a program of its own (an Execution, or
			// its inline nodes) may fail with the errors of its calls
			ce.ErrorsKnown = (cs.Execution == nil || cs.Execution.Program == nil) && len(cs.Nodes) == 0
			d.Callees = append(d.Callees, ce)
		}
	}
	for i := range d.Outputs {
		if i < len(n.Outputs) && n.Outputs[i].Name == d.Outputs[i].Name {
			d.Outputs[i].Type, d.Outputs[i].Optional = n.Outputs[i].Type, n.Outputs[i].Optional
		}
	}
	out = append(out, callArguments(n, prog, params)...)
	out = append(out, instanceArguments(n, prog, instances)...)
	markOutputs(prog, outputs)
	return append(out, check.Check(prog, d)...)
}

// instanceCallee is what the checker knows of the value of a call of a
// pattern instance: an object of the outputs its pattern declares (the
// library's result, attempts, final_critique; ratchet's result alone),
// so that a member it cannot have (r.output) is lint/unknown-member
// rather than a null read on with exit 0. ok is false unless the pattern
// declares its outputs (none inferred from a return) and every return
// that ends its Delegation gives an object literal of declared outputs
// (or null): a pattern may return a plain value, or keys it does not
// declare, and its value is then not that object.
func instanceCallee(name string, ps *spec.Spec) (check.Callee, bool) {
	ce := check.Callee{Name: name, Whole: true}
	declared := map[string]bool{}
	for _, o := range ps.Outputs {
		if o.Inferred {
			return ce, false
		}
		declared[o.Name] = true
		ce.Outputs = append(ce.Outputs, check.Name{Name: o.Name, Pos: o.Pos, Type: o.Type, Part: o.Facet})
	}
	if len(ce.Outputs) == 0 || ps.Delegation == nil || ps.Delegation.Program == nil {
		return ce, false
	}
	ok, returned := true, false
	syntax.Walk(ps.Delegation.Program, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.ForExpr, *syntax.RepeatExpr:
			return false // a return there ends one iteration
		case *syntax.DoExpr, *syntax.BlockStmt:
			return false // a return there gives the block's value
		case *syntax.ReturnStmt:
			returned = true
			switch v := x.Value.(type) {
			case nil, *syntax.NullLit:
			case *syntax.ObjectLit:
				for _, f := range v.Fields {
					ok = ok && declared[f.Key]
				}
			default:
				ok = false
			}
		}
		return ok
	})
	return ce, ok && returned
}

// stdCallee is the library path a bare call target names, std/roles/NAME
// or std/patterns/NAME, or "". Decided: a bare name is not resolved to
// the library (a file added beside the spec would silently take its
// place); the message says how to call it.
func stdCallee(name string, f *spec.Finder) string {
	if strings.Contains(name, "/") || f == nil || f.Std == nil {
		return ""
	}
	for _, dir := range []string{"std/roles/", "std/patterns/"} {
		if f.Std(dir + name + spec.Suffix) {
			return dir + name
		}
	}
	return ""
}

// calleeSpec is the node or sibling file a callee names (nil for the
// others, or when the sibling does not load).
func calleeSpec(c *spec.Callee, f *spec.Finder) *spec.Spec {
	switch {
	case c.Kind == spec.CalleeNode && c.Node != nil:
		return c.Node
	case c.Kind == spec.CalleeSibling && c.Path != "":
		sp, _, err := f.Load(c.Path)
		if err == nil && sp != nil && sp.Kind != spec.KindPattern {
			return sp
		}
	case c.Kind == spec.CalleeStd && c.Path != "":
		// a library function (call std/roles/summarizer) is checked as a
		// sibling is: its inputs, its outputs and their types
		if sp := stdSpec(c.Path, f); sp != nil && sp.Kind != spec.KindPattern {
			return sp
		}
	}
	return nil
}

// stdSpec loads the library spec at path, or nil.
func stdSpec(path string, f *spec.Finder) *spec.Spec {
	if f == nil {
		return nil
	}
	if _, memo := f.FS.(spec.Loader); memo { // a graph reads the library too
		sp, _, err := f.Load(path)
		if err != nil {
			return nil
		}
		return sp
	}
	data, file, err := std.Open(path)
	if err != nil {
		return nil
	}
	sp, _ := spec.ParseOwned(file, data)
	return sp
}

// callArguments checks the arguments of each call of a node or sibling
// function against its declared inputs: an argument it does not declare
// is lint/unknown-argument, a required input the call does not pass
// lint/missing-argument (both errors: the callee would run without the
// value it needs). A callee that declares no inputs takes any.
func callArguments(n *spec.Spec, prog *syntax.Program, params map[string]*spec.Spec) diag.List {
	var out diag.List
	syntax.Walk(prog, func(x syntax.Node) bool {
		c, ok := x.(*syntax.CallExpr)
		if !ok {
			return true
		}
		id, ok := c.Target.(*syntax.Ident)
		if !ok || params[id.Name] == nil || len(params[id.Name].Inputs) == 0 {
			return true
		}
		cs := params[id.Name]
		declared := map[string]bool{}
		var names []string
		for _, in := range cs.Inputs {
			declared[in.Name] = true
			names = append(names, in.Name)
		}
		for _, m := range c.Modifiers {
			if declared[m.Key] {
				// Decided, as upstream: a call modifier that is also an
				// input name of its target is an error, not a clause
				// the callee's input silently never receives.
				out.Errorf(n.File, m.KeyPos, CodeModifierConflict, "call %s: %s: is the call's %s modifier, but %s also declares an input %q, which would never receive it: rename the input, or pass the value under another name",
					id.Name, m.Key, m.Key, id.Name, m.Key)
			}
		}
		passed := map[string]bool{}
		for _, a := range c.Args {
			passed[a.Key] = true
			if !declared[a.Key] && a.Key == "backoff" && c.Backoff == nil && n.Contract {
				// a backoff: that names no strategy stays an argument
				// (spec.callModifiers): say what it was meant to be
				out.Errorf(n.File, a.KeyPos, CodeUnknownArgument, "call %s: backoff: %s names no backoff strategy, so it is passed to %s, which declares no input \"backoff\": write backoff: none, linear or exponential",
					id.Name, strategyText(a.Value), id.Name)
				continue
			}
			if !declared[a.Key] {
				out.Errorf(n.File, a.KeyPos, CodeUnknownArgument, "call %s: %s declares no input %q%s (it takes %s)",
					id.Name, id.Name, a.Key, didYouMean(a.Key, append([]string(nil), names...)), strings.Join(names, ", "))
			}
		}
		for _, in := range cs.Inputs {
			if !passed[in.Name] && !in.Optional && !in.HasDefault {
				out.Errorf(n.File, id.NamePos, CodeMissingArgument, "call %s does not pass %s's input %q: add %s: VALUE under the call", id.Name, id.Name, in.Name, in.Name)
			}
		}
		return true
	})
	return out
}

// slotFunctionArguments checks each slot that instance p of pattern ps
// binds to a function or node (`critic: reviewer` under its with:)
// against the calls of that slot in the pattern's Delegation
// (spec.Spec.SlotArguments): an argument the function does not declare,
// while the call leaves one of its parameters out (lint/unknown-argument),
// would be dropped and the parameter it meant run as null; a parameter it
// requires that the call does not pass is lint/missing-argument. Each is
// reported at the with: line, naming the pattern's call. (A run refuses the same before it starts, and a
// --slot binding there too.)
func slotFunctionArguments(root *spec.Spec, p *spec.PatternInstance, ps *spec.Spec, f *spec.Finder) diag.List {
	b := ps.Body()
	if b == nil || b.Program == nil {
		return nil
	}
	var out diag.List
	for _, w := range p.With {
		if w.Target == "" {
			continue
		}
		c := root.ResolveCall(w.Target, nil, f)
		if c == nil {
			continue
		}
		fn := calleeSpec(c, f)
		if fn == nil || len(fn.Inputs) == 0 {
			continue
		}
		var names []string
		for _, in := range fn.Inputs {
			names = append(names, in.Name)
		}
		syntax.Walk(b.Program, func(x syntax.Node) bool {
			call, ok := x.(*syntax.CallExpr)
			if !ok {
				return true
			}
			id, ok := call.Target.(*syntax.Ident)
			if !ok || id.Name != w.Slot {
				return true
			}
			at := ps.File.Position(id.NamePos)
			keys := make([]string, len(call.Args))
			for i, a := range call.Args {
				keys[i] = a.Key
			}
			unknown, leftOut, required := fn.SlotArguments(keys)
			for _, k := range unknown {
				out.Errorf(root.File, w.Pos, CodeUnknownArgument, "pattern instance %s binds %s to %s, but %s's call %s (%s) passes %q, which %s does not declare%s (it takes %s, and the call leaves out %s): rename the parameter, or bind a function that takes the slot's arguments",
					p.Name, w.Slot, w.Target, ps.Name, w.Slot, at, k, w.Target, didYouMean(k, append([]string(nil), leftOut...)), strings.Join(names, ", "), strings.Join(leftOut, ", "))
			}
			for _, r := range required {
				out.Errorf(root.File, w.Pos, CodeMissingArgument, "pattern instance %s binds %s to %s, but %s's call %s (%s) does not pass %q, which %s requires: bind a function that takes the slot's arguments",
					p.Name, w.Slot, w.Target, ps.Name, w.Slot, at, r, w.Target)
			}
			return true
		})
	}
	return out
}

// instanceArguments reports each call of a ### Patterns instance that
// leaves out an input its pattern needs (lint/missing-argument): one it
// declares without a default or "optional", or one of its implied inputs
// that a slot requires (spec.ImpliedRequired). The instance passes the
// call's arguments through; one whose name the pattern's Delegation never
// mentions, and that names none of its inputs, slots or config keys, is
// lint/unknown-argument (decided, as upstream makes an unknown input an
// error): nothing would ever read it, and `tone: "dry"` would be dropped
// with exit 0.
func instanceArguments(n *spec.Spec, prog *syntax.Program, patterns map[string]*spec.Spec) diag.List {
	if len(patterns) == 0 {
		return nil
	}
	var out diag.List
	syntax.Walk(prog, func(x syntax.Node) bool {
		c, ok := x.(*syntax.CallExpr)
		if !ok {
			return true
		}
		id, ok := c.Target.(*syntax.Ident)
		if !ok || patterns[id.Name] == nil {
			return true
		}
		ps := patterns[id.Name]
		passed := map[string]bool{}
		for _, a := range c.Args {
			passed[a.Key] = true
			// Decided: the instance binds its pattern's slots (with:) and
			// config keys (config:, else their defaults) once for every
			// call; a call's argument of such a name was dropped, and the
			// run went on with the instance's value (max_rounds: 1 at the
			// call, three rounds run) with exit 0.
			if what, where := instanceBound(ps, a.Key); what != "" {
				out.Errorf(n.File, a.KeyPos, CodeUnknownArgument, "call %s passes %s, a %s of its pattern %s, which the instance binds for every call under its %s: write %s: VALUE there; a call cannot change it",
					id.Name, a.Key, what, ps.Name, where, a.Key)
			}
		}
		// the pattern's slots are bound by the instance's with: and its
		// config keys by its config: (or their defaults), though an
		// inputs block lists them (worker-critic's worker: string)
		bound := map[string]bool{}
		for _, sl := range ps.Slots {
			bound[sl.Name] = true
		}
		for _, cf := range ps.Config {
			bound[cf.Name] = true
		}
		var need []string
		for _, in := range ps.Inputs {
			if !in.Optional && !in.HasDefault && !bound[in.Name] {
				need = append(need, in.Name)
			}
		}
		need = append(need, ps.ImpliedRequired()...)
		for _, name := range need {
			if !passed[name] {
				out.Errorf(n.File, id.NamePos, CodeMissingArgument, "call %s does not pass %q, which its pattern %s needs: add %s: VALUE under the call", id.Name, name, ps.Name, name)
			}
		}
		if reads := delegationNames(ps); reads != nil {
			var takes []string
			for _, in := range ps.Inputs {
				bound[in.Name] = true
				takes = append(takes, in.Name)
			}
			for _, name := range ps.ImpliedInputs() {
				if !bound[name] {
					takes = append(takes, name)
				}
			}
			for _, a := range c.Args {
				if reads[a.Key] || bound[a.Key] {
					continue
				}
				it := "it reads no argument"
				if len(takes) > 0 {
					it = "it reads " + strings.Join(takes, ", ")
				}
				out.Errorf(n.File, a.KeyPos, CodeUnknownArgument, "call %s: its pattern %s never reads %q, so the value would be dropped%s (%s)",
					id.Name, ps.Name, a.Key, didYouMean(a.Key, append([]string(nil), takes...)), it)
			}
		}
		return true
	})
	return out
}

// instanceBound says whether name is a slot or a config key of pattern
// ps, which an instance binds rather than a call: what it is and the
// instance's section that binds it; "" when it is neither.
func instanceBound(ps *spec.Spec, name string) (what, where string) {
	for _, sl := range ps.Slots {
		if sl.Name == name {
			return "slot", "with:"
		}
	}
	for _, cf := range ps.Config {
		if cf.Name == name {
			return "config key", "config: (else its default)"
		}
	}
	return "", ""
}

// delegationNames are the names pattern ps's Delegation mentions (as a
// name, in braces, or among a natural condition's words), or nil when it
// has no Delegation to read (a rendered pattern takes what it is given)
// or reads a prior truth.
func delegationNames(ps *spec.Spec) map[string]bool {
	if ps.Delegation == nil || ps.Delegation.Program == nil || ps.PriorNames() != nil {
		return nil
	}
	names := map[string]bool{}
	syntax.Walk(ps.Delegation.Program, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.Ident:
			names[x.Name] = true
		case *syntax.NaturalCond:
			for _, w := range x.Words {
				first, _, _ := strings.Cut(w.Path, ".")
				names[first] = true
			}
		}
		return true
	})
	return names
}

// markOutputs sets syntax.CallExpr.Output on each call of a node (or
// sibling file) that declares one output: the evaluator matches the
// call's fallback to that output and reads v.OUT of a name bound to the
// call's value as the name itself, however often the name is re-bound
// (delegation/semantics.md, One-output callees).
func markOutputs(prog *syntax.Program, outputs map[string][]string) {
	syntax.Walk(prog, func(x syntax.Node) bool {
		if c, ok := x.(*syntax.CallExpr); ok {
			if id, ok := c.Target.(*syntax.Ident); ok && len(outputs[id.Name]) == 1 {
				c.Output = outputs[id.Name][0]
			}
		}
		return true
	})
}

// bound reports whether name is an input of the node (a service passed in).
func bound(d *check.Decls, name string) bool {
	for _, in := range d.Inputs {
		if in.Name == name {
			return true
		}
	}
	return false
}

type callTarget struct {
	name string
	pos  diag.Pos
}

// callTargets lists the bare-name targets of the program's calls, in
// order. Targets bound by the program itself (a loop variable over a list
// of services) are left to the checker.
func callTargets(prog *syntax.Program) []callTarget {
	locals := map[string]bool{}
	for _, x := range prog.Loops() {
		locals[x.Var.Name] = true
	}
	var out []callTarget
	syntax.Walk(prog, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && c.Session == nil { // a session's target is its model (callgraph)
			if id, ok := c.Target.(*syntax.Ident); ok && !locals[id.Name] {
				out = append(out, callTarget{id.Name, id.NamePos})
			}
		}
		return true
	})
	return out
}

func didYouMean(name string, cands []string) string {
	best := didyoumean.Closest(name, cands, len(name)/3)
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// instances checks the ### Patterns instances of a file: the pattern is
// found (a ## node of kind pattern, a sibling file, a std/ path) and is a
// pattern, each with: slot is one of its slots, each with: target
// resolves, and every slot of the pattern is bound.
func instances(s *spec.Spec, f *spec.Finder) diag.List {
	return instanceList(s, s.Patterns, f)
}

// instanceList checks instances, and the instances nested in their with:.
func instanceList(s *spec.Spec, list []*spec.PatternInstance, f *spec.Finder) diag.List {
	var out diag.List
	for _, p := range list {
		for _, w := range p.With {
			if w.Nested != nil {
				out = append(out, instanceList(s, []*spec.PatternInstance{w.Nested}, f)...)
			}
		}
		ps := patternOf(s, p.Pattern, f)
		if ps == nil {
			out.Errorf(s.File, p.Pos, CodeUnresolvedCall, "pattern instance %s: no pattern %q is beside this file or in the library%s",
				p.Name, p.Pattern, didYouMean(p.Pattern, s.SiblingNames(f)))
			continue
		}
		if ps.Kind != spec.KindPattern {
			out.Errorf(s.File, p.Pos, CodeUnresolvedCall, "pattern instance %s: %s is a %s, not a pattern", p.Name, p.Pattern, ps.Kind)
			continue
		}
		slots := map[string]bool{}
		var names []string
		for _, sl := range ps.Slots {
			slots[sl.Name] = true
			names = append(names, sl.Name)
		}
		bound := map[string]bool{}
		for _, w := range p.With {
			bound[w.Slot] = true
			if !slots[w.Slot] {
				out.Errorf(s.File, w.Pos, CodeUnresolvedCall, "pattern instance %s: %s has no slot %q%s", p.Name, p.Pattern, w.Slot, didYouMean(w.Slot, names))
				continue
			}
			if w.Target == "" {
				continue
			}
			if c := s.ResolveCall(w.Target, nil, f); c == nil {
				out.Errorf(s.File, w.Pos, CodeUnresolvedCall, "pattern instance %s: slot %s is bound to %q, which names no ## node, sibling file or std/ spec%s",
					p.Name, w.Slot, w.Target, didYouMean(w.Target, s.CallTargets(nil, f)))
			} else {
				twinCallee(s, w.Pos, fmt.Sprintf("pattern instance %s: slot %s", p.Name, w.Slot), c, f, &out)
			}
		}
		var keys []string
		for _, c := range ps.Config {
			keys = append(keys, c.Name)
		}
		for _, k := range sortedKeys(p.Config) {
			if !slices.Contains(keys, k) {
				out.Errorf(s.File, p.ConfigPos[k], CodeUnresolvedCall, "pattern instance %s: %s has no config key %q%s", p.Name, p.Pattern, k, didYouMean(k, append([]string(nil), keys...)))
				continue
			}
			out = append(out, instanceConfig(s, p, ps, k)...)
		}
		out = append(out, instanceMembers(s, p, ps, f)...)
		out = append(out, instanceRefusals(s, p, ps)...)
		for _, n := range names {
			if !bound[n] {
				out.Warnf(s.File, p.Pos, CodeUnboundSlot, "pattern instance %s leaves slot %s of %s unbound: add `%s: NODE` under with: (or bind it with --slot %s.%s=...)", p.Name, n, p.Pattern, n, p.Name, n)
			}
		}
	}
	return out
}

// instanceMembers checks the pattern ps's Delegation with the shapes of
// the nodes instance p binds to its slots (decided): a member of a slot's
// answer that the bound node cannot give (`verdict.acepted` where the
// judge is a node returning accepted and feedback) is
// lint/unknown-member, reported at the instance, since a run would read
// null there and take the wrong branch with exit 0 (a loop `until
// verdict.acepted` runs to its max). Only nodes with two or more declared
// outputs and no facets are followed: their answer is an object of
// exactly those keys, whatever the pattern, while a one-output node's
// answer is the output itself.
func instanceMembers(s *spec.Spec, p *spec.PatternInstance, ps *spec.Spec, f *spec.Finder) diag.List {
	if ps.Delegation == nil || ps.Delegation.Program == nil {
		return nil
	}
	d := ps.Decls()
	for _, w := range p.With {
		c := s.ResolveCall(w.Target, nil, f)
		if w.Target == "" || c == nil {
			continue
		}
		cs := calleeSpec(c, f)
		if cs == nil || len(cs.Outputs) < 2 {
			continue
		}
		ce := check.Callee{Name: w.Slot}
		closed := true
		for _, o := range cs.Outputs {
			closed = closed && !o.Facet && !o.Inferred
			ce.Outputs = append(ce.Outputs, check.Name{Name: o.Name, Pos: o.Pos, Type: o.Type})
		}
		if closed {
			d.Callees = append(d.Callees, ce)
		}
	}
	if len(d.Callees) == 0 {
		return nil
	}
	var out diag.List
	for _, x := range check.Check(ps.Delegation.Program, d) {
		if x.Code != check.CodeUnknownMember {
			continue
		}
		out.Errorf(s.File, p.Pos, check.CodeUnknownMember, "pattern instance %s: with the nodes it binds, %s: %s",
			p.Name, x.Position, x.Message)
	}
	return out
}

// instanceConfig checks the value an instance gives the config key k of
// its pattern ps as a run would take it: of the type ps declares, and,
// where ps's program uses k as a count or a timeout, one that use
// accepts. Both are reported at the instance's config line (a run would
// refuse the value only once the instance is called, or name the
// pattern's line).
func instanceConfig(s *spec.Spec, p *spec.PatternInstance, ps *spec.Spec, k string) diag.List {
	var out diag.List
	var c *spec.ConfigEntry
	for _, e := range ps.Config {
		if e.Name == k {
			c = e
			break
		}
	}
	given := p.Config[k]
	v, ok := spec.ConfigValue(c.Type, given)
	if !ok {
		out.Errorf(s.File, p.ConfigPos[k], CodeConfigValue, "pattern instance %s: config %s is %s, but %s declares it %s at %s: write %s",
			p.Name, k, configText(given), ps.Name, c.Type, ps.File.Position(c.Pos), spec.TypeArticle(c.Type))
		return out
	}
	body := ps.Body()
	if body == nil {
		return out
	}
	for _, u := range check.Uses(body.Program, []string{k}) {
		if check.DefaultFits(u, v) {
			continue
		}
		out.Errorf(s.File, p.ConfigPos[k], CodeConfigValue, "pattern instance %s: config %s is %s, which %s uses as %s at %s, where it must be %s",
			p.Name, k, configText(given), ps.Name, u.What, ps.File.Position(u.Pos), u.Want())
		break
	}
	return out
}

func configText(v any) string {
	if t, ok := v.(string); ok {
		return strconv.Quote(t)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// strategyText is how a backoff: value is shown: a bare word or a
// string as written, anything else as "this value".
func strategyText(x syntax.Expr) string {
	switch v := x.(type) {
	case *syntax.Ident:
		return v.Name
	case *syntax.StringLit:
		return strconv.Quote(v.Value)
	}
	return "this value"
}

// twinCallee reports a callee that several sibling files' front matter
// names (spec.Spec.SiblingTwins), at pos in n's file; what says which
// call.
func twinCallee(n *spec.Spec, pos diag.Pos, what string, c *spec.Callee, f *spec.Finder, out *diag.List) {
	twins := n.SiblingTwins(c, f)
	if len(twins) == 0 {
		return
	}
	files := []string{path.Base(c.Path)}
	for _, t := range twins {
		files = append(files, path.Base(t))
	}
	stems := make([]string, len(files))
	for i, fl := range files {
		stems[i] = strings.TrimSuffix(fl, spec.Suffix)
	}
	out.Errorf(n.File, pos, CodeTwinCallee, "%s: %s have name: %s, so which one is meant is not known: rename all but one, or name the file by its stem (%s)",
		what, listFiles(files), c.Name, strings.Join(stems, " or "))
}

// listFiles joins the names of two or more files that share something:
// "a and b both", "a, b and c all".
func listFiles(files []string) string {
	if len(files) == 2 {
		return files[0] + " and " + files[1] + " both"
	}
	return strings.Join(files[:len(files)-1], ", ") + " and " + files[len(files)-1] + " all"
}

// patternOf loads the pattern an instance names, or nil.
func patternOf(s *spec.Spec, name string, f *spec.Finder) *spec.Spec {
	if n := s.Node(name); n != nil {
		return n
	}
	c := s.ResolveCall(name, nil, f)
	if c == nil || c.Path == "" {
		return nil
	}
	if c.Kind == spec.CalleeStd {
		return stdSpec(c.Path, f)
	}
	ps, _, err := f.Load(c.Path)
	if err != nil {
		return nil
	}
	return ps
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// postconditionSlips reports the postconditions of n's ### Maintains that
// are meant to be decided by the data (`total` is at least 0: checked
// where the value is made, callgraph and the drain) but that nothing
// would check as written: the field is no output nor part n declares
// (`totl`), or the claim misspells a form (is at mots 100) and would
// be left to a render, which a node run by its Execution or a program
// does not have. Decided: the first is an error (lint/postcondition-field,
// as graph/postcondition is for a responsibility), the second a warning.
func postconditionSlips(n *spec.Spec) diag.List {
	if n.Truth == nil {
		return nil
	}
	var out diag.List
	var names []string
	for _, o := range n.Outputs {
		names = append(names, o.Name)
	}
	for _, c := range n.Truth.Postconditions {
		field, rest, ok := claim.FieldClaim(c.Text)
		if !ok {
			continue
		}
		near := nearForm(rest)
		if !decided(rest) && near == "" {
			continue // prose, for a render to police
		}
		if root, _, _ := strings.Cut(field, "."); len(names) > 0 && !slices.Contains(names, root) {
			out.Errorf(n.File, c.Pos, CodePostconditionField, "postcondition `%s` %s names %q, which %s does not give, so nothing checks it (it gives %s)%s",
				field, rest, root, n.Name, strings.Join(names, ", "), didYouMean(root, names))
			continue
		}
		if near != "" {
			out.Warnf(n.File, c.Pos, CodePostconditionSlip, "postcondition `%s` %s is no form prose decides, so it is left to a render, and a node run by its Execution or a program has none: did you mean `%s` %s?",
				field, rest, field, near)
		}
	}
	return out
}
