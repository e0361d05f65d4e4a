package graph

import (
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// Inline nodes (decided). A `## name` heading of a responsibility or
// gateway file opens an inline node (Contract Markdown's file
// extraction). One that is a responsibility by its own sections (it has
// ### Maintains, ### Requires, ### Continuity or ### Goal) is a node of
// the graph like a file's: its Requires are wired, its truth feeds
// whatever requires it, the file's own node included. Inline functions
// stay callees. Its id is its name; when another node has that id or
// name, or another inline node that name, it is FILE-NODE/name (the
// file's node id, a slash, the name) so that each id names one node. It
// has no front matter, so no `id:` is asked of it. A drain renders it by
// its binding (--slot ID=...) or the model, which reads its Execution as
// instructions: the interpreter runs a file's own Execution, never an
// inline node's (Node.Inline).

// CodeSectionNode is a `##` heading named as a section (Maintains,
// Requires, ...) that opens an inline node.
const CodeSectionNode = "graph/section-node"

// inlineNode is an inline node of a file waiting for its id: its spec,
// the file, and the file's own node (nil when that was not added).
type inlineNode struct {
	spec *spec.Spec
	path string
	file *Node
}

// contractSections are the sections that make an inline node of a
// responsibility file a responsibility of its own.
var contractSections = map[string]bool{"maintains": true, "requires": true, "continuity": true, "goal": true}

// isWorldNode reports whether the inline node s is a responsibility or
// gateway of the world by its own sections, in a file that is one.
func isWorldNode(s *spec.Spec) bool {
	if s.Parent == nil || !s.Kind.IsNode() {
		return false
	}
	if !s.Root().Kind.IsNode() {
		return false
	}
	for _, sec := range s.Sections {
		if contractSections[strings.ToLower(strings.TrimSpace(sec.Heading))] {
			return true
		}
	}
	return false
}

// sectionNames are headings of a node's sections: a `## Maintains` that
// comes after the file's `###` sections opens an inline node of that
// name, and the file is left without the section.
var sectionNames = map[string]bool{
	"requires": true, "maintains": true, "continuity": true, "goal": true, "execution": true,
	"receives": true, "emits": true, "environment": true, "runtime": true, "errors": true,
	"tools": true, "parameters": true, "returns": true,
}

// addInline adds the inline nodes, after every file's own node so that
// an inline name a file's node has is qualified wherever it comes.
func (g *Graph) addInline(inline []inlineNode, diags *diag.List) {
	count := map[string]int{}
	for _, in := range inline {
		count[in.spec.Name]++
	}
	for _, in := range inline {
		name := in.spec.Name
		if sectionNames[strings.ToLower(strings.TrimSpace(name))] {
			// Decided: an error, not a node (a heading level slipped).
			diags.Errorf(in.spec.File, in.spec.Pos, CodeSectionNode, "`## %s` opens an inline node named %s, and leaves %s without its %s section: write it ### %s, at the level of the file's other sections",
				name, name, in.spec.Root().Name, name, name)
			continue
		}
		id := name
		other := g.ref(name)
		if count[name] > 1 || other != nil {
			file := strings.TrimSuffix(in.spec.Root().Name, spec.Suffix)
			if in.file != nil {
				file = in.file.ID
			}
			id = strings.Join([]string{file, name}, "/") // a node id, not a call path
		}
		if other != nil && !other.Inline() && other != in.file {
			// Its id is qualified, but its name is another file's node's:
			// `--slot NAME` and a reference by the name reach that one.
			diags.Warnf(in.spec.File, in.spec.Pos, CodeDuplicateName, "inline node %s has the name of %s's node %s: it is %s, and a --slot or a reference by the name %s reaches %s's; rename one, or name this one %s",
				name, other.File, other.Label(), id, name, other.File, id)
		}
		g.add(in.spec, in.path, id, diags)
	}
}

// Inline reports whether n is an inline `##` node of its file: rendered
// by its binding or the model, never by running the file.
func (n *Node) Inline() bool { return n.Spec.Parent != nil }

// CodeInlineExecution is an inline node with an ### Execution, which a
// drain does not run (a warning).
const CodeInlineExecution = "graph/inline-execution"

// inlineExecutions warns of each inline node whose ### Execution is
// ProseScript: a drain renders it by its binding or the model, never
// by the interpreter (see Inline nodes above), so a model would stand in
// for code the author wrote to decide the truth. Decided: a warning at
// the section, naming the two ways to have it run as written.
func (g *Graph) inlineExecutions() diag.List {
	var out diag.List
	for _, n := range g.Nodes {
		if !n.Inline() || n.Spec.Execution == nil || n.Spec.Execution.Program == nil {
			continue
		}
		pos := n.Spec.Pos
		for _, sec := range n.Spec.Sections {
			if sec.Key == "execution" {
				pos = sec.Pos
				break
			}
		}
		out.Warnf(n.Spec.File, pos, CodeInlineExecution, "the ### Execution of %s is not run by a drain: an inline node is rendered by its binding (--slot %s=...) or, given its Execution as instructions, by the model; to have it run as written, move %s into a file of its own (%s.prose.md)",
			n.Label(), n.ID, n.Spec.Name, n.Spec.Name)
	}
	return out
}
