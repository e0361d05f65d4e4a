// Package graph loads a project's responsibilities and gateways and wires
// them into one graph, deterministically.
//
// Load takes a directory (walked recursively, skipping dot-directories,
// node_modules and files that are not regular) or a root file (with what
// its Requires reach in its directory). Every responsibility and gateway
// is a Node, and so is an inline `## name` node that is a responsibility
// by its own sections (inline.go); functions stay stateless callees and
// are no nodes. Each
// ### Requires item is bound by Wire's rules (wire.go) to a producer's
// truth or one of its parts, giving the Edges; an item none binds is a
// diagnostic at its line (an input nothing maintains is an error unless
// the caller gives it: Given). Format prints the graph as
// text, JSON, Graphviz dot or Mermaid (format.go).
//
// Explain quotes the words that decided each edge into a node
// (explain.go); Lint is what `prose lint DIR` adds; ids.go holds identity:
// ids checked as Crockford base32, AddIDs for `prose fix --ids`.
//
// Main types: Graph, Node, Edge, Item. Entry points: Load, Lint, AddIDs,
// (*Graph).Format, (*Graph).Explain, (*Graph).Node (by id or name).
package graph

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/specgraph"
)

// Atomic names a node's whole truth as a subscribed part.
const Atomic = "@atomic"

// Wake sources of a node.
const (
	WakeInput    = "input"
	WakeSelf     = "self"
	WakeExternal = "external"
)

// Graph is a wired project.
type Graph struct {
	// Root is the directory the node files are relative to.
	Root string
	// Nodes are the responsibilities and gateways, in topological order:
	// by height (the longest path from an entry point), then by id.
	Nodes []*Node
	// Edges are the bound Requires items, sorted by subscriber order,
	// then input, then producer, then facet.
	Edges []*Edge
	// Wiring is the committed wiring file that was read, or nil.
	Wiring *Wiring
	// Unresolved are the Requires items no rule bound, in node order:
	// what `prose graph --propose` asks a model to wire.
	Unresolved []*Unresolved
	// Cyclic is true when a Requires item closed a cycle: its edge was
	// reported (graph/cycle) and dropped, so Edges are acyclic but not
	// the project's wiring.
	Cyclic bool
	// Specs is the spec graph the node files were read through: a drain
	// loads every spec file it reaches from it, so each is read once.
	Specs *specgraph.Graph

	byID map[string]*Node
	// funcs are the names of the project's function files: called, not
	// wired (an item naming one is told so).
	funcs map[string]bool
	// fileNamed is the first node added of each name that is a file's
	// own (add's check of a name two files give, without a scan of
	// every node before).
	fileNamed map[string]*Node
	// byFold is each node by its id in lower case (add's check of two
	// ids one letter case apart).
	byFold map[string]*Node
	// in indexes Edges by subscriber (indexIn), built from the slice
	// inOf: In scans Edges when they have changed since.
	in   map[string][]*Edge
	inOf []*Edge
	// readers indexes, once (FacetReaders), the subscribers of each
	// producer's parts.
	readersOnce sync.Once
	readers     map[string]map[string][]string
}

// Node is one responsibility or gateway.
type Node struct {
	// ID is the front matter id, else name, else the file stem.
	ID    string
	Name  string
	Title string
	Kind  spec.Kind // spec.KindResponsibility or spec.KindGateway
	// File is the file's path relative to the graph's root, with slashes.
	File string
	// Path is the file's path as loaded.
	Path string
	Spec *spec.Spec
	// Wake is where wakes come from: external (a gateway), self (a
	// self-driven Continuity) or input.
	Wake string
	// Facets are the names of the truth's `####` parts.
	Facets []string
	// Families are the truth's facet families (`#### eligible:<login>`):
	// one facet per key, each a member `eligible:KEY` of the truth.
	Families []string
	// Fields are the truth's declared fields.
	Fields []string
	// Items are the Requires items, in order.
	Items []*Item
	// Events is the shape of a gateway's events its ### Receives
	// declares (receives.go), or nil.
	Events *EventShape
	// routes are the HTTP routes a gateway's ### Receives declares
	// (routes.go; Routes).
	routes []Route
	// CallerInputs are the items nothing maintains: each an error of
	// the graph unless the caller gives it (Given).
	CallerInputs []string
	// Height is 0 for a node nothing feeds, else one more than its
	// highest producer.
	Height int

	// memo holds values derived from the node (Memo).
	memo sync.Map
}

// Memo returns the value derived from n under key, computing it with f
// the first time: a node does not change once its graph is loaded, so
// what is computed from it (a contract fingerprint) is computed once
// for as long as the graph is kept. key must name everything else f
// reads.
func (n *Node) Memo(key string, f func() (any, error)) (any, error) {
	if v, ok := n.memo.Load(key); ok {
		return v, nil
	}
	v, err := f()
	if err != nil {
		return nil, err
	}
	v, _ = n.memo.LoadOrStore(key, v)
	return v, nil
}

// Edge is one bound Requires item: Subscriber's input Input is
// Producer's part Facet (Atomic for the whole truth).
type Edge struct {
	Subscriber, Input, Producer, Facet string
	// Rule is the rule that drew it: "explicit", "name", "reference",
	// "wiring", or "read" for a read_world_model("NODE") of the
	// Execution (reads.go).
	Rule string
	// Why quotes the words of the item that decided the edge: what
	// `prose graph --explain` prints.
	Why string
	Pos diag.Position
	pos diag.Pos
}

// Unresolved is a Requires item no rule bound.
type Unresolved struct {
	Node string
	Item *Item
	Pos  diag.Position
	// Why is CodeUnsatisfied, CodeAmbiguous or CodeUnmaintained (an
	// input nothing maintains: the caller may give it).
	Why string
	// Candidates are the producer.part an ambiguous item could be.
	Candidates []string
}

// Item is one ### Requires item of a node.
type Item struct {
	// Name is the item's name: its key (`name`: text), or the first
	// backticked name of a prose item; "" for a sentence without one.
	Name string
	Text string
	Pos  diag.Pos
	// Prior is true for an item that reads the node's own prior truth
	// ("prior `CountTrend`"): no edge.
	Prior bool
	// Excluded are what the item's words of exclusion removed
	// (`producer.facet`, or a producer), with the words.
	Excluded []string
	// Nested is where the first bullet of a list nested in the item is
	// (0: none): its bullets are words of this item, no inputs.
	Nested diag.Pos
}

// Names lists the graph's node ids and the names that differ from them,
// sorted: what a message offers when a node is not found.
func (g *Graph) Names() []string {
	var out []string
	for _, n := range g.Nodes {
		out = append(out, n.ID)
		if n.Name != "" && n.Name != n.ID {
			out = append(out, n.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Node returns the node named s: by its id, else by its name (the one
// node whose front matter name is s); nil when none is. A graph made as
// a value rather than loaded (a served workflow's shape of ids and
// kinds) has no index of ids: its nodes are looked up by id in turn.
func (g *Graph) Node(s string) *Node {
	if n := g.byID[s]; n != nil {
		return n
	}
	var found *Node
	for _, n := range g.Nodes {
		if g.byID == nil && n.ID == s {
			return n
		}
		if n.Name == s {
			if found != nil {
				return nil
			}
			found = n
		}
	}
	return found
}

// Label is how messages name n: its id, with its name beside it when
// the two differ ("067NC4KG0XVMH2AA9D64TKJFA0 (customer-risk-maintained)").
func (n *Node) Label() string {
	if n.Name != "" && n.Name != n.ID {
		return n.ID + " (" + n.Name + ")"
	}
	return n.ID
}

// In returns the edges into n, in order.
func (g *Graph) In(id string) []*Edge {
	if len(g.inOf) == len(g.Edges) && (len(g.Edges) == 0 || &g.inOf[0] == &g.Edges[0]) && g.in != nil {
		return g.in[id]
	}
	var out []*Edge
	for _, e := range g.Edges {
		if e.Subscriber == id {
			out = append(out, e)
		}
	}
	return out
}

// indexIn indexes the edges by subscriber for In, once they are final
// (in place: a later change of Edges that keeps its first element and
// length must call it again).
func (g *Graph) indexIn() {
	g.in = map[string][]*Edge{}
	for _, e := range g.Edges {
		g.in[e.Subscriber] = append(g.in[e.Subscriber], e)
	}
	g.inOf = g.Edges
}

// FacetReaders maps each part of id's truth that an edge reads (not its
// whole truth) to the subscribers that read it. The graph must not be
// changed after its first call.
func (g *Graph) FacetReaders(id string) map[string][]string {
	g.readersOnce.Do(func() {
		g.readers = map[string]map[string][]string{}
		for _, e := range g.Edges {
			if e.Facet == Atomic {
				continue
			}
			if g.readers[e.Producer] == nil {
				g.readers[e.Producer] = map[string][]string{}
			}
			g.readers[e.Producer][e.Facet] = append(g.readers[e.Producer][e.Facet], e.Subscriber)
		}
	})
	return g.readers[id]
}

// Subscribers returns the ids of the nodes subscribed to id, sorted.
func (g *Graph) Subscribers(id string) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range g.Edges {
		if e.Producer == id && !seen[e.Subscriber] {
			seen[e.Subscriber] = true
			out = append(out, e.Subscriber)
		}
	}
	sort.Strings(out)
	return out
}

// EntryPoints are the ids of the external-driven nodes (the gateways,
// and a responsibility whose ### Continuity says external-driven), in
// node order: the ways the world is kicked from outside. Decided, as
// Forme's topology defines entry_points: a self-driven or input-driven
// node that no edge feeds (one reading only caller inputs, or none) is
// no entry point, since nothing outside the graph wakes it.
func (g *Graph) EntryPoints() []string {
	out := []string{}
	for _, n := range g.Nodes {
		if n.Wake == WakeExternal {
			out = append(out, n.ID)
		}
	}
	return out
}

// Load reads the project at path (a directory or a root file) and wires
// it. The diagnostics are the loader's errors of node files and the
// wiring's; err is for a path that cannot be read at all. Its spec files
// are read through a new spec graph over the operating system's files
// (Graph.Specs), which a drain's renders load from too.
func Load(path string) (*Graph, diag.List, error) {
	return LoadWith(path, nil)
}

// LoadWith is Load reading the spec files through specs (nil: a new spec
// graph over the operating system's files, names as the walk gives
// them), so that whatever else loads a file from specs (a render's run,
// a sibling a call reaches) shares its one read.
func LoadWith(path string, specs *specgraph.Graph) (*Graph, diag.List, error) {
	return load(path, nil, specs)
}

// load is LoadWith, leaving out the folders in skip (the OpenProse roots
// below a folder that Lint wires apart).
func load(path string, skip map[string]bool, specs *specgraph.Graph) (*Graph, diag.List, error) {
	if specs == nil {
		specs = specgraph.New(specgraph.Options{})
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	root, rootFile := path, ""
	if !st.IsDir() {
		root, rootFile = filepath.Dir(path), path
	}
	files, err := walkSkipping(root, skip)
	if err != nil {
		return nil, nil, err
	}
	g := &Graph{Root: root, Specs: specs, byID: map[string]*Node{}}
	var diags diag.List
	var inline []inlineNode
	var functions []*spec.Spec
	for _, f := range files {
		s, ds, err := specs.Load(f)
		if err != nil {
			return nil, nil, err
		}
		if s != nil && s.Kind == spec.KindFunction && s.Name != "" {
			functions = append(functions, s)
		}
		if s == nil || !s.Kind.IsNode() {
			// A file whose front matter cannot be read, or whose kind is
			// missing, misspelt or retired (`kind: responsibilty`), may
			// be a node the project means to have: its kind is unknown,
			// so it is not left out of the graph without an error (a
			// drain would else run without it and exit 0).
			for _, d := range ds.Errors() {
				if kindUnknown(s, d.Code) {
					diags = append(diags, d)
				}
			}
			continue
		}
		diags = append(diags, ds.Errors()...)
		n := g.add(s, f, "", &diags)
		if n != nil && rootFile != "" && sameFile(f, rootFile) {
			rootFile = n.ID
		}
		for _, in := range s.Nodes {
			if isWorldNode(in) {
				inline = append(inline, inlineNode{in, f, n})
			}
		}
	}
	g.addInline(inline, &diags)
	for _, f := range functions {
		if g.funcs == nil {
			g.funcs = map[string]bool{}
		}
		g.funcs[f.Name] = true
	}
	diags = append(diags, g.functionNames(functions)...)
	diags = append(diags, functionTruths(functions)...)
	diags = append(diags, g.checkIDs()...)
	w, wd, err := readWiring(root)
	if err != nil {
		return nil, nil, err
	}
	g.Wiring = w
	diags = append(diags, wd...)
	diags = append(diags, g.wire()...)
	diags = append(diags, g.checkWiring()...)
	diags = append(diags, g.emits()...)
	diags = append(diags, g.checkRoutes()...)
	if !st.IsDir() {
		if g.byID[rootFile] == nil {
			return nil, nil, fmt.Errorf("%s: not a responsibility or gateway: nothing to wire", path)
		}
		g.keepReached(rootFile)
		diags = g.Given(diags, func(node, _ string) bool { return g.byID[node] == nil }) // not reached: not run
	}
	diags = append(diags, g.order()...)
	g.indexIn()
	if !diags.HasErrors() { // a node an error dropped may be its reader
		diags = append(diags, g.unreadGateways()...)
		diags = append(diags, g.idle()...)
	}
	diags = append(diags, g.executionMembers()...)
	diags = append(diags, g.priorShadowed()...)
	diags = append(diags, g.inlineExecutions()...)
	diags = append(diags, g.immaterialReads()...)
	diags = append(diags, g.postconditionFields()...)
	diags = append(diags, g.immaterialSlips()...)
	diags = append(diags, g.materialOnly()...)
	diags = append(diags, g.plainFields()...)
	diags = append(diags, g.noMaintains()...)
	diags = append(diags, g.wholeConditions()...)
	diags.Sort()
	return g, diags, nil
}

// kindUnknown reports whether an error of code in the file of s (nil
// when it could not be read) leaves its kind unknown.
func kindUnknown(s *spec.Spec, code string) bool {
	switch code {
	case spec.CodeFrontMatter, spec.CodeUnknownKind, spec.CodeRetiredKind:
		return true
	case spec.CodeFrontMatterKey:
		return s == nil || s.Kind == ""
	}
	return false
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// walk lists the *.prose.md regular files under root, sorted, skipping
// dot-directories and node_modules.
func walk(root string) ([]string, error) { return walkSkipping(root, nil) }

// walkSkipping is walk, skipping the folders in skip too.
func walkSkipping(root string, skip map[string]bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || skip[p]) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), spec.Suffix) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// add makes the node of s, reporting a duplicate id; id is an inline
// node's ("" for a file's own: its front matter id, else its name, else
// the file stem).
func (g *Graph) add(s *spec.Spec, path, id string, diags *diag.List) *Node {
	n := &Node{ID: id, Name: s.Name, Title: s.Title, Kind: s.Kind, Path: path, Spec: s}
	front, _ := s.Front["id"].(string)
	switch {
	case n.ID != "":
	case front != "":
		n.ID = front
	case s.Name != "":
		n.ID = s.Name
	default:
		n.ID = strings.TrimSuffix(filepath.Base(path), spec.Suffix)
	}
	rel, err := filepath.Rel(g.Root, path)
	if err != nil {
		rel = path
	}
	n.File = filepath.ToSlash(rel)
	if first := g.byID[n.ID]; first != nil {
		diags.Errorf(s.File, s.Pos, "graph/duplicate-id", "node id %q is also %s's: give one of them another front matter id", n.ID, first.File)
		return nil
	}
	if o := g.byFold[strings.ToLower(n.ID)]; o != nil {
		// Decided: an error. A node's state directory is named by its
		// id, so on a file system that folds case (macOS, Windows) the
		// two would keep one truth and one ledger; and a reference by
		// one spelling reads a node the author may not have meant.
		diags.Errorf(s.File, s.Pos, "graph/duplicate-id", "node id %q differs from %s's %q only in letter case: their state directories would be one on a file system that folds case (macOS, Windows), and a reference in either case reads only one of them; give one of them another front matter id", n.ID, o.File, o.ID)
		return nil
	}
	if id == "" && s.Name != "" {
		// Two files of one name (decided: an error): a reference, a
		// --slot or a world show by that name would reach only the
		// first of them, the other's subscribers wired in silence.
		if o := g.fileNamed[s.Name]; o != nil {
			diags.Errorf(s.File, s.Pos, CodeDuplicateName, "node name %q is also %s's (id %s): a reference or a --slot by that name would reach only one of them; rename one", s.Name, o.File, o.ID)
		}
	}
	n.Wake = wakeOf(s)
	continuityWords(s, diags)
	externalResponsibility(s, diags)
	if s.Truth != nil {
		for _, f := range s.Truth.Facets {
			n.Facets = append(n.Facets, f.Name)
		}
	}
	for _, o := range s.Outputs {
		if !o.Facet {
			n.Fields = append(n.Fields, o.Name)
		}
	}
	n.Families = families(s)
	if s.Kind != spec.KindGateway {
		// A gateway's ### Requires is not wired: its input arrives as
		// events (the loader's error, spec.CodeGatewayRequires).
		n.Items = requiresItems(s)
	}
	if s.Kind == spec.KindGateway {
		n.Events = eventShape(s)
		n.routes = routesOf(s, diags)
	} else {
		notGatewayRoutes(s, diags)
	}
	g.byID[n.ID] = n
	if g.byFold == nil {
		g.byFold = map[string]*Node{}
	}
	g.byFold[strings.ToLower(n.ID)] = n
	g.Nodes = append(g.Nodes, n)
	if !n.Inline() && n.Name != "" {
		if g.fileNamed == nil {
			g.fileNamed = map[string]*Node{}
		}
		if g.fileNamed[n.Name] == nil {
			g.fileNamed[n.Name] = n
		}
	}
	return n
}

// functionNames reports each function file named as a node is (its id
// or name; decided: an error, as for two nodes of one name): an
// Execution's `call NAME` and a `--slot NAME=...` would reach one of the
// two, and which one is not what the reader of either file expects.
func (g *Graph) functionNames(functions []*spec.Spec) diag.List {
	var out diag.List
	for _, f := range functions {
		n := g.byID[f.Name]
		if n == nil {
			n = g.fileNamed[f.Name]
		}
		if n == nil || n.Inline() {
			continue
		}
		out.Errorf(f.File, f.Pos, CodeDuplicateName, "function name %q is also the %s %s's (%s): a call or a --slot by that name would reach only one of them; rename one", f.Name, n.Kind, n.Label(), n.File)
	}
	return out
}

// CodeFunctionTruth is a file of kind function with a ### Maintains.
const CodeFunctionTruth = "graph/function-truth"

// functionTruths reports each function file with a ### Maintains
// (decided: an error). A function is called, not wired, so it is no node
// of the graph: a drain leaves it out and exits 0, while the author, who
// wrote the truth it keeps, meant a responsibility (the loader reads the
// section as what the function returns, lint only warns that it does not
// apply).
func functionTruths(functions []*spec.Spec) diag.List {
	var out diag.List
	for _, f := range functions {
		for _, sec := range f.Sections {
			if strings.EqualFold(strings.TrimSpace(sec.Heading), "maintains") {
				out.Errorf(f.File, sec.Pos, CodeFunctionTruth, "%s is kind: function, and a function keeps no truth: it is no node of the world graph, so no drain renders it and its ### Maintains is kept by nothing; make it kind: responsibility, or write ### Returns for a function to call", f.Name)
				break
			}
		}
	}
	return out
}

// wakeOf reads the wake source of a node: external for a gateway or an
// external-driven Continuity, self for a self-driven one, else input.
func wakeOf(s *spec.Spec) string {
	if s.Kind == spec.KindGateway {
		return WakeExternal
	}
	text := strings.ToLower(strings.Join(s.Continuity, " "))
	for _, sec := range s.Sections {
		if h := strings.ToLower(sec.Heading); strings.HasPrefix(h, "continuity") {
			text += " " + h + " " + strings.ToLower(sec.Body)
		}
	}
	switch {
	case strings.Contains(text, "external-driven"):
		return WakeExternal
	case strings.Contains(text, "self-driven"):
		return WakeSelf
	}
	return WakeInput
}

// externalResponsibility warns of a responsibility whose ### Continuity
// says external-driven. Upstream calls a gateway sugar for such a node,
// but prose delivers events (--event, serve's routes) to kind: gateway
// only, so nothing from outside would wake it, in silence: it renders
// when its contract or inputs change, or when woken by hand.
func externalResponsibility(s *spec.Spec, diags *diag.List) {
	if s.Kind != spec.KindResponsibility || wakeOf(s) != WakeExternal {
		return
	}
	at := s.Pos
	for _, sec := range s.Sections {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(sec.Heading)), "continuity") {
			at = sec.Pos
			break
		}
	}
	diags.Warnf(s.File, at, CodeContinuity, "%s is a responsibility whose ### Continuity says external-driven, but prose delivers events to gateways only, so nothing from outside wakes it (it renders when its contract or inputs change, or when woken by hand): make it kind: gateway with a ### Receives to take events, or say input-driven or self-driven", s.Name)
}

// wakeWords are the wake sources a ### Continuity may name.
var wakeWords = []string{"input-driven", "self-driven", "external-driven"}

// continuityWords reports each word of s's ### Continuity that is a slip
// for a wake source ("inptu-driven", "self-drivn"): wakeOf does not read
// it, and the node would wake otherwise than written, in silence.
func continuityWords(s *spec.Spec, diags *diag.List) {
	for _, sec := range s.Sections {
		if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(sec.Heading)), "continuity") {
			continue
		}
		body := asciiLower(sec.Body) // offsets stay those of the file
		for i := 0; i < len(body); {
			j := i
			for j < len(body) && (body[j] == '-' || 'a' <= body[j] && body[j] <= 'z') {
				j++
			}
			w := strings.Trim(body[i:j], "-")
			at := sec.BodyPos + diag.Pos(i+strings.Index(body[i:j], w))
			// "self driven", "self_driven": a wake source written apart.
			if k := j; j > i && (k < len(body) && (body[k] == ' ' || body[k] == '_')) {
				for k < len(body) && (body[k] == ' ' || body[k] == '_') {
					k++
				}
				if strings.HasPrefix(body[k:], "driven") && (k+6 == len(body) || body[k+6] < 'a' || body[k+6] > 'z') {
					best := w + "-driven"
					if !slices.Contains(wakeWords, best) {
						best = didyoumean.Closest(best, wakeWords, 2)
					}
					if best != "" {
						diags.Errorf(s.File, at, CodeContinuity, "### Continuity names %q, which is no wake source; write %s (input-driven, self-driven or external-driven)", body[i:k+6], best)
						i = k + 6
						continue
					}
				}
			}
			if j > i && !slices.Contains(wakeWords, w) && (strings.HasSuffix(w, "driven") || strings.Contains(w, "-")) {
				if best := didyoumean.Closest(w, wakeWords, 2); best != "" {
					diags.Errorf(s.File, at, CodeContinuity, "### Continuity names %q, which is no wake source; did you mean %s? (input-driven, self-driven or external-driven)", w, best)
				}
			}
			if j == i {
				j++
			}
			i = j
		}
	}
}

// asciiLower is s with its ASCII letters in lower case, byte for byte,
// so an index into it is an index into s. strings.ToLower does not keep
// offsets (an invalid byte becomes U+FFFD, three bytes; 'Ⱥ' becomes the
// longer 'ⱥ'): a slice of s at an index found in its lowered form could
// fall outside s. The words it is searched for are ASCII.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// keepReached drops the nodes root does not reach upstream.
func (g *Graph) keepReached(root string) {
	keep := map[string]bool{}
	var visit func(id string)
	visit = func(id string) {
		if keep[id] {
			return
		}
		keep[id] = true
		for _, e := range g.In(id) {
			visit(e.Producer)
		}
	}
	visit(root)
	var nodes []*Node
	for _, n := range g.Nodes {
		if keep[n.ID] {
			nodes = append(nodes, n)
		} else {
			delete(g.byID, n.ID)
		}
	}
	g.Nodes = nodes
	var edges []*Edge
	for _, e := range g.Edges {
		if keep[e.Subscriber] {
			edges = append(edges, e)
		}
	}
	g.Edges = edges
}

// Given drops from diags the CodeUnmaintained errors of the inputs the
// caller gives (given(node, input) is true): a drain's --input, a
// test's Fixtures.
func (g *Graph) Given(diags diag.List, given func(node, input string) bool) diag.List {
	var out diag.List
	for _, d := range diags {
		if d.Code == CodeUnmaintained || d.Code == CodeCallerInput {
			if u := g.unresolvedAt(d.Position); u != nil && given(u.Node, u.Item.Name) {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// Needed makes errors of the CodeCallerInput warnings left in diags (after
// Given): a drain cannot start without the inputs the caller must give.
func Needed(diags diag.List) diag.List {
	out := make(diag.List, len(diags))
	for i, d := range diags {
		if d.Code == CodeCallerInput {
			d.Severity = diag.Error
		}
		out[i] = d
	}
	return out
}

func (g *Graph) unresolvedAt(p diag.Position) *Unresolved {
	for _, u := range g.Unresolved {
		if u.Why == CodeUnmaintained && u.Pos == p {
			return u
		}
	}
	return nil
}

// Seed gives the inputs of node id from outside: the edges that bind them
// are dropped and they become caller inputs, and the nodes id no longer
// reaches upstream leave the graph (a test's Fixtures seed its subject
// so). Names that are no input of id are returned.
func (g *Graph) Seed(id string, inputs []string) (unknown []string) {
	n := g.byID[id]
	if n == nil {
		return inputs
	}
	seed := map[string]bool{}
	for _, in := range inputs {
		seed[in] = true
	}
	var edges []*Edge
	for _, e := range g.Edges {
		if e.Subscriber == id && seed[e.Input] {
			if !contains(n.CallerInputs, e.Input) {
				n.CallerInputs = append(n.CallerInputs, e.Input)
			}
			continue
		}
		edges = append(edges, e)
	}
	g.Edges = edges
	for _, in := range inputs {
		if !contains(n.CallerInputs, in) {
			unknown = append(unknown, in)
		}
	}
	g.keepReached(id)
	g.order()
	g.indexIn()
	return unknown
}

// Lint wires the project in dir and returns its wiring findings alone
// (codes graph/*) and a warning for each responsibility without an
// `id:`: what `prose lint DIR` adds to the files' findings, so
// a lint step fails on a world that cannot start. A directory with no
// responsibility or gateway has none.
//
// An OpenProse root below dir (a folder holding `src/` or `prose.lock`,
// as upstream lays a project out) is a project of its own: it is wired
// apart from dir's other files, so the examples of one tree are linted
// each as itself, not as one world.
func Lint(dir string) (diag.List, error) {
	roots, err := projectRoots(dir)
	if err != nil {
		return nil, err
	}
	var out diag.List
	for _, r := range roots {
		ds, err := Lint(r)
		if err != nil {
			return nil, err
		}
		out = append(out, ds...)
	}
	skip := map[string]bool{}
	for _, r := range roots {
		skip[r] = true
	}
	if ok, err := hasNodes(dir, skip); err != nil || !ok {
		out.Sort()
		return out, err
	}
	g, diags, err := load(dir, skip, nil)
	if err != nil {
		return nil, err
	}
	diags = append(diags, g.missingIDs()...)
	for _, d := range diags {
		if strings.HasPrefix(d.Code, "graph/") {
			out = append(out, d)
		}
	}
	out.Sort()
	return out, nil
}

// hasNodes reports whether a spec file under dir says, in its front
// matter, that it is a responsibility or a gateway: a cheap look before
// a whole load.
func hasNodes(dir string, skip map[string]bool) (bool, error) {
	files, err := walkSkipping(dir, skip)
	if err != nil {
		return false, err
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return false, err
		}
		if !bytes.HasPrefix(src, []byte("---")) {
			continue
		}
		front := src[3:]
		if end := bytes.Index(front, []byte("\n---")); end >= 0 {
			front = front[:end]
		}
		for _, line := range bytes.Split(front, []byte("\n")) {
			k, v, ok := bytes.Cut(line, []byte(":"))
			if !ok || string(bytes.TrimSpace(k)) != "kind" {
				continue
			}
			if v := string(bytes.Trim(bytes.TrimSpace(v), `"'`)); spec.Kind(v).IsNode() {
				return true, nil
			}
		}
	}
	return false, nil
}

// emits checks a gateway's ### Emits against the wiring (decided):
// upstream reads it as the responsibilities the gateway wakes, while here
// a node wakes on the gateway's events only when its ### Requires reads
// it. A name that is no node of the project, or a node that does not
// read the gateway, is a warning (CodeEmits) at the name: the events
// would not wake what the author named, in silence.
func (g *Graph) emits() diag.List {
	var diags diag.List
	for _, n := range g.Nodes {
		if n.Kind != spec.KindGateway || n.Spec == nil {
			continue
		}
		for _, sec := range n.Spec.Sections {
			if !strings.EqualFold(strings.TrimSpace(sec.Heading), "emits") {
				continue
			}
			for _, e := range emitNames(sec.Body) {
				pos := sec.BodyPos + diag.Pos(e.at)
				target := g.ref(e.name)
				switch {
				case target == nil:
					hint := ""
					if near := nearest(e.name, g.Names()); near != "" {
						hint = "; did you mean " + near + "?"
					}
					diags.Warnf(n.Spec.File, pos, CodeEmits, "### Emits names %q, which is no node of this project%s", e.name, hint)
				case !g.reads(target.ID, n.ID):
					diags.Warnf(n.Spec.File, pos, CodeEmits, "### Emits names %s, but %s's ### Requires does not read %s, so %s's events do not wake it: add an item naming `%s` there",
						e.name, target.Label(), n.Label(), n.Label(), n.Name)
				}
			}
		}
	}
	return diags
}

// reads reports whether an edge runs from producer to subscriber.
func (g *Graph) reads(subscriber, producer string) bool {
	for _, e := range g.Edges {
		if e.Subscriber == subscriber && e.Producer == producer {
			return true
		}
	}
	return false
}

type emitName struct {
	name string
	at   int // offset in the section's body
}

// emitNames reads the names of an ### Emits body as upstream lists them:
// list items that are one name, bare or backticked at the item's start
// (`- count-summary`, "- `digest` on each batch"); paragraphs are prose
// and name nothing.
func emitNames(body string) []emitName {
	var out []emitName
	off := 0
	for line := range strings.SplitAfterSeq(body, "\n") {
		start := off
		off += len(line)
		t := strings.TrimLeft(line, " \t")
		rest, ok := strings.CutPrefix(t, "- ")
		if !ok {
			rest, ok = strings.CutPrefix(t, "* ")
		}
		if !ok {
			continue
		}
		rest = strings.TrimLeft(rest, " \t")
		at := start + len(line) - len(rest)
		if w, ok := strings.CutPrefix(rest, "`"); ok {
			if end := strings.IndexByte(w, '`'); end > 0 && isEmitName(w[:end]) {
				out = append(out, emitName{w[:end], at + 1})
			}
			continue
		}
		if w := strings.TrimSpace(rest); isEmitName(w) {
			out = append(out, emitName{w, at})
		}
	}
	return out
}

// isEmitName reports whether w is one name: letters, digits, '-', '_'.
func isEmitName(w string) bool {
	if w == "" {
		return false
	}
	for _, c := range w {
		if !(c == '-' || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
