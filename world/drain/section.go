// This file runs the `### Drains` section of a `kind: test`
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

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/drainspec"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/store"
)

// The section's form, and the check of the nodes it names, are package
// drainspec's (lint reads them too); this file runs it.

// Test is a test file's ### Drains (drainspec.Test).
type Test = drainspec.Test

// Item is one drain item (drainspec.Item).
type Item = drainspec.Item

// SectionKey is the key of the section that makes a test a world test.
const SectionKey = drainspec.SectionKey

// CodeDrains is the code of a ### Drains section that does not read.
const CodeDrains = drainspec.CodeDrains

// HasTest reports whether the test file sp has a ### Drains section.
func HasTest(sp *spec.Spec) bool { return drainspec.HasTest(sp) }

// ParseTest reads sp's ### Drains; nil (and no diagnostics) when it has
// none.
func ParseTest(sp *spec.Spec) (*Test, diag.List) { return drainspec.ParseTest(sp) }

// TestOptions configure RunTest.
type TestOptions struct {
	// Dir is the test file's directory: exec commands run there.
	Dir string
	// State is the state directory, fresh for the test.
	State string
	// Seeds are the fixtures that name the subject's inputs.
	Seeds map[string]any
	// Fixtures are the test's fixtures as written, with their positions,
	// for the check of the seeds (drainspec.SeedFields); nil: none.
	Fixtures []*spec.Fixture
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
	subject := drainspec.SubjectID(g, subjectPath)
	diags = g.Given(diags, func(node, input string) bool {
		_, ok := o.Seeds[input]
		return node == subject && ok
	})
	if diags.HasErrors() {
		return nil, nil, errors.New(strings.TrimRight(diags.Errors().String(), "\n"))
	}
	if ds := drainspec.SeedFields(t.File, o.Fixtures, g, subject); ds.HasErrors() {
		return nil, nil, errors.New(strings.TrimRight(ds.Errors().String(), "\n"))
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
	if ds := t.CheckNames(g); ds.HasErrors() {
		return nil, nil, errors.New(strings.TrimRight(ds.Errors().String(), "\n"))
	}
	drains := toIDs(t, g)
	p, err := prepareTest(t, g, o.Dir)
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
	for i, d := range drains {
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
		checks = append(checks, checkItem(d, i+1, g, res))
	}
	last, err := st.Last(subject)
	if err != nil || last == nil || last.Version == "" {
		return nil, checks, err
	}
	truth, err = st.Version(subject, last.Version)
	return truth, checks, err
}

// toIDs is t's drain items with their node names written as the ids of
// the nodes they name (a node is named by its id or its name, as with
// --event and --tick), since a drain keys events, ticks, injected
// failures and receipts by id: a name left as written delivered
// nothing and never matched a receipt. The names are checked first
// (Test.CheckNames). The items are copies: t is shared by the fixture
// cases of a test file, which run at once.
func toIDs(t *Test, g *graph.Graph) []*Item {
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
	out := make([]*Item, len(t.Drains))
	for i, d := range t.Drains {
		c := *d
		c.Events = map[string][]any{}
		for _, k := range sortedKeys(d.Events) {
			c.Events[id(k)] = append(c.Events[id(k)], d.Events[k]...)
		}
		c.Ticks, c.Fail = ids(d.Ticks), ids(d.Fail)
		if d.Expect != nil {
			c.Expect = make(map[string][]string, len(d.Expect))
			for st, l := range d.Expect {
				c.Expect[st] = ids(l)
			}
		}
		out[i] = &c
	}
	return out
}

// prepare assembles the test's drain from its bind: entries, as prose
// run DIR does from --slot: a node with nothing to render it is named
// with the entry that would.
func prepareTest(t *Test, g *graph.Graph, dir string) (*Prepared, error) {
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
func checkItem(d *Item, i int, g *graph.Graph, res *reconcile.Result) Check {
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
			ids, given := d.Expect[string(st)]
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
		for _, n := range sortedCounts(count) {
			if k := count[n]; k > 1 {
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
	if !c.OK {
		// Why a render failed that the item did not make fail: the
		// report would else say only that it did.
		injected := map[string]bool{}
		for _, id := range d.Fail {
			injected[id] = true
		}
		for _, r := range res.Receipts {
			if r.Status == receipt.Failed && r.Reason != "" && !injected[r.Node] {
				reason, _, _ := strings.Cut(r.Reason, "\n")
				c.Observed += fmt.Sprintf("; %s failed: %s", r.Node, reason)
			}
		}
	}
	c.Text = fmt.Sprintf("drain %d %s", i, strings.Join(want, ", "))
	return c
}

// sortedCounts are the keys of m, sorted.
func sortedCounts(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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
