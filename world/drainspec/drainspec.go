// Package drainspec reads the `### Drains` section of a `kind: test`
// file (a test whose subject is a responsibility or a gateway, drained
// drain by drain: package drain runs it) and checks the nodes it names
// against the subject's graph, so that lint reports what prose test
// would refuse, at the same place.
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
// A drain item delivers `events` (gateway: an event or a list of them),
// wakes `ticks` by themselves, and makes the renders of `fail` fail. Its
// expectations: `rendered`, `skipped` and `failed` list nodes (`all` for
// every node of the drained graph, `[]` for none); `programs: N` counts
// the programs started. A node is named by its id or its name.
package drainspec

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/graph"
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
	Expect   map[string][]string
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
	d := &Item{Pos: at(n), Events: map[string][]any{}, Expect: map[string][]string{}}
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
		case "rendered", "skipped", "failed": // the statuses of package receipt
			if v.Kind == yaml.ScalarNode && v.Value == "all" {
				d.Expect[k.Value] = nil
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
			d.Expect[k.Value] = ids
		case "programs":
			var p int
			if err := v.Decode(&p); err != nil {
				diags.Errorf(f, at(v), CodeDrains, "programs: want a number")
				continue
			}
			d.Programs = &p
		default:
			keys := []string{"events", "ticks", "fail", "rendered", "skipped", "failed", "programs"}
			hint := ""
			if near := didyoumean.Closest(k.Value, keys, max(1, len(k.Value)/3)); near != "" {
				hint = fmt.Sprintf("; did you mean %q?", near)
			}
			diags.Errorf(f, at(k), CodeDrains, "a drain has no key %q (want %s)%s", k.Value, strings.Join(keys, ", "), hint)
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

// CheckNames refuses node names the graph g does not hold, at the first
// of them, with the nodes it holds and the one meant; and events that do
// not fit their gateway, at the gateway's name.
func (t *Test) CheckNames(g *graph.Graph) diag.List {
	var diags diag.List
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
				if n := g.Node(k); n.Kind != spec.KindGateway {
					// a drain delivers events to gateways only: a
					// responsibility's would be dropped, and the test
					// pass on events nothing received
					diags.Errorf(t.File, d.PosOf(k), CodeDrains, "### Drains, drain %d, delivers events to %s, a %s, and events are delivered to gateways only: make it kind: gateway, or deliver them to the gateway that feeds it", i+1, n.Label(), n.Kind)
					return diags
				}
				for _, e := range d.Events[k] {
					if err := g.Node(k).CheckEvent(e); err != nil {
						diags.Errorf(t.File, d.PosOf(k), CodeDrains, "### Drains, drain %d, events of %s: %v", i+1, k, err)
						return diags
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
	msg := fmt.Sprintf("### Drains names %q, which is no node of the drained graph", first.Name)
	if near := nearestNode(first.Name, names); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	msg += fmt.Sprintf(" (its nodes: %s)", strings.Join(labels, ", "))
	for _, b := range bad[1:] {
		p := t.File.Position(b.Pos)
		msg += fmt.Sprintf("; so is %q (%d:%d)", b.Name, p.Line, p.Col)
	}
	diags.Errorf(t.File, first.Pos, CodeDrains, "%s", msg)
	return diags
}

// PosOf is where the item first writes the node name, else the item.
func (d *Item) PosOf(name string) diag.Pos {
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

func sortedKeys(m map[string][]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Lint is what prose test refuses of the ### Drains of the test file at
// path before the first drain, for prose lint: a section that does not
// read, and the nodes it names that the subject's graph lacks (as
// CheckNames). Nil for a file that is no test with ### Drains, or whose
// subject or graph cannot be read (lint reports those otherwise).
func Lint(path string) diag.List {
	sp, _, err := spec.Load(path)
	if err != nil || sp == nil || sp.Kind != spec.KindTest {
		return nil
	}
	t, diags := ParseTest(sp)
	if t == nil {
		return diags
	}
	tf, _ := spec.ReadTest(sp)
	abs, err := filepath.Abs(path)
	if err != nil || tf == nil || tf.Subject == "" {
		return nil
	}
	subject := spec.ResolveSubject(osFS{}, abs, tf.Subject)
	if subject == "" {
		return nil
	}
	g, _, err := graph.Load(filepath.Dir(subject))
	if err != nil {
		return nil
	}
	diags = t.CheckNames(g)
	if id := SubjectID(g, subject); id != "" {
		diags = append(diags, SeedFields(sp.File, tf.Fixtures, g, id)...)
	}
	return diags
}

// CodeSeed is a fixture that seeds a subject's input with a value its
// producer's truth could not be.
const CodeSeed = "test/seed"

// SeedFields checks the fixtures that seed a Requires item of the subject
// that reads a producer's whole truth (exactly its declared fields): an
// object with a key the producer does not maintain seeds a truth no
// drain would publish, and the subject reads null where the author
// meant a value (`{"hihg": 150}` for `high`). Call it before graph.Seed
// takes the seeded edges out.
func SeedFields(f *diag.File, fixtures []*spec.Fixture, g *graph.Graph, subject string) diag.List {
	var diags diag.List
	n := g.Node(subject)
	if n == nil {
		return nil
	}
	for _, fx := range fixtures {
		obj, isObj := fx.Value.(map[string]any)
		if !isObj || !fx.JSON {
			continue
		}
		p, fields, ok := g.WholeTruth(n, fx.Name)
		if !ok {
			continue
		}
		var keys []string
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if contains(fields, k) {
				continue
			}
			msg := fmt.Sprintf("fixture %q seeds the whole truth of %s, whose ### Maintains declares %s: %q is none of them, so %s would read null there", fx.Name, p.Label(), strings.Join(fields, ", "), k, subject)
			if near := didyoumean.Closest(k, fields, max(1, len(k)/3)); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			} else {
				msg += "; give the fields it declares"
			}
			diags.Errorf(f, fx.Pos, CodeSeed, "%s", msg)
		}
	}
	return diags
}

// SubjectID is the id of the node of g whose file is path (the test's
// subject), else the last node's, else "".
func SubjectID(g *graph.Graph, path string) string {
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

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// osFS opens the operating system's files by absolute path.
type osFS struct{}

func (osFS) Open(name string) (fs.File, error) { return os.Open(name) }
