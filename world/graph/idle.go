package graph

import (
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// CodeIdle is an input-driven responsibility that reads nothing: it
// renders once and never wakes again.
const CodeIdle = "graph/idle"

// inputWords are headings an author may write for ### Requires that the
// loader does not read as it.
var inputWords = []string{"inputs", "input", "dependencies", "depends on", "reads", "subscribes", "subscriptions", "requires"}

// idle reports each input-driven responsibility that reads no other
// node (no Requires item wired, no read_world_model, no caller input):
// its memo key can move only with its contract, so after its first
// render it never renders again, which a node the author meant to follow
// its inputs does in silence (decided: a warning; a heading such as
// `### Inputs` or `### Requires (inputs)` is documentation, and is named).
// An inline node is not reported: one that gathers from nothing is the
// first step of its file's pipeline, as in a run of the file.
func (g *Graph) idle() diag.List {
	var out diag.List
	for _, n := range g.Nodes {
		if n.Kind != spec.KindResponsibility || n.Inline() || n.Wake != WakeInput || len(g.In(n.ID)) > 0 || len(n.CallerInputs) > 0 || len(n.Items) > 0 {
			continue
		}
		at, hint := n.Spec.Pos, ""
		for _, sec := range n.Spec.Sections {
			h := strings.ToLower(strings.Trim(strings.TrimSpace(sec.Heading), "*:"))
			for _, w := range inputWords {
				if sec.Key != "requires" && (h == w || strings.HasPrefix(h, w+" ") || strings.HasPrefix(h, w+"(")) {
					at, hint = sec.Pos, " (its section \""+sec.Heading+"\" is not read as ### Requires: name it so)"
				}
			}
		}
		out.Warnf(n.Spec.File, at, CodeIdle, "%s is input-driven but reads no other node%s: it renders once and never wakes again; give it a ### Requires, or a ### Continuity it wakes by (self-driven: every N hours)", n.Label(), hint)
	}
	return out
}

// CodeNoMaintains is a responsibility or gateway without ### Maintains.
const CodeNoMaintains = "graph/no-maintains"

// truthWords are headings an author may write for ### Maintains that
// the loader does not read as it.
var truthWords = []string{"maintains", "outputs", "output", "state", "truth", "produces", "keeps", "world model", "world-model"}

// noMaintains reports each node with no ### Maintains section (decided:
// a warning): nothing declares its truth, so whatever object a render
// answers is published unchecked, and a subscriber that names it reads
// its whole truth. A heading such as `### Outputs` or `### Maintains
// (truth)` is documentation, and is named.
func (g *Graph) noMaintains() diag.List {
	var out diag.List
	for _, n := range g.Nodes {
		at, hint, has := n.Spec.Pos, "", false
		for _, sec := range n.Spec.Sections {
			h := strings.ToLower(strings.Join(strings.Fields(strings.Trim(strings.TrimSpace(sec.Heading), "*:")), " "))
			if h == "maintains" {
				has = true
			}
			for _, w := range truthWords {
				if h != "maintains" && (h == w || strings.HasPrefix(h, w+" ") || strings.HasPrefix(h, w+"(")) {
					at, hint = sec.Pos, " (its section \""+sec.Heading+"\" is not read as ### Maintains: name it so)"
				}
			}
		}
		for _, in := range n.Spec.Nodes {
			if strings.EqualFold(in.Name, "maintains") {
				at, hint = in.Pos, " (its `## "+in.Name+"` opens an inline node: write it ### Maintains)"
			}
		}
		if has {
			continue
		}
		out.Warnf(n.Spec.File, at, CodeNoMaintains, "%s has no ### Maintains%s: nothing declares its truth, so whatever a render answers is published unchecked; declare its fields under ### Maintains (- `NAME` (TYPE): ...)", n.Label(), hint)
	}
	return out
}
