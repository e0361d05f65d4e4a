package graph

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/spec"
)

// Wiring rules (decided). Each ### Requires item is read whole (its
// sentence: sentence.go) and bound by the first of these rules that binds
// it; each edge records its rule and the words that decided it (Why, for
// `prose graph --explain`):
//
//	(a, c) explicit / reference: every node the item names (its name, or
//	    a reference in backticks or bold, by id, name or title, or
//	    `node.part`) that no word of exclusion removes is a producer;
//	    several make a fan-in, read as an object keyed by producer. Rule
//	    "explicit" when the item's name is that node, else "reference".
//	    Each producer is bound to the parts written with it (`X.F`), else
//	    to the facets the sentence names that it has, or to a field tied
//	    to it ("the `F` of `X`", "`X`'s `F`", with the other fields of it
//	    the sentence names) (a facet tied to
//	    another node by "`Y`'s `F`" or "the `F` facet of `Y`" is not its;
//	    a family `stem:<key>` by that form, its stem or one key; for
//	    `stem:<key>`, every declared facet with the stem; a field the
//	    sentence calls a facet), else to the item's name when that is its
//	    part, else to its whole truth. Facets a word of exclusion names
//	    are removed; an exclusion that leaves nothing named, or a facet
//	    named for producers none of which has it, is an error;
//	(b) name: the item's name is a `####` facet, a Maintains field or a
//	    backticked world-model name (``The `CountSummary` world-model``)
//	    of exactly one other node (several: ambiguous, an error);
//	(c) reference without a node: the facets, families or fields the
//	    sentence names belong to exactly one node;
//	(d) wiring: the committed wiring file says `subscriber.input:
//	    producer.part`.
//
// A bound sentence that names what its producers are not (a misspelt
// node, a part a producer read whole lacks) is an error or a warning:
// see slips.
//
// A part is the whole truth (Atomic), a `####` facet, a facet family
// (one member per key, read as an object by key) or a field: each a
// member of the truth, fingerprinted alike. An item that reads the node's
// own truth ("prior `CountTrend`") draws no edge. An item none binds is
// an error at its line: unsatisfied (with did-you-mean) when its name is
// close to a node or part or its text points at a node that does not
// exist, and otherwise unmaintained (CodeUnmaintained: nothing in the
// project maintains it), which only a caller that gives the input lifts
// (Given: a drain's --input, a test's Fixtures). A cycle is an error at
// the item that closes it, naming the path; that edge is dropped.

// Diagnostic codes.
const (
	CodeUnsatisfied = "graph/unsatisfied"
	CodeAmbiguous   = "graph/ambiguous"
	CodeCycle       = "graph/cycle"
	// CodeUnmaintained is a Requires item nothing in the project
	// maintains: an error, unless the caller gives it (Given).
	CodeUnmaintained = "graph/unmaintained"
	// CodeCallerInput warns of an input nothing maintains whose item says
	// the caller gives it ("supplied by the caller", "caller-provided"):
	// lint takes it as meant, a drain still needs it given.
	CodeCallerInput = "graph/caller-input"
	// CodeDuplicateName is a node whose front matter name another file's
	// node has too.
	CodeDuplicateName = "graph/duplicate-name"
	// CodeTypeMismatch is an input declared of a type its producer's
	// field, declared of another, can never have.
	CodeTypeMismatch = "graph/type-mismatch"
	// CodeContinuity is a ### Continuity word that is a slip for a wake
	// source (input-driven, self-driven, external-driven).
	CodeContinuity = "graph/continuity"
	// CodeNested is a Requires item holding a nested list (a warning).
	CodeNested = "graph/nested-item"
	// CodeEmits is a gateway's ### Emits naming no node, or a node whose
	// ### Requires does not read the gateway (a warning).
	CodeEmits = "graph/emits"
)

// ref finds a node by id, name or title (case-insensitively for titles).
func (g *Graph) ref(s string) *Node {
	if n := g.byID[s]; n != nil {
		return n
	}
	for _, n := range g.Nodes {
		if n.Name == s || strings.EqualFold(n.Title, s) {
			return n
		}
	}
	return nil
}

// hasPart reports whether p is a part (facet or field) of n.
func (n *Node) hasPart(p string) bool {
	return contains(n.Facets, p) || contains(n.Fields, p)
}

// worldName reports whether n's Maintains calls its truth name.
func (n *Node) worldName(name string) bool {
	return n.Spec.Truth != nil && contains(n.Spec.Truth.Names, name)
}

// self reports whether name is n's own: its id, name or world-model name.
func (n *Node) self(name string) bool {
	return name == n.ID || name == n.Name || n.worldName(name)
}

func (g *Graph) wire() diag.List {
	var diags diag.List
	for _, n := range g.Nodes {
		for _, it := range n.Items {
			if it.Nested != 0 {
				// Decided: a warning. Upstream writes one input an item;
				// a nested list reads as words of its item, so inputs the
				// author listed under it are no inputs of their own.
				diags.Warnf(n.Spec.File, it.Nested, CodeNested, "%s of %s holds a nested list, whose bullets are read as words of this one item, not as inputs of their own: write each input as an item of ### Requires (- `NAME`: ... from `PRODUCER`)",
					quoteName(it), n.ID)
			}
			if it.Prior || it.Name != "" && n.self(it.Name) {
				it.Prior = true
				continue
			}
			edges, ambiguous, problem := g.bind(n, it)
			if len(edges) > 0 && it.Name == "" {
				if msg := nameByProducer(n, it, edges); msg != "" {
					diags.Errorf(n.Spec.File, it.Pos, CodeAmbiguous, "%s", msg)
					continue
				}
			}
			if len(edges) > 0 {
				g.Edges = append(g.Edges, edges...)
				if len(edges) == 1 {
					if msg := g.edgeType(n, edges[0]); msg != "" {
						diags.Errorf(n.Spec.File, it.Pos, CodeTypeMismatch, "%s", msg)
					}
				}
				if msg := wholeType(n, edges); msg != "" {
					diags.Errorf(n.Spec.File, it.Pos, CodeTypeMismatch, "%s", msg)
				}
				diags = append(diags, g.slips(n, it, edges)...)
				diags = append(diags, g.fieldOfFacet(n, it, edges)...)
				if msg := g.unknownMaintainer(n, it); msg != "" {
					diags.Errorf(n.Spec.File, it.Pos, CodeUnsatisfied, "%s", msg)
				}
				continue
			}
			f := n.Spec.File
			un := &Unresolved{Node: n.ID, Item: it, Pos: f.Position(it.Pos), Candidates: ambiguous}
			g.Unresolved = append(g.Unresolved, un)
			switch {
			case problem != "":
				code, msg, _ := strings.Cut(problem, " ")
				un.Why = code
				diags.Errorf(f, it.Pos, code, "%s", msg)
			case len(ambiguous) > 0:
				un.Why = CodeAmbiguous
				diags.Errorf(f, it.Pos, CodeAmbiguous, "%s of %s is ambiguous: %s could each give it; write `producer.part` or add it to %s",
					quoteName(it), n.ID, strings.Join(ambiguous, ", "), WiringFile)
			default:
				if msg := g.unsatisfied(n, it); msg != "" {
					un.Why = CodeUnsatisfied
					diags.Errorf(f, it.Pos, CodeUnsatisfied, "%s", msg)
				} else if it.Name != "" && callerSays(it.Text) {
					// The item says the caller gives it: a caller input
					// on purpose, so a warning here; a drain that is not
					// given it is refused all the same (reconcile.Drain).
					un.Why = CodeUnmaintained
					n.CallerInputs = append(n.CallerInputs, it.Name)
					diags.Warnf(f, it.Pos, CodeCallerInput, "input %q of %s is the caller's to give (its item says so): give it on each drain with `prose run DIR --input %s.%s=VALUE`; a drain without it is refused",
						it.Name, n.Label(), n.ID, it.Name)
				} else if self := n.selfNamed(it.Text); it.Name != "" && self != "" {
					// Decided: an error naming the node itself. A node is
					// no producer of its own inputs (that edge would be a
					// cycle: loops live in time, as self-driven wakes),
					// so "nothing maintains it" would send the author
					// looking for another node.
					un.Why = CodeUnmaintained
					n.CallerInputs = append(n.CallerInputs, it.Name)
					diags.Errorf(f, it.Pos, CodeUnmaintained, "input %q of %s names %s, its own node: a node does not subscribe to its own truth (that would be a cycle); it reads it as its prior truth: start the item with the word prior (- prior `%s`: ...), or read the field by its ### Maintains name in the Execution (a program finds it under \"prior\")",
						it.Name, n.Label(), self, self)
				} else if it.Name != "" {
					un.Why = CodeUnmaintained
					n.CallerInputs = append(n.CallerInputs, it.Name)
					diags.Errorf(f, it.Pos, CodeUnmaintained, "input %q of %s: nothing in this project maintains it%s; add the responsibility or gateway that does, wire it in %s (%s.%s: producer.facet), or give it on each drain with `prose run DIR --input %s.%s=VALUE`",
						it.Name, n.Label(), g.plainNode(n, it), WiringFile, n.ID, it.Name, n.ID, it.Name)
				} else {
					g.Unresolved = g.Unresolved[:len(g.Unresolved)-1] // a sentence, no input
				}
			}
		}
		diags = append(diags, g.wireReads(n)...)
	}
	return diags
}

// nameByProducer names an item that has no name of its own ("- the
// **Price Feed** truth.", its node named in bold or by title) by the id
// of the one node it reads, on it and on its edges. Decided: without it
// the input's name was "", so a render was given `"": {...}`, and two
// such items were one fan-in under "" whose shape changed with their
// number. An item reading several nodes, or whose producer's id is
// another item's name, is an error naming the fix: "" when named.
func nameByProducer(n *Node, it *Item, edges []*Edge) string {
	var prods []string
	for _, e := range edges {
		if !contains(prods, e.Producer) {
			prods = append(prods, e.Producer)
		}
	}
	if len(prods) > 1 {
		return fmt.Sprintf("this input of %s reads %s but has no name of its own, so its render could not tell it from another: begin the item with one (- `NAME`: ...)", n.ID, strings.Join(prods, ", "))
	}
	for _, o := range n.Items {
		if o != it && o.Name == prods[0] {
			return fmt.Sprintf("this input of %s reads %s but has no name of its own, and %q names another item: begin the item with a name (- `NAME`: ...)", n.ID, prods[0], prods[0])
		}
	}
	it.Name = prods[0]
	for _, e := range edges {
		e.Input = it.Name
	}
	return ""
}

// selfNamed is the first backticked word of an item's text that names
// n itself (its id or name, or `NAME.PART`), or "".
func (n *Node) selfNamed(text string) string {
	for _, w := range backticked(text) {
		head, _, _ := strings.Cut(w, ".")
		if w == n.ID || w == n.Name || head == n.ID || head == n.Name {
			return w
		}
	}
	return ""
}

func quoteName(it *Item) string {
	if it.Name == "" {
		return "this input"
	}
	return fmt.Sprintf("input %q", it.Name)
}

// bind applies the rules to one item: the nodes its sentence names
// (rules a and c), its name (rule b), the parts of exactly one node it
// names (rule c), the wiring file (rule d). A non-empty problem is an
// error of the item, "CODE message": an exclusion that leaves no part to
// read, or a facet named for a producer that has none of that name.
func (g *Graph) bind(n *Node, it *Item) (edges []*Edge, ambiguous []string, problem string) {
	edge := func(p *Node, part, rule, why string) *Edge {
		return &Edge{Subscriber: n.ID, Input: it.Name, Producer: p.ID, Facet: part, Rule: rule, Why: why, Pos: n.Spec.File.Position(it.Pos), pos: it.Pos}
	}
	rs := refs(it)
	it.Excluded = nil
	// (a) and (c): every node the sentence names is a producer.
	if es, problem := g.sentence(n, it, rs, edge); len(es) > 0 || problem != "" {
		return es, nil, problem
	}
	// (b)
	if it.Name != "" {
		var cands []*Edge
		for _, p := range g.Nodes {
			switch {
			case p == n:
			case p.hasPart(it.Name):
				cands = append(cands, edge(p, it.Name, "name", fmt.Sprintf("the name %q is a part of %s and of no other node", it.Name, p.ID)))
			case p.worldName(it.Name):
				cands = append(cands, edge(p, Atomic, "name", fmt.Sprintf("the name %q is %s's world-model name", it.Name, p.ID)))
			}
		}
		if len(cands) == 1 {
			return cands, nil, ""
		}
		for _, c := range cands {
			if c.Facet == Atomic {
				// a whole truth is its node named alone: `a.atomic`
				// would name no part of a
				ambiguous = append(ambiguous, c.Producer)
			} else {
				ambiguous = append(ambiguous, c.Producer+"."+c.Facet)
			}
		}
	}
	// (c) without a node: parts of exactly one node.
	if len(ambiguous) == 0 {
		if es := g.ownedParts(n, it, rs, edge); len(es) > 0 {
			return es, nil, ""
		}
	}
	// (d)
	if g.Wiring != nil {
		if to, ok := g.Wiring.edge(n, it.Name); ok {
			if p, part, ok := g.dotted(to, n); ok {
				return []*Edge{edge(p, part, "wiring", fmt.Sprintf("%s says %s.%s: %s", WiringFile, n.ID, it.Name, to))}, nil, ""
			}
		}
	}
	return nil, ambiguous, ""
}

// dotted reads `node` or `node.part` naming a node other than self.
func (g *Graph) dotted(s string, self *Node) (*Node, string, bool) {
	if s == "" {
		return nil, "", false
	}
	if p := g.ref(s); p != nil && p != self {
		return p, Atomic, true
	}
	for i := strings.IndexByte(s, '.'); i > 0; i = nextDot(s, i) {
		if p := g.ref(s[:i]); p != nil && p != self {
			part := s[i+1:]
			if part == Atomic || p.hasPart(part) || p.hasFamily(part) {
				return p, part, true
			}
		}
	}
	return nil, "", false
}

func nextDot(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '.')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// named is a producer the sentence names, with the parts written with
// it (`node.part`) and the words that named it.
type named struct {
	p     *Node
	parts []string
	words string
}

// sentence applies rules (a) and (c) with nodes: each node the item
// names (its name, or a reference in its text, by id, name or title, or
// `node.part`) that no word of exclusion removes is a producer; each
// gets the parts written with it, else the facets the sentence names
// that it has (a facet family by its `stem:<key>`, or `stem:<key>` for
// every declared facet with that stem), else the item's name when that
// is its part, else its whole truth.
func (g *Graph) sentence(n *Node, it *Item, rs []ref, edge func(*Node, string, string, string) *Edge) ([]*Edge, string) {
	var prods []*named
	find := func(p *Node) *named {
		for _, x := range prods {
			if x.p == p {
				return x
			}
		}
		return nil
	}
	excludedNode := map[*Node]string{}
	var partRefs []ref
	var nodeRefs []nodeRef
	for _, r := range rs {
		p, part, ok := g.dotted(trimPossessive(r.text), n)
		if !ok {
			if !n.self(trimPossessive(r.text)) {
				partRefs = append(partRefs, r)
			}
			continue
		}
		if r.at >= 0 {
			nodeRefs = append(nodeRefs, nodeRef{r, p})
		}
		if r.negated {
			excludedNode[p] = r.words
			continue
		}
		x := find(p)
		if x == nil {
			x = &named{p: p, words: r.words}
			prods = append(prods, x)
		}
		if part != Atomic && !contains(x.parts, part) {
			x.parts = append(x.parts, part)
		}
	}
	listed := map[*Node]bool{}
	for _, r := range rs { // in the sentence's order
		p, _, ok := g.dotted(trimPossessive(r.text), n)
		if ok && r.negated && find(p) == nil && !listed[p] {
			listed[p] = true
			it.Excluded = append(it.Excluded, fmt.Sprintf("%s (%q)", p.ID, r.words))
		}
	}
	for i := range partRefs {
		partRefs[i].owner = owner(it.Text, partRefs[i], nodeRefs)
	}
	// A facet written as a plain word beside its node: "`X`'s risk
	// facet", "the risk facet of `X`".
	for _, nr := range nodeRefs {
		if nr.negated {
			continue
		}
		for _, w := range plainFacets(it.Text, nr.ref) {
			if x := find(nr.p); x != nil && contains(nr.p.Facets, w) && !contains(x.parts, w) {
				x.parts = append(x.parts, w)
			}
		}
	}
	if msg := unknownFacet(n, it, rs, prods); msg != "" {
		return nil, CodeUnsatisfied + " " + msg
	}
	var out []*Edge
	var readWhole []*Node
	for _, x := range prods {
		if excludedNode[x.p] != "" && len(x.parts) == 0 {
			continue // named and excluded: the exclusion wins
		}
		rule := "reference"
		if it.Name != "" && (trimPossessive(it.Name) == x.p.ID || g.ref(trimPossessive(it.Name)) == x.p || strings.HasPrefix(it.Name, x.p.ID+".")) {
			rule = "explicit"
		}
		why := fmt.Sprintf("producer named in %q", x.words)
		parts := x.parts
		if len(parts) == 0 {
			var excluded []string
			parts, excluded = sentenceFacets(x.p, partRefs)
			// A field tied to it ("the `F` of `X`", "`X`'s `F`") is read
			// alone, and with it every field of it the sentence names
			// ("the `F` and `G` of `X`").
			tied := false
			var fieldWords []string
			for _, r := range partRefs {
				tied = tied || !r.negated && r.owner == x.p && contains(x.p.Fields, r.text)
			}
			for _, r := range partRefs {
				// A field the sentence calls a facet is read as one.
				if !r.negated && r.at >= 0 && (r.owner == nil || r.owner == x.p) && contains(x.p.Fields, r.text) && (facetWorded(it.Text, r) || tied) && !contains(parts, r.text) {
					parts = append(parts, r.text)
					fieldWords = append(fieldWords, fmt.Sprintf("field named in %q", r.words))
				}
			}
			for _, e := range excluded {
				it.Excluded = append(it.Excluded, fmt.Sprintf("%s.%s (%q)", x.p.ID, e, negatedWords(partRefs, x.p, e)))
			}
			if len(parts) > 0 {
				var ws []string
				if w := partWords(partRefs, x.p); w != "" {
					ws = append(ws, w)
				}
				why += "; " + strings.Join(append(ws, fieldWords...), "; ")
			} else if len(excluded) > 0 {
				return nil, fmt.Sprintf("%s %s of %s excludes %s of %s but names no part of it to read: name the facets it reads (`%s.FACET`)",
					CodeAmbiguous, quoteName(it), n.ID, strings.Join(excluded, ", "), x.p.ID, x.p.ID)
			}
		} else {
			why += ", with its part"
		}
		if len(parts) == 0 && it.Name != "" && x.p.hasPart(it.Name) {
			parts = []string{it.Name}
			why += fmt.Sprintf("; the input's name %q is its part", it.Name)
		}
		if len(parts) == 0 {
			parts = []string{Atomic}
			why += "; no facet of it named: its whole truth"
			readWhole = append(readWhole, x.p)
		}
		for _, part := range parts {
			out = append(out, edge(x.p, part, rule, why))
		}
	}
	if msg := unevenFanIn(n, it, partRefs, nodeRefs, readWhole); msg != "" {
		return nil, CodeAmbiguous + " " + msg
	}
	return out, ""
}

// unevenFanIn explains a fan-in whose sentence ties a part to one
// producer and names the next one right after it as a second owner of
// the same words ("the `value` of `price-eu` and of `price-us`", "the
// `value` of `a` and `b`"), which it reads whole, though that one has
// the part too: price-eu's value, but price-us's whole truth. Decided:
// an error, since the words read as the one part of each, and the input
// would hold a number for one producer and an object for the other. A
// node named apart (", and `a`", "and the `b` truth") stays read whole,
// as TestSentenceTiesAFacetToItsNode has it. "" when there is none.
func unevenFanIn(n *Node, it *Item, partRefs []ref, nodeRefs []nodeRef, readWhole []*Node) string {
	if len(readWhole) == 0 {
		return ""
	}
	for _, r := range partRefs {
		if r.negated || r.owner == nil || !r.owner.hasPart(r.text) {
			continue
		}
		for _, o := range nodeRefs {
			if o.p != r.owner || o.at < r.end {
				continue
			}
			for _, q := range nodeRefs {
				if q.at < o.end || q.p == r.owner || !slices.Contains(readWhole, q.p) || !q.p.hasPart(r.text) || !sharedOwner().MatchString(it.Text[o.end:q.at]) {
					continue
				}
				return fmt.Sprintf("%s of %s reads %q of %s (%q) but the whole truth of %s, which maintains %q too: write `%s.%s` and `%s.%s` to read the part of each, or name %s apart (\", and `%s`\") to read it whole",
					quoteName(it), n.ID, r.text, r.owner.ID, r.words, q.p.ID, r.text, r.owner.ID, r.text, q.p.ID, r.text, q.p.ID, q.p.ID)
			}
		}
	}
	return ""
}

// sharedOwner matches the words between two nodes that make the second
// an owner of what was tied to the first: "and", "and of", "or of", ", of".
var sharedOwner = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[*\s]*(?:(?:and|or|&)\s+(?:of\s+)?(?:the\s+)?|,\s*of\s+(?:the\s+)?)[*\s]*$`)
})

// unknownFacet explains a reference the sentence calls a facet (`F`
// facet, facet `F`) that none of its producers has: a typo would
// otherwise subscribe to the whole truth. "" when there is none.
func unknownFacet(n *Node, it *Item, rs []ref, prods []*named) string {
	for _, r := range rs {
		if r.negated || r.at < 0 || !facetWorded(it.Text, r) {
			continue
		}
		var cands []string
		known := false
		for _, x := range prods {
			if len(x.p.facetsOf(r.text)) > 0 || x.p.hasPart(r.text) {
				known = true
			}
			cands = append(cands, x.p.Facets...)
			cands = append(cands, x.p.Families...)
		}
		if known || len(prods) == 0 || strings.Contains(strings.ToLower(r.text), "atomic") {
			continue
		}
		var ids []string
		for _, x := range prods {
			ids = append(ids, x.p.ID)
		}
		msg := fmt.Sprintf("%s of %s names the facet %q, which %s does not maintain", quoteName(it), n.ID, r.text, strings.Join(ids, ", "))
		if best := nearest(r.text, cands); best != "" {
			return msg + fmt.Sprintf("; did you mean %q?", best)
		}
		if len(cands) > 0 {
			return msg + fmt.Sprintf(" (facets: %s)", strings.Join(cands, ", "))
		}
		return msg + " (it has no facets: subscribe to its whole truth)"
	}
	return ""
}

// facetWorded reports whether the sentence calls reference r a facet:
// the word "facet" right after it or right before it.
func facetWorded(text string, r ref) bool {
	after := strings.ToLower(strings.TrimLeft(text[r.end:], "*` "))
	before := strings.ToLower(strings.TrimRight(text[:r.at], "*` "))
	return strings.HasPrefix(after, "facet") || strings.HasSuffix(before, "facet")
}

// nodeRef is a reference to a node, where the sentence names it.
type nodeRef struct {
	ref
	p *Node
}

// The expressions below are compiled on first use, not at start: prose
// lint links this package, and most of its runs never read a sentence.
var (
	// possessive is the text between a node and the facet it owns:
	// "`X`'s `F`", "`X` gateway's per-account `F`", "`X` **`F`**".
	possessive = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(['’]s)?\s*(\*\*)?\s*((gateway|responsibility|node|truth)['’]s\s*)?(\*\*)?\s*((own|per-[a-z-]+|cheap|named|narrow)\s+)*(\*\*)?$`)
	})
	// facetOf is the text between a facet and the node that owns it:
	// "`F` facet of `X`", "`F` facet on the `X`" ("the `F` facets of `X`
	// and `Y`" ties F to neither: each has it).
	facetOf = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(\*\*)?\s*facet\s*(\*\*)?\s+(of|on|from|in)\s+(the\s+)?(\*\*)?$`)
	})
)

// partOf is the text between a part and the node that owns it without
// the word facet: "the `F` of `X`", "`F` from the `X`".
var partOf = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(\*\*)?\s+(of|from)\s+(the\s+)?(\*\*)?$`)
})

var (
	plainAfter = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:['’]s)?\s+(?:(?:gateway|responsibility|node)['’]s\s+)?([A-Za-z][\w:-]*)\s+facet\b`)
	})
	plainBefore = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b([A-Za-z][\w:-]*)\s+facet\s+(?:of|on|from)\s+(?:the\s+)?$`)
	})
)

// plainFacets are the plain words the sentence calls a facet right beside
// node reference r.
func plainFacets(text string, r ref) []string {
	var out []string
	if m := plainAfter().FindStringSubmatch(text[r.end:]); m != nil {
		out = append(out, m[1])
	}
	if m := plainBefore().FindStringSubmatch(text[:r.at]); m != nil {
		out = append(out, m[1])
	}
	return out
}

// owner is the node the sentence ties a part reference to ("`X`'s `F`",
// "the `F` facet of `X`"), or nil: a part not tied to a node applies to
// every producer of the item that has it.
func owner(text string, r ref, nodes []nodeRef) *Node {
	if r.at < 0 {
		return nil
	}
	var before, after *nodeRef
	for i := range nodes {
		x := &nodes[i]
		if x.end <= r.at && (before == nil || x.end > before.end) {
			before = x
		}
		if x.at >= r.end && (after == nil || x.at < after.at) {
			after = x
		}
	}
	if before != nil && possessive().MatchString(text[before.end:r.at]) {
		return before.p
	}
	if after != nil && (facetOf().MatchString(text[r.end:after.at]) || partOf().MatchString(text[r.end:after.at])) {
		return after.p
	}
	return nil
}

// sentenceFacets lists the facets of p the references name, and those a
// negated reference excludes; a reference tied to another node is not
// p's.
func sentenceFacets(p *Node, rs []ref) (parts, excluded []string) {
	for _, r := range rs {
		if r.owner != nil && r.owner != p {
			continue
		}
		for _, f := range p.facetsOf(r.text) {
			if r.negated {
				if !contains(excluded, f) {
					excluded = append(excluded, f)
				}
			} else if !contains(parts, f) {
				parts = append(parts, f)
			}
		}
	}
	var kept []string
	for _, f := range parts {
		if !contains(excluded, f) {
			kept = append(kept, f)
		}
	}
	return kept, excluded
}

// partWords quotes the words that named p's facets.
func partWords(rs []ref, p *Node) string {
	var ws []string
	last := map[string]int{}
	for i, r := range rs {
		if !r.negated && (r.owner == nil || r.owner == p) && len(p.facetsOf(r.text)) > 0 {
			last[r.text] = i
		}
	}
	for i, r := range rs {
		if j, ok := last[r.text]; ok && i == j {
			ws = append(ws, fmt.Sprintf("facet named in %q", r.words))
		}
	}
	return strings.Join(ws, "; ")
}

// negatedWords are the words of the negated reference that excluded
// p's facet f.
func negatedWords(rs []ref, p *Node, f string) string {
	for _, r := range rs {
		if r.negated && contains(p.facetsOf(r.text), f) {
			return r.words
		}
	}
	return ""
}

// facetsOf lists p's facets a reference names: the facet itself, a
// family by its `stem:<key>`, its stem (`acct`) or one key of it
// (`stem:alice`), or, for
// `stem:<key>`, every declared facet with that stem.
func (p *Node) facetsOf(t string) []string {
	if contains(p.Facets, t) || p.hasFamily(t) {
		return []string{t}
	}
	for _, f := range p.Families {
		// `acct` names the family `acct:<id>`.
		if stem, _ := Family(f); stem == t+":" {
			return []string{f}
		}
	}
	if stem, ok := Family(t); ok {
		for _, f := range p.Families {
			if s, _ := Family(f); s == stem {
				return []string{f}
			}
		}
		var out []string
		for _, f := range p.Facets {
			if strings.HasPrefix(f, stem) {
				out = append(out, f)
			}
		}
		return out
	}
	return nil
}

// hasFamily reports whether t is one of p's facet families or one key
// of one (`eligible:alice` of `eligible:<login>`).
func (p *Node) hasFamily(t string) bool {
	for _, f := range p.Families {
		if f == t {
			return true
		}
		if stem, _ := Family(f); strings.HasPrefix(t, stem) && len(t) > len(stem) && !strings.ContainsAny(t, "<>") {
			return true
		}
	}
	return false
}

// ownedParts applies rule (c) without a node: the parts the references
// name (facets, families, fields) that exactly one node has.
func (g *Graph) ownedParts(n *Node, it *Item, rs []ref, edge func(*Node, string, string, string) *Edge) []*Edge {
	var owner *Node
	var parts, words []string
	for _, p := range g.Nodes {
		if p == n {
			continue
		}
		fs, excluded := sentenceFacets(p, rs)
		var ws []string
		for _, r := range rs {
			if !r.negated && (len(p.facetsOf(r.text)) > 0 || contains(p.Fields, r.text) && r.at >= 0) {
				ws = append(ws, r.words)
			}
			if !r.negated && r.at >= 0 && contains(p.Fields, r.text) && !contains(fs, r.text) && !contains(excluded, r.text) {
				fs = append(fs, r.text)
			}
		}
		if len(fs) == 0 {
			continue
		}
		if owner != nil {
			return nil
		}
		owner, parts, words = p, fs, ws
	}
	if owner == nil {
		return nil
	}
	var out []*Edge
	for _, part := range parts {
		out = append(out, edge(owner, part, "reference", fmt.Sprintf("%s: parts of %s alone", quoteAll(words), owner.ID)))
	}
	return out
}

func quoteAll(ws []string) string {
	var q []string
	for _, w := range ws {
		q = append(q, fmt.Sprintf("%q", w))
	}
	return strings.Join(q, ", ")
}

// unsatisfied explains why an unbound item is an error, or returns ""
// when it is a caller input.
func (g *Graph) unsatisfied(n *Node, it *Item) string {
	var cands []string
	for _, p := range g.Nodes {
		if p == n {
			continue
		}
		cands = append(cands, p.ID)
		if p.Name != p.ID && p.Name != "" {
			cands = append(cands, p.Name)
		}
		for _, f := range append(append([]string{}, p.Facets...), p.Fields...) {
			cands = append(cands, f, p.ID+"."+f)
		}
		if p.Spec.Truth != nil {
			cands = append(cands, p.Spec.Truth.Names...)
		}
	}
	what := quoteName(it)
	names := []string{it.Name}
	for _, sp := range spans(it.Text) { // backticked or bold
		names = append(names, sp.text)
	}
	for _, r := range names[1:] {
		if head, _, _ := strings.Cut(r, "."); g.funcs[head] && g.byID[head] == nil && g.ref(head) == nil {
			return fmt.Sprintf("%s of %s names %s, a function: a function keeps no truth to subscribe to, it is called; call it from %s's ### Execution (let x = call %s ...), or read the node whose truth holds its result", what, n.Label(), head, n.Label(), head)
		}
	}
	for _, r := range names {
		if r == "" || n.self(r) {
			continue
		}
		if best := nearest(r, cands); best != "" {
			return fmt.Sprintf("%s of %s: nothing maintains %q; did you mean %s?", what, n.ID, r, best)
		}
	}
	low := asciiLower(it.Text)
	if i := strings.Index(low, "maintained by `"); i >= 0 {
		r := backticked(it.Text[i:])
		if len(r) > 0 {
			return fmt.Sprintf("%s of %s: no node %q maintains it (nodes: %s)", what, n.ID, r[0], strings.Join(g.ids(n), ", "))
		}
	}
	return ""
}

// plainNode is a hint for an item nothing maintains that names a node
// as a plain word after from, of or by ("from totals"): wiring reads a
// node in backticks or bold only. "" when it names none.
func (g *Graph) plainNode(n *Node, it *Item) string {
	for _, m := range plainFrom().FindAllStringSubmatch(it.Text, -1) {
		w := strings.TrimRight(m[1], "._")
		if p := g.ref(w); p != nil && p != n && (p.ID == w || p.Name == w) {
			// an italic name (*summary*, _summary_) is a plain word too
			return fmt.Sprintf(" (it names %s as a plain word, which wiring does not read: write `%s`, in backticks, to read that node)", w, w)
		}
	}
	return ""
}

// edgeType explains an edge whose subscriber declares its input of a type
// the producer's field, declared of another type, never has (`total`
// (number) read from a `total` (string)), or returns "". Decided: an
// error; integer feeds number, and a union or any is left to the drain,
// which checks the value itself (reconcile.Inputs). A field declared
// optional (null where there is no value) feeding an input declared of
// a type without null, neither optional, is one too: the drain refuses
// the null when it comes.
func (g *Graph) edgeType(n *Node, e *Edge) string {
	var in *spec.Input
	for _, x := range n.Spec.Inputs {
		if x.Name == e.Input {
			in = x
		}
	}
	p := g.byID[e.Producer]
	if in == nil || in.Type == "" || p == nil {
		return ""
	}
	for _, o := range p.Spec.Outputs {
		if o.Facet || o.Name != e.Facet || o.Type == "" {
			continue
		}
		if nullable(o.Type, o.Optional) && !nullable(in.Type, in.Optional || in.HasDefault) {
			return fmt.Sprintf("input %q of %s is declared %s, but %s maintains %s as optional (%s): it may be null; declare the input (%s, optional), or the field required",
				in.Name, n.Label(), in.Type, p.Label(), o.Name, p.Spec.File.Position(o.Pos), in.Type)
		}
		a, b := strings.ToLower(o.Type), strings.ToLower(in.Type)
		for strings.HasSuffix(a, "[]") && strings.HasSuffix(b, "[]") {
			a, b = a[:len(a)-2], b[:len(b)-2]
		}
		if a == b || a == "integer" && b == "number" || strings.ContainsAny(a+b, "|") || a == "any" || b == "any" ||
			!knownType(a) || !knownType(b) {
			return ""
		}
		return fmt.Sprintf("input %q of %s is declared %s, but %s maintains %s as %s (%s): declare the same type on both sides",
			in.Name, n.Label(), in.Type, p.Label(), o.Name, o.Type, p.Spec.File.Position(o.Pos))
	}
	return ""
}

// nullable reports whether a value declared typ (optional or not) may
// be null.
func nullable(typ string, optional bool) bool {
	if optional {
		return true
	}
	for p := range strings.SplitSeq(strings.ToLower(typ), "|") {
		if t := strings.TrimSpace(p); t == "null" || t == "any" {
			return true
		}
	}
	return false
}

// knownType reports whether typ is a known type name, alone or as a list.
func knownType(typ string) bool {
	_, ok := spec.BaseType(strings.TrimSuffix(typ, "[]"))
	return ok
}

// unknownMaintainer explains a bound item whose sentence says it is
// "maintained by `X`" where X names no node (by id, name or title, alone
// or as `X.part`), or returns "". Decided: an error, though another rule
// bound the item: the sentence states the producer, and a name it
// misspells may be the node the author meant while the item is wired to
// another one that maintains a part of the same name.
func (g *Graph) unknownMaintainer(n *Node, it *Item) string {
	low := asciiLower(it.Text)
	for i := strings.Index(low, "maintained by `"); i >= 0; {
		r := backticked(it.Text[i:])
		if len(r) > 0 && !n.self(r[0]) && g.ref(r[0]) == nil {
			node, _, dotted := strings.Cut(r[0], ".")
			if !dotted || g.ref(node) == nil {
				var cands []string
				for _, p := range g.Nodes {
					cands = append(cands, p.ID)
					if p.Name != "" && p.Name != p.ID {
						cands = append(cands, p.Name)
					}
				}
				hint := ""
				if best := nearest(node, cands); best != "" {
					hint = fmt.Sprintf("; did you mean %s?", best)
				}
				return fmt.Sprintf("%s of %s says it is maintained by %q, which names no node%s (nodes: %s)", quoteName(it), n.ID, r[0], hint, strings.Join(g.ids(n), ", "))
			}
		}
		next := strings.Index(low[i+1:], "maintained by `")
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return ""
}

func (g *Graph) ids(except *Node) []string {
	var out []string
	for _, p := range g.Nodes {
		if p != except {
			out = append(out, p.ID)
		}
	}
	sort.Strings(out)
	return out
}

// Nearest returns the candidate closest to s within a small edit
// distance (not s itself), or "": for did-you-mean.
func Nearest(s string, cands []string) string { return nearest(s, cands) }

func nearest(s string, cands []string) string {
	limit := 1
	if len(s) >= 6 {
		limit = 2
	}
	return didyoumean.Matcher{Fold: strings.ToLower, Limit: didyoumean.Within(limit)}.Closest(s, cands)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// order drops the edges that close a cycle (reporting each), computes
// heights and sorts nodes by (height, id) and edges by their
// subscriber's place.
func (g *Graph) order() diag.List {
	var diags diag.List
	sort.Slice(g.Nodes, func(i, j int) bool { return g.Nodes[i].ID < g.Nodes[j].ID })
	const (
		white = iota
		grey
		black
	)
	color := make(map[string]int, len(g.Nodes))
	var stack []string
	drop := map[*Edge]bool{}
	g.indexIn() // In by subscriber, not by a scan of every edge per node
	var visit func(id string)
	visit = func(id string) {
		color[id] = grey
		stack = append(stack, id)
		for _, e := range g.In(id) {
			if drop[e] {
				continue
			}
			switch color[e.Producer] {
			case grey:
				i := len(stack) - 1
				for stack[i] != e.Producer {
					i--
				}
				path := append([]string{}, stack[i:]...)
				path = append(path, e.Producer)
				for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
					path[l], path[r] = path[r], path[l]
				}
				n := g.byID[e.Subscriber]
				diags.Errorf(n.Spec.File, e.pos, CodeCycle,
					"input %q of %s closes a cycle: %s (each node would wait on itself): break it by dropping one Requires item on it (this one, or the one of %s that reads %s); feedback from a node's own output is its prior truth (\"prior `%s`\") with a self-driven ### Continuity, never an edge",
					e.Input, n.ID, strings.Join(path, " → "), e.Producer, path[len(path)-2], n.ID)
				drop[e] = true
				g.Cyclic = true
			case white:
				visit(e.Producer)
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
	}
	for _, n := range g.Nodes {
		if color[n.ID] == white {
			visit(n.ID)
		}
	}
	var kept []*Edge
	for _, e := range g.Edges {
		if !drop[e] {
			kept = append(kept, e)
		}
	}
	g.Edges = kept
	g.indexIn()
	var height func(n *Node) int
	done := make(map[string]bool, len(g.Nodes))
	height = func(n *Node) int {
		if done[n.ID] {
			return n.Height
		}
		h := 0
		for _, e := range g.In(n.ID) {
			h = max(h, height(g.byID[e.Producer])+1)
		}
		n.Height, done[n.ID] = h, true
		return h
	}
	for _, n := range g.Nodes {
		height(n)
	}
	sort.SliceStable(g.Nodes, func(i, j int) bool {
		a, b := g.Nodes[i], g.Nodes[j]
		if a.Height != b.Height {
			return a.Height < b.Height
		}
		return a.ID < b.ID
	})
	place := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		place[n.ID] = i
	}
	sort.SliceStable(g.Edges, func(i, j int) bool {
		a, b := g.Edges[i], g.Edges[j]
		if place[a.Subscriber] != place[b.Subscriber] {
			return place[a.Subscriber] < place[b.Subscriber]
		}
		if a.Input != b.Input {
			return a.Input < b.Input
		}
		if a.Producer != b.Producer {
			return a.Producer < b.Producer
		}
		return a.Facet < b.Facet
	})
	return diags
}

// callerWords are the ways an item says the caller gives it: "supplied
// by the caller", "caller-provided", "the caller's request", "caller
// input".
// (Compiled on first use, as the project's patterns are.)
var callerWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:(?:supplied|provided|given|passed(?: in)?|sent) by the caller|caller[- ](?:provided|supplied|given|input)|the caller's)\b`)
})

// callerSays reports whether an item's text says the caller gives it.
func callerSays(text string) bool { return callerWords().MatchString(text) }

// Slips of a bound sentence (decided). A sentence that binds producers
// may still name what none of them is; read as it stands, the item would
// silently subscribe to a whole truth the author did not mean (an object
// where a number was meant), so:
//
//   - a backticked name that is no node, part or world-model name of any
//     node but is within a small edit distance of a node's id, name or
//     title (`ordres` beside `orders`) is an error: the node it misspells
//     is left out of the fan-in;
//   - a backticked name, no part of any node, that the sentence ties to
//     a producer it reads whole ("the `F` of `X`", "`F` from `X`", "`X`'s
//     `F`") is an error: the words name a part of it, the binding is its
//     whole truth; with did-you-mean when the name is within that
//     distance of one of its fields or facets (`totl`, `totals` of
//     `total`). Not tied, such a near-miss is a warning: the name may be
//     something else the sentence speaks of (a key inside a part);
//   - a word of exclusion before such a name, near a part of a producer
//     read whole or called a facet ("never its `histroy` facet"), is an
//     error: it excludes nothing, and the part meant is read;
//   - a plain word the sentence ties to a producer it reads whole ("the
//     totl of `orders`", "`orders`' total") that is one of its fields or
//     near one is a warning with did-you-mean: a plain word may be
//     English, so it is a guess, and the author confirms the whole truth
//     by naming the producer alone or the field by `X.F`; so is an
//     item's name that is the plural or singular of a part of a producer
//     it reads whole (`totals`). (Only that: an item's name is the
//     consumer's to choose, and `amount` is two edits from `count`.)
//     So is a backticked field of a producer read whole that the
//     sentence does not tie to it ("`alert-state`, with its `status`"):
//     the author may have meant that field, where the whole truth is an
//     object; a sentence that says it reads the whole ("atomic",
//     "whole", "entire") names the field as what it speaks of, and is no
//     slip.
//
// A backticked field of the producer tied to it ("the `total` of
// `orders`") is bound to that field (sentence), so it is no slip.
// fieldOfFacet warns of an item that reads a facet of a producer and
// names, in backticks, a field of that producer it does not read ("the
// `total` of the `totals` facet of `orders`"): the input is the whole
// facet, an object, where the words point at the one field. Decided: a
// warning, as a facet may be described by the fields it holds ("the
// `totals` facet, with its `total` and `count`"); it names the
// `producer.field` that reads the field alone. The item's own name, as
// its key, is the consumer's word and is passed over.
func (g *Graph) fieldOfFacet(n *Node, it *Item, edges []*Edge) diag.List {
	var diags diag.List
	read := map[string]bool{}
	for _, e := range edges {
		read[e.Producer+"."+e.Facet] = true
	}
	for _, e := range edges {
		p := g.byID[e.Producer]
		if p == nil || e.Facet == Atomic || !contains(p.Facets, e.Facet) || e.Rule != "reference" && e.Rule != "explicit" {
			continue
		}
		for _, r := range refs(it) {
			if r.negated || r.at <= 0 || !contains(p.Fields, r.text) || read[p.ID+"."+r.text] || contains(p.Facets, r.text) {
				continue
			}
			diags.Warnf(n.Spec.File, it.Pos, CodeUnsatisfied, "%s of %s reads the facet %s of %s, an object, and names its field %s (%q): as written the input is the whole facet; write `%s.%s` to read the field alone",
				quoteName(it), n.ID, e.Facet, p.ID, r.text, r.words, p.ID, r.text)
			return diags
		}
	}
	return diags
}

func (g *Graph) slips(n *Node, it *Item, edges []*Edge) diag.List {
	var diags diag.List
	f := n.Spec.File
	whole := map[*Node]bool{}
	var prods []*Node
	for _, e := range edges {
		if e.Rule != "reference" && e.Rule != "explicit" {
			continue
		}
		p := g.byID[e.Producer]
		if p == nil {
			continue
		}
		if !containsNode(prods, p) {
			prods = append(prods, p)
		}
		if e.Facet == Atomic {
			whole[p] = true
		}
	}
	if len(edges) == 0 {
		return nil
	}
	rs := refs(it)
	var nodeRefs []nodeRef
	for _, r := range rs {
		if p, _, ok := g.dotted(trimPossessive(r.text), n); ok && r.at >= 0 {
			nodeRefs = append(nodeRefs, nodeRef{r, p})
		}
	}
	what := quoteName(it)
	// A field excluded from a producer read whole, or from the very
	// field read ("`totals`, except `revenue`"): an exclusion removes a
	// facet, so as written the field is read all the same.
	for _, r := range rs {
		t := trimPossessive(r.text)
		if !r.negated || r.at < 0 {
			continue
		}
		o := owner(it.Text, r, nodeRefs)
		for _, p := range prods {
			if o != nil && o != p || !contains(p.Fields, t) || contains(p.Facets, t) {
				continue
			}
			read := whole[p]
			for _, e := range edges {
				read = read || e.Producer == p.ID && e.Facet == t
			}
			if !read {
				continue
			}
			var rest []string
			for _, f := range p.Fields {
				if f != t {
					rest = append(rest, "`"+p.ID+"."+f+"`")
				}
			}
			fix := "name the fields it reads"
			if len(rest) > 0 {
				fix += " (" + strings.Join(rest, ", ") + ")"
			}
			diags.Errorf(f, it.Pos, CodeUnsatisfied, "%s of %s excludes the field %s of %s (%q), but an exclusion removes a facet, not a field: as written it reads %s all the same; %s",
				what, n.ID, t, p.ID, r.words, t, fix)
		}
	}
	for _, r := range rs {
		t := trimPossessive(r.text)
		if r.at < 0 || t == it.Name || n.self(t) || g.known(t, n) || isOtherInput(n, it, t) {
			continue
		}
		if r.negated {
			if msg := excludesNothing(n, it, r, t, prods, whole); msg != "" {
				diags.Errorf(f, it.Pos, CodeUnsatisfied, "%s", msg)
			}
			continue
		}
		if node, part, ok := strings.Cut(t, "."); ok {
			if p := g.ref(node); p != nil && p != n {
				msg := fmt.Sprintf("%s of %s names %q, but %s maintains no part %q", what, n.ID, t, p.ID, part)
				if best := nearest(part, partsOf(p)); best != "" {
					msg += fmt.Sprintf("; did you mean `%s.%s`?", p.ID, best)
				} else {
					msg += fmt.Sprintf(" (%s)", partList(p))
				}
				diags.Errorf(f, it.Pos, CodeUnsatisfied, "%s", msg)
				continue
			}
		}
		if best := nearest(t, g.nodeNames(n)); best != "" {
			if strings.HasSuffix(strings.ToLower(it.Text[:r.at]), "maintained by ") {
				continue // unknownMaintainer says it
			}
			from := map[string]bool{}
			var reads []string
			for _, e := range edges {
				if !from[e.Producer] {
					from[e.Producer] = true
					reads = append(reads, e.Producer)
				}
			}
			diags.Errorf(f, it.Pos, CodeUnsatisfied, "%s of %s names %q, which is no node; did you mean %s? As written it reads %s alone",
				what, n.ID, t, best, strings.Join(reads, ", "))
			continue
		}
		if !partName().MatchString(t) {
			continue // a file, a path, `@atomic`: not a part's name
		}
		o := owner(it.Text, r, nodeRefs)
		for _, p := range prods {
			if !whole[p] || o != nil && o != p {
				continue
			}
			if best := nearest(t, partsOf(p)); best != "" {
				fix := fmt.Sprintf("write `%s.%s` to read that part", p.ID, best)
				if it.Name != "" {
					fix += fmt.Sprintf(", or wire it in %s (%s.%s: %s.%s)", WiringFile, n.ID, it.Name, p.ID, best)
				}
				msg := fmt.Sprintf("%s of %s names %q, which %s does not maintain; did you mean %q? As written it reads the whole truth of %s: %s",
					what, n.ID, t, p.ID, best, p.ID, fix)
				if o == p {
					diags.Errorf(f, it.Pos, CodeUnsatisfied, "%s", msg)
				} else {
					diags.Warnf(f, it.Pos, CodeUnsatisfied, "%s", msg)
				}
				break
			}
			if o == p {
				diags.Errorf(f, it.Pos, CodeUnsatisfied, "%s of %s names %q of %s, which it does not maintain (%s); as written it reads the whole truth of %s: name one of its parts (`%s.PART`) or %s alone",
					what, n.ID, t, p.ID, partList(p), p.ID, p.ID, p.ID)
				break
			}
		}
	}
	tied, at := g.nameTiedWhole(n, it, nodeRefs, whole)
	if p := tied; p != nil {
		t := it.Name
		msg := fmt.Sprintf("%s of %s names %q of %s (%q), which it does not maintain (%s); as written it reads the whole truth of %s: name one of its parts (`%s.PART`) or %s alone",
			what, n.ID, t, p.ID, strings.TrimSpace(context(it.Text, at, at+len(t)+2)), partList(p), p.ID, p.ID, p.ID)
		if best := nearest(t, partsOf(p)); best != "" {
			msg = fmt.Sprintf("%s of %s names %q of %s, which it does not maintain; did you mean %q? As written it reads the whole truth of %s: write `%s.%s` to read that part",
				what, n.ID, t, p.ID, best, p.ID, p.ID, best)
		}
		diags.Errorf(f, it.Pos, CodeUnsatisfied, "%s", msg)
	}
	// The guesses, one warning for the item: each producer once, with the
	// word that points at its part.
	type saying struct {
		word, part string
		by         []string
	}
	var sayings []*saying
	var fixes []string
	seen := map[*Node]bool{}
	if tied != nil {
		seen[tied] = true // the error above says it
	}
	guess := func(p *Node, word, part string) {
		if seen[p] {
			return
		}
		seen[p] = true
		fixes = append(fixes, fmt.Sprintf("`%s.%s`", p.ID, part))
		for _, x := range sayings {
			if x.word == word && x.part == part {
				x.by = append(x.by, p.ID)
				return
			}
		}
		sayings = append(sayings, &saying{word, part, []string{p.ID}})
	}
	for _, p := range prods {
		if whole[p] && it.Name != "" && !p.hasPart(it.Name) {
			best := plural(it.Name, partsOf(p))
			if best == "" && !p.worldName(it.Name) {
				// `revenue-band` from `totals`, which maintains
				// `revenue_band`: the item reads the whole truth,
				// where its name says the field.
				best = sameWords(it.Name, partsOf(p))
			}
			if best != "" {
				guess(p, it.Name, best)
			}
		}
	}
	// A plain name before a dash (`- counts — the tallies from `feed``)
	// is the item's name as its author wrote it, though neither the spec
	// nor the wiring reads it as one: the producer's part of that name
	// is what the item means.
	if m := dashName().FindStringSubmatch(it.Text); m != nil && m[1] != it.Name {
		for _, p := range prods {
			if !whole[p] {
				continue
			}
			best := sameWords(m[1], partsOf(p))
			if p.hasPart(m[1]) {
				best = m[1]
			}
			if best != "" {
				guess(p, m[1], best)
			}
		}
	}
	// A backticked field of a producer read whole, not tied to another
	// node ("`alert-state`, with its `status`"), unless the sentence says
	// it reads the whole ("its atomic facet", "the whole truth").
	for _, r := range rs {
		t := trimPossessive(r.text)
		if r.negated || r.at < 0 || t == it.Name || isInput(n, t) || wholeWorded().MatchString(it.Text) {
			continue
		}
		o := owner(it.Text, r, nodeRefs)
		for _, p := range prods {
			if whole[p] && (o == nil || o == p) && contains(p.Fields, t) {
				guess(p, t, t)
			}
		}
	}
	for _, nr := range nodeRefs {
		if nr.negated || !whole[nr.p] {
			continue
		}
		p := nr.p
		for _, w := range plainParts(it.Text, nr.ref) {
			best := w
			if !contains(partsOf(p), w) {
				if len(w) < 4 {
					continue
				}
				if best = nearest(w, partsOf(p)); best == "" {
					continue
				}
			}
			guess(p, w, best)
		}
	}
	if len(sayings) > 0 {
		var said []string
		for _, x := range sayings {
			verb := "maintains"
			if len(x.by) > 1 {
				verb = "maintain"
			}
			said = append(said, fmt.Sprintf("%q (%s %s %q)", x.word, strings.Join(x.by, ", "), verb, x.part))
		}
		var whom []string
		for _, p := range prods {
			if seen[p] {
				whom = append(whom, p.ID)
			}
		}
		diags.Warnf(f, it.Pos, CodeUnsatisfied, "%s of %s reads the whole truth of %s, but it says %s: write %s to read that part, or name the producer alone to read the whole truth",
			what, n.ID, strings.Join(whom, ", "), strings.Join(said, ", "), strings.Join(fixes, ", "))
	}
	return diags
}

var (
	// wholeWorded is a sentence that says it reads a whole truth.
	wholeWorded = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(\b(atomic|whole|entire)\b|@atomic)`)
	})
	// partName is what a field's or facet's name looks like.
	partName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z][\w:-]*$`)
	})
	// plainFrom is a plain word after from, of or by: "the count from
	// feed".
	plainFrom = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:from|of|by)\s+(?:the\s+)?[*_]?([A-Za-z][\w.-]*)`)
	})
	// dashName is an item's plain name before a dash: "counts — the
	// tallies".
	dashName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Za-z][\w-]*) +(?:—|–|-) `)
	})
	// plainOf is a plain word tied to the node after it: "the totl of `X`".
	plainOf = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b([A-Za-z][\w-]*)\s+(?:of|from)\s+(?:the\s+)?(?:\*\*)?$`)
	})
	// plainOwned is a plain word tied to the node before it: "`X`'s totl".
	plainOwned = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:\*\*)?['’]s?\s+([A-Za-z][\w-]*)`)
	})
)

// plainParts are the plain words the sentence ties to node reference r:
// "the W of `X`", "`X`'s W".
func plainParts(text string, r ref) []string {
	var out []string
	if m := plainOf().FindStringSubmatch(text[:r.at]); m != nil {
		out = append(out, m[1])
	}
	if m := plainOwned().FindStringSubmatch(text[r.end:]); m != nil {
		out = append(out, m[1])
	}
	return out
}

// excludesNothing explains a word of exclusion whose name is no part of
// a producer the item reads whole but near one of its parts, or called
// a facet ("never its `histroy` facet"), or returns "": the exclusion
// removes nothing, so the item reads the very part its author excluded.
// Decided: an error.
func excludesNothing(n *Node, it *Item, r ref, t string, prods []*Node, whole map[*Node]bool) string {
	if !partName().MatchString(t) {
		return ""
	}
	for _, p := range prods {
		if !whole[p] {
			continue
		}
		best := nearest(t, partsOf(p))
		if best == "" && !facetWorded(it.Text, r) {
			continue
		}
		msg := fmt.Sprintf("%s of %s excludes %q (%q), which %s does not maintain, so it excludes nothing: it reads the whole truth of %s",
			quoteName(it), n.ID, t, r.words, p.ID, p.ID)
		if best != "" {
			return msg + fmt.Sprintf("; did you mean %q?", best)
		}
		return msg + fmt.Sprintf(" (%s)", partList(p))
	}
	return ""
}

// plural returns the part that name is the plural or singular of
// (`totals`, `entries`, `boxes` of `total`, `entry`, `box`), or "".
func plural(name string, parts []string) string {
	low := strings.ToLower(name)
	for _, p := range parts {
		lp := strings.ToLower(p)
		for _, pair := range [][2]string{{low, lp}, {lp, low}} {
			one, many := pair[0], pair[1]
			if one == "" || many == "" {
				continue
			}
			if many == one+"s" || many == one+"es" || strings.HasSuffix(one, "y") && many == one[:len(one)-1]+"ies" {
				return p
			}
		}
	}
	return ""
}

// sameWords is the part of parts that name writes with other case or
// separators (`revenue-band`, `revenueBand` for `revenue_band`), or,
// for a name of five letters or more, one letter apart (`totall`); ""
// when none is. An item's name is often its field's, so closer than
// nearest's two letters (`amount` is not `count`).
func sameWords(name string, parts []string) string {
	bareName := bareWords(name)
	for _, p := range parts {
		if bareWords(p) == bareName {
			return p
		}
	}
	if len(name) < 5 {
		return ""
	}
	return didyoumean.Matcher{Fold: strings.ToLower, Limit: didyoumean.Within(1)}.Closest(name, parts)
}

// bareWords is s in lower case without its dashes, underscores and
// spaces: `revenue-band`, `Revenue_band` and `revenue band` are one.
func bareWords(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range strings.ToLower(s) {
		if r != '-' && r != '_' && r != ' ' {
			b = utf8.AppendRune(b, r)
		}
	}
	return string(b)
}

// known reports whether t is a node (or `node.part`), or a part or
// world-model name of some node.
func (g *Graph) known(t string, self *Node) bool {
	if _, _, ok := g.dotted(t, self); ok {
		return true
	}
	for _, p := range g.Nodes {
		if p.hasPart(t) || len(p.facetsOf(t)) > 0 || p.hasFamily(t) || p.worldName(t) {
			return true
		}
	}
	return false
}

// nodeNames are the ids, names and titles of the nodes but self.
func (g *Graph) nodeNames(self *Node) []string {
	var out []string
	for _, p := range g.Nodes {
		if p == self {
			continue
		}
		out = append(out, p.ID)
		if p.Name != "" && p.Name != p.ID {
			out = append(out, p.Name)
		}
		if p.Title != "" && !strings.EqualFold(p.Title, p.ID) && !strings.EqualFold(p.Title, p.Name) {
			out = append(out, p.Title) // not "Totals" beside totals: a suggestion names what to write
		}
	}
	return out
}

// partsOf lists p's fields, facets and families.
func partsOf(p *Node) []string {
	return append(append(append([]string{}, p.Fields...), p.Facets...), p.Families...)
}

// partList says what p maintains, for a message.
func partList(p *Node) string {
	if ps := partsOf(p); len(ps) > 0 {
		return "its parts: " + strings.Join(ps, ", ")
	}
	return "it declares no parts"
}

// isOtherInput reports whether name is one of n's declared inputs that
// another item of its Requires declares: a sentence may speak of it. The
// input the spec reads from it's own item is no such name (a sentence
// whose first backticked name is not a plain name, `eligible:<login>`,
// gives its input the next one, which may be a misspelt producer).
func isOtherInput(n *Node, it *Item, name string) bool {
	for _, in := range n.Spec.Inputs {
		if in.Name == name && n.ItemOf(in) != it {
			return true
		}
	}
	return false
}

// ItemOf is the Requires item of n that declares input in (nil when none
// does, as for an input with no place). Their names may differ: the spec
// names a sentence's input by its first backticked plain name, where the
// item takes the first backticked text (`eligible:<login>`), and the
// drain gives each input under its item's name.
func (n *Node) ItemOf(in *spec.Input) *Item {
	if !in.Pos.IsValid() {
		return nil
	}
	for i, it := range n.Items {
		if in.Pos >= it.Pos && (i+1 == len(n.Items) || in.Pos < n.Items[i+1].Pos) {
			return it
		}
	}
	return nil
}

// isInput reports whether name is one of n's declared inputs.
func isInput(n *Node, name string) bool {
	for _, in := range n.Spec.Inputs {
		if in.Name == name {
			return true
		}
	}
	return false
}

func containsNode(ns []*Node, p *Node) bool {
	for _, x := range ns {
		if x == p {
			return true
		}
	}
	return false
}

// wholeType explains an input declared of a type its value never has,
// or returns "": a whole truth is one JSON object, and so is an input of
// several edges (a fan-in, keyed by producer, or by part when one
// producer gives every part), which the drain does not check
// (reconcile.Inputs). Decided: an error, as edgeType; a union or any is
// left to the drain.
func wholeType(n *Node, edges []*Edge) string {
	var e *Edge
	for _, x := range edges {
		if x.Facet == Atomic {
			e = x
			break
		}
	}
	if e == nil && len(edges) < 2 {
		return ""
	}
	what := ""
	if len(edges) > 1 {
		var from []string
		for _, x := range edges {
			from = append(from, x.Producer+"."+strings.TrimPrefix(x.Facet, "@"))
		}
		e = edges[0]
		what = fmt.Sprintf("it reads %s, an object keyed by producer or part", strings.Join(from, ", "))
	} else {
		what = fmt.Sprintf("it reads the whole truth of %s, which is an object", e.Producer)
	}
	var in *spec.Input
	for _, x := range n.Spec.Inputs {
		if x.Name == e.Input {
			in = x
		}
	}
	if in == nil || in.Type == "" {
		return ""
	}
	t := strings.ToLower(strings.TrimSpace(in.Type))
	base, list := strings.CutSuffix(t, "[]")
	if strings.Contains(t, "|") || !knownType(base) || !list && (base == "object" || base == "any") {
		return ""
	}
	return fmt.Sprintf("input %q of %s is declared %s, but %s: name the one part it reads (`%s.PART`) or declare it object",
		in.Name, n.Label(), in.Type, what, e.Producer)
}

// nameTiedWhole finds the item's own name said again in its sentence and
// tied there to a producer the item reads whole, of which it is no part
// ("`mood`: the `mood` of `signals`", where signals maintains no
// `mood`): the words name a part, the binding is the whole truth, so the
// input would be an object where the sentence means one value. Decided:
// an error, as for any other backticked name so tied (slips); the item's
// name alone, not repeated ("`mood`: the latest mood from `signals`"),
// stays the consumer's to choose. It returns the producer and where the
// name is said, or nil.
func (g *Graph) nameTiedWhole(n *Node, it *Item, nodeRefs []nodeRef, whole map[*Node]bool) (*Node, int) {
	name := it.Name
	if name == "" || n.self(name) || isOtherInput(n, it, name) {
		return nil, 0
	}
	quoted := "`" + name + "`"
	if !strings.Contains(it.Text, quoted) {
		return nil, 0
	}
	// A keyed item's first word declares the name; in a sentence item
	// (`- the `totl` of `orders`.`, named by its first backticked word)
	// every occurrence is the sentence's own.
	from := 0
	if strings.HasPrefix(it.Text, quoted) {
		from = len(quoted)
	}
	for {
		i := strings.Index(it.Text[from:], quoted)
		if i < 0 {
			return nil, 0
		}
		at := from + i
		from = at + len(quoted)
		r := ref{text: name, at: at, end: from}
		p := owner(it.Text, r, nodeRefs)
		if p == nil || !whole[p] || p.hasPart(name) || len(p.facetsOf(name)) > 0 || p.hasFamily(name) || p.worldName(name) {
			continue
		}
		return p, at
	}
}
