// This file reads and runs the `### Drains` section of a `kind: test`
// file: a test whose subject is a responsibility (or a gateway) and whose
// `### Drains` says, drain by drain, what to deliver and which nodes must
// render, skip or fail.
//
// # The form (decided)
//
// `### Drains` holds one YAML document (bare, or in a fenced block):
//
//	bind:
//	  "*": exec:./bus            # every node not named otherwise
//	  alert-projection: exec:./bus --plain
//	  digest.summarize: exec:./summarize   # a function an Execution calls
//	drains:
//	  - events: {counter-events: {id: e1, kind: click, value: 1}}
//	    rendered: all
//	  - events: {counter-events: {id: e1, kind: click, value: 1}}
//	    skipped: [counter-events]
//	  - ticks: [count-trend]
//	    skipped: [count-trend]
//	  - events: {counter-events: [{id: e3, kind: view, value: 5}]}
//	    fail: [alert-state]
//	    failed: [alert-state]
//	    rendered: [counter-events, count-summary]
//
// The test drains the subject's project (the directory holding the
// subject, as `prose run DIR` does) against a fresh state directory, one
// drain per item, in order. A drain item delivers
// `events` (gateway: an event or a list of them), wakes `ticks` by
// themselves, and makes the renders of `fail` fail (the test injects the
// failure; the node's prior truth must stand). Its expectations:
// `rendered`, `skipped` and `failed` list node ids (`all` for every node
// of the drained graph, `[]` for none); when any of them is given, the
// drain's receipts are exactly those, one per node, and every node not
// listed leaves no receipt. `programs: N` counts the programs started.
// Each drain item is one checked item of the test's report.
//
// Fixtures that name the subject's Requires items seed them: those
// inputs come from the fixtures, not from their producers, and only the
// subject and what it still reaches upstream are drained (a unit test of
// one responsibility). After the
// last drain the subject's published truth is what Expects and Expects
// Not judge (null when it never rendered).
//
// `bind:` holds the same bindings as `prose run DIR --slot` (ParseBindings,
// run.ParseBinding), prepared by the same Prepare, so a node's contract
// fingerprint is the same under `prose test` and `prose run`: a node
// renders by its entry (its id, else "*"), exec:COMMAND run in the test
// file's directory; a node with a runnable ### Execution and no entry
// runs it on the interpreter, its callees bound by `NODE.CALLEE` entries.
// No model is configured for a test's drains.

package drain

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// SectionKey is the key of the section that makes a test a world test.
const SectionKey = "drains"

// CodeDrains is the code of a ### Drains section that does not read.
const CodeDrains = "test/drains"

// Test is a test file's ### Drains.
type Test struct {
	File   *diag.File
	Bind   map[string]string
	Drains []*Item
	// BindPos is where each key of Bind is written.
	BindPos map[string]diag.Pos
}

// Item is one drain item.
type Item struct {
	Pos    diag.Pos
	Events map[string][]any
	Ticks  []string
	Fail   []string
	// Expect maps rendered, skipped and failed to their node ids (nil
	// for `all`); empty when the item expects nothing of the receipts.
	Expect   map[receipt.Status][]string
	Programs *int
	// Names are the node names the item writes (events' gateways, ticks,
	// fail and the expectations), each where it is written, in order.
	Names []Named
}

// Named is a node name as a drain item writes it.
type Named struct {
	Name string
	Pos  diag.Pos
}

// HasTest reports whether the test file sp has a ### Drains section.
func HasTest(sp *spec.Spec) bool { return section(sp) != nil }

func section(sp *spec.Spec) *spec.Section {
	for _, s := range sp.Sections {
		if strings.EqualFold(strings.TrimSpace(s.Heading), SectionKey) {
			return s
		}
	}
	return nil
}

// ParseTest reads sp's ### Drains; nil (and no diagnostics) when it has
// none.
func ParseTest(sp *spec.Spec) (*Test, diag.List) {
	sec := section(sp)
	if sec == nil {
		return nil, nil
	}
	var diags diag.List
	body, off := yamlBody(sec)
	at := func(n *yaml.Node) diag.Pos {
		if n == nil {
			return sec.Pos
		}
		return lineCol(sp.File, off, n.Line, n.Column)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(body), &doc); err != nil {
		diags.Errorf(sp.File, sec.Pos, CodeDrains, "### Drains is not YAML (%v): write bind: and drains: as the package documentation shows", err)
		return nil, diags
	}
	t := &Test{File: sp.File, Bind: map[string]string{}, BindPos: map[string]diag.Pos{}}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		diags.Errorf(sp.File, sec.Pos, CodeDrains, "### Drains: want a mapping with drains: (a list of drains) and an optional bind:")
		return nil, diags
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch k.Value {
		case "bind":
			if v.Kind != yaml.MappingNode {
				diags.Errorf(sp.File, at(v), CodeDrains, "bind: want a mapping of NODE: BINDING")
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				t.Bind[v.Content[j].Value] = v.Content[j+1].Value
				t.BindPos[v.Content[j].Value] = at(v.Content[j])
			}
		case "drains":
			if v.Kind != yaml.SequenceNode {
				diags.Errorf(sp.File, at(v), CodeDrains, "drains: want a list, one item per drain")
				continue
			}
			for _, it := range v.Content {
				if d := parseDrain(it, at, sp.File, &diags); d != nil {
					t.Drains = append(t.Drains, d)
				}
			}
		default:
			diags.Errorf(sp.File, at(k), CodeDrains, "### Drains: unknown key %q (want bind or drains)", k.Value)
		}
	}
	if len(t.Drains) == 0 && !diags.HasErrors() {
		diags.Errorf(sp.File, sec.Pos, CodeDrains, "### Drains has no drain: add drains: with at least one item")
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return t, nil
}

// yamlBody is the section's YAML (the fenced block's when there is one)
// and the offset of its first byte.
func yamlBody(sec *spec.Section) (string, int) {
	body, off := sec.Body, int(sec.BodyPos)
	lines := strings.SplitAfter(body, "\n")
	start, pos := -1, 0
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			if start < 0 {
				start = pos + len(l)
				pos += len(l)
				continue
			}
			return body[start:pos], off + start
		}
		pos += len(l)
	}
	return body, off
}

func lineCol(f *diag.File, off, line, col int) diag.Pos {
	src := string(f.Source())
	p := off
	for l := 1; l < line && p < len(src); l++ {
		i := strings.IndexByte(src[p:], '\n')
		if i < 0 {
			break
		}
		p += i + 1
	}
	return diag.Pos(p + col - 1)
}

func parseDrain(n *yaml.Node, at func(*yaml.Node) diag.Pos, f *diag.File, diags *diag.List) *Item {
	d := &Item{Pos: at(n), Events: map[string][]any{}, Expect: map[receipt.Status][]string{}}
	if n.Kind != yaml.MappingNode {
		diags.Errorf(f, at(n), CodeDrains, "a drain is a mapping: events:, ticks:, fail:, rendered:, skipped:, failed:, programs:")
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "events":
			var evs map[string]any
			if err := v.Decode(&evs); err != nil || v.Kind != yaml.MappingNode {
				diags.Errorf(f, at(v), CodeDrains, "events: want a mapping of GATEWAY: EVENT (or a list of events)")
				continue
			}
			for g, e := range evs {
				if l, ok := e.([]any); ok {
					d.Events[g] = l
				} else {
					d.Events[g] = []any{e}
				}
			}
			for j := 0; j < len(v.Content); j += 2 {
				d.Names = append(d.Names, Named{v.Content[j].Value, at(v.Content[j])})
			}
		case "ticks", "fail":
			ids, ok := idList(v)
			if !ok || ids == nil {
				diags.Errorf(f, at(v), CodeDrains, "%s: want a node id or a list of node ids", k.Value)
				continue
			}
			d.Names = append(d.Names, named(v, at)...)
			if k.Value == "ticks" {
				d.Ticks = ids
			} else {
				d.Fail = ids
			}
		case string(receipt.Rendered), string(receipt.Skipped), string(receipt.Failed):
			if v.Kind == yaml.ScalarNode && v.Value == "all" {
				d.Expect[receipt.Status(k.Value)] = nil
				continue
			}
			ids, ok := idList(v)
			if !ok {
				diags.Errorf(f, at(v), CodeDrains, "%s: want all, or a list of node ids", k.Value)
				continue
			}
			d.Names = append(d.Names, named(v, at)...)
			if ids == nil {
				ids = []string{}
			}
			d.Expect[receipt.Status(k.Value)] = ids
		case "programs":
			var p int
			if err := v.Decode(&p); err != nil {
				diags.Errorf(f, at(v), CodeDrains, "programs: want a number")
				continue
			}
			d.Programs = &p
		default:
			diags.Errorf(f, at(k), CodeDrains, "a drain has no key %q (want events, ticks, fail, rendered, skipped, failed, programs)", k.Value)
		}
	}
	return d
}

// named are the names of a node id or list of them (idList), each
// where it is written.
func named(v *yaml.Node, at func(*yaml.Node) diag.Pos) []Named {
	if v.Kind == yaml.ScalarNode {
		return []Named{{v.Value, at(v)}}
	}
	var out []Named
	for _, e := range v.Content {
		out = append(out, Named{e.Value, at(e)})
	}
	return out
}

func idList(v *yaml.Node) ([]string, bool) {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Value == "" {
			return nil, false
		}
		return []string{v.Value}, true
	case yaml.SequenceNode:
		var out []string
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode {
				return nil, false
			}
			out = append(out, e.Value)
		}
		return out, true
	}
	return nil, false
}

// TestOptions configure RunTest.
type TestOptions struct {
	// Dir is the test file's directory: exec commands run there.
	Dir string
	// State is the state directory, fresh for the test.
	State string
	// Seeds are the fixtures that name the subject's inputs.
	Seeds map[string]any
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Check is one drain item's outcome.
type Check struct {
	Text     string
	Pos      diag.Pos
	OK       bool
	Observed string
}

// RunTest drains the subject's project as t says. truth is the subject's
// published truth after the last drain; err is for a test that cannot
// run (a graph with errors, a node with no binding, an unknown id).
func RunTest(ctx context.Context, t *Test, subjectPath string, o TestOptions) (truth any, checks []Check, err error) {
	g, diags, err := graph.Load(filepath.Dir(subjectPath))
	if err != nil {
		return nil, nil, err
	}
	subject := subjectID(g, subjectPath)
	diags = g.Given(diags, func(node, input string) bool {
		_, ok := o.Seeds[input]
		return node == subject && ok
	})
	if diags.HasErrors() {
		return nil, nil, errors.New(strings.TrimRight(diags.Errors().String(), "\n"))
	}
	var seeds []string
	for k := range o.Seeds {
		seeds = append(seeds, k)
	}
	sort.Strings(seeds)
	if len(seeds) > 0 {
		if unknown := g.Seed(subject, seeds); len(unknown) > 0 {
			return nil, nil, fmt.Errorf("fixtures %s name no Requires item of %s", strings.Join(unknown, ", "), subject)
		}
	}
	if err := t.checkIDs(g); err != nil {
		return nil, nil, err
	}
	t.toIDs(g)
	p, err := t.prepare(g, o.Dir)
	if err != nil {
		return nil, nil, err
	}
	st, err := store.Open(o.State)
	if err != nil {
		return nil, nil, err
	}
	p.State = st.Dir
	now := o.Now
	if now == nil {
		now = time.Now
	}
	for i, d := range t.Drains {
		fail := map[string]bool{}
		for _, id := range d.Fail {
			fail[id] = true
		}
		res, err := p.run(ctx, Input{Store: st, Events: d.Events, Ticks: d.Ticks, Now: now, MaxParallel: 1,
			CallerInputs: map[string]map[string]any{subject: o.Seeds}},
			func(n *graph.Node) (reconcile.Renderer, error) {
				if fail[n.ID] {
					return failing{}, nil
				}
				return p.Renderer(n)
			})
		if err != nil {
			return nil, checks, fmt.Errorf("drain %d: %v", i+1, err)
		}
		checks = append(checks, d.check(i+1, g, res))
	}
	last, err := st.Last(subject)
	if err != nil || last == nil || last.Version == "" {
		return nil, checks, err
	}
	truth, err = st.Version(subject, last.Version)
	return truth, checks, err
}

func subjectID(g *graph.Graph, path string) string {
	abs, _ := filepath.Abs(path)
	for _, n := range g.Nodes {
		if p, _ := filepath.Abs(n.Path); p == abs {
			return n.ID
		}
	}
	if len(g.Nodes) > 0 {
		return g.Nodes[len(g.Nodes)-1].ID
	}
	return ""
}

// checkIDs refuses node names the graph does not hold, at the first
// of them, with the nodes it holds and the one meant; and events that do
// not fit their gateway, at the gateway's name.
func (t *Test) checkIDs(g *graph.Graph) error {
	var bad []Named
	seen := func(n Named) {
		if g.Node(n.Name) != nil {
			return
		}
		for _, b := range bad {
			if b.Name == n.Name {
				return
			}
		}
		bad = append(bad, n)
	}
	var keys []Named
	for k := range t.Bind {
		if k != "*" {
			id, _, _ := strings.Cut(k, ".")
			keys = append(keys, Named{id, t.BindPos[k]})
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Pos < keys[j].Pos })
	for _, k := range keys {
		seen(k)
	}
	for _, d := range t.Drains {
		for _, n := range d.Names {
			seen(n)
		}
	}
	if len(bad) == 0 {
		// An event that does not fit its gateway's ### Receives is
		// refused as prose run --event refuses it.
		for i, d := range t.Drains {
			for _, k := range sortedKeys(d.Events) {
				for _, e := range d.Events[k] {
					if err := g.Node(k).CheckEvent(e); err != nil {
						return fmt.Errorf("%s: ### Drains, drain %d, events of %s: %v", t.File.Position(d.posOf(k)), i+1, k, err)
					}
				}
			}
		}
		return nil
	}
	var labels, names []string
	for _, n := range g.Nodes {
		labels = append(labels, n.Label())
		names = append(names, n.ID)
		if n.Name != "" && n.Name != n.ID {
			names = append(names, n.Name)
		}
	}
	sort.Strings(labels)
	first := bad[0]
	msg := fmt.Sprintf("%s: ### Drains names %q, which is no node of the drained graph", t.File.Position(first.Pos), first.Name)
	if near := nearestNode(first.Name, names); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	msg += fmt.Sprintf(" (its nodes: %s)", strings.Join(labels, ", "))
	for _, b := range bad[1:] {
		p := t.File.Position(b.Pos)
		msg += fmt.Sprintf("; so is %q (%d:%d)", b.Name, p.Line, p.Col)
	}
	return errors.New(msg)
}

// toIDs rewrites the node names of t's drain items as the ids of the
// nodes they name (a node is named by its id or its name, as with
// --event and --tick), since a drain keys events, ticks, injected
// failures and receipts by id: a name left as written delivered
// nothing and never matched a receipt. The names are checked first
// (checkIDs).
func (t *Test) toIDs(g *graph.Graph) {
	id := func(name string) string {
		if n := g.Node(name); n != nil {
			return n.ID
		}
		return name
	}
	ids := func(l []string) []string {
		if l == nil {
			return nil
		}
		out := make([]string, len(l))
		for i, x := range l {
			out[i] = id(x)
		}
		return out
	}
	for _, d := range t.Drains {
		evs := map[string][]any{}
		for _, k := range sortedKeys(d.Events) {
			evs[id(k)] = append(evs[id(k)], d.Events[k]...)
		}
		d.Events, d.Ticks, d.Fail = evs, ids(d.Ticks), ids(d.Fail)
		for st, l := range d.Expect {
			d.Expect[st] = ids(l)
		}
	}
}

// posOf is where the item first writes the node name, else the item.
func (d *Item) posOf(name string) diag.Pos {
	for _, n := range d.Names {
		if n.Name == name {
			return n.Pos
		}
	}
	return d.Pos
}

// nearestNode is the node name name most likely misspells, or "".
func nearestNode(name string, names []string) string {
	return didyoumean.Matcher{Fold: strings.ToLower}.Closest(name, names)
}

// prepare assembles the test's drain from its bind: entries, as prose
// run DIR does from --slot: a node with nothing to render it is named
// with the entry that would.
func (t *Test) prepare(g *graph.Graph, dir string) (*Prepared, error) {
	var as []run.Assignment
	for k, v := range t.Bind {
		as = append(as, run.Assignment{Name: k, Value: v})
	}
	sort.Slice(as, func(i, j int) bool { return as[i].Name < as[j].Name })
	b, err := ParseBindings(g, "bind", as)
	if err != nil {
		return nil, err
	}
	for _, a := range as {
		if r, err := run.ParseBinding(a.Value); err == nil && !strings.Contains(a.Name, ".") {
			if _, isModel := r.(run.Model); isModel {
				return nil, fmt.Errorf("bind %s: %s: a test's drains have no model; bind the node to a program (exec:COMMAND)", a.Name, a.Value)
			}
		}
	}
	p, err := Prepare(g, b, Config{Dir: dir})
	var unbound *UnboundError
	var callees *UnboundCalleesError
	switch {
	case errors.As(err, &unbound):
		id := unbound.Nodes[0]
		return nil, fmt.Errorf("node %s has no ### Execution to run and no binding: add %s: exec:COMMAND (or \"*\") under bind: in ### Drains", id, id)
	case errors.As(err, &callees):
		return nil, fmt.Errorf("the functions %s that an Execution calls are rendered by a model, and a test's drains have none: bind each under bind: in ### Drains (%s: exec:COMMAND)", strings.Join(callees.Callees, ", "), callees.Callees[0])
	}
	return p, err
}

// failing is the render of a node the drain item makes fail.
type failing struct{}

func (failing) Render(context.Context, *reconcile.Request) (*reconcile.Answer, error) {
	return &reconcile.Answer{}, errors.New("failed by the test (fail:)")
}

// check compares a drain's receipts with the item's expectations.
func (d *Item) check(i int, g *graph.Graph, res *reconcile.Result) Check {
	got := map[receipt.Status][]string{}
	count := map[string]int{}
	for _, r := range res.Receipts {
		got[r.Status] = append(got[r.Status], r.Node)
		count[r.Node]++
	}
	observed := fmt.Sprintf("rendered %s, skipped %s, failed %s; %d programs",
		list(got[receipt.Rendered]), list(got[receipt.Skipped]), list(got[receipt.Failed]), res.Programs)
	c := Check{Pos: d.Pos, OK: true, Observed: observed}
	var want []string
	if len(d.Expect) > 0 {
		for _, st := range []receipt.Status{receipt.Rendered, receipt.Skipped, receipt.Failed} {
			ids, given := d.Expect[st]
			if given && ids == nil {
				for _, n := range g.Nodes {
					ids = append(ids, n.ID)
				}
			}
			if given {
				want = append(want, string(st)+" "+list(ids))
			}
			if !sameSet(ids, got[st]) {
				c.OK = false
			}
		}
		for n, k := range count {
			if k > 1 {
				c.OK = false
				c.Observed += fmt.Sprintf("; %s has %d receipts", n, k)
			}
		}
	}
	if d.Programs != nil {
		want = append(want, fmt.Sprintf("%d programs", *d.Programs))
		if res.Programs != *d.Programs {
			c.OK = false
		}
	}
	if len(want) == 0 {
		want = []string{"runs"}
	}
	c.Text = fmt.Sprintf("drain %d %s", i, strings.Join(want, ", "))
	return c
}

func list(ids []string) string {
	s := append([]string(nil), ids...)
	sort.Strings(s)
	return "[" + strings.Join(s, ", ") + "]"
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x := append([]string(nil), a...)
	y := append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string][]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
