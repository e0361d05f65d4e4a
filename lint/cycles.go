package lint

import (
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// CodeCallCycle: a node's Execution calls itself, or the calls among the
// nodes of one file go round in a cycle.
const CodeCallCycle = "lint/call-cycle"

// Calls that go round (issue 18, item 33).
//
// Decided: a call cycle among the nodes of one file (its file node and
// its `##` nodes), a node's Execution calling its own name included, is
// an error at the call that closes it, naming the path ("first → second →
// first"). ProseScript has no recursion that the data is sure to end, and
// every call nests one level: such a run can only stop at the nesting
// limit, after running real services on the way (upstream prohibits
// recursive patterns for the same reason). A cycle through other files
// stays a run-time limit (callgraph/callee.go): their files may change
// apart.
//
// The same holds for the wiring of inline nodes by name (an input of one
// is an output of another: callgraph/contract.go runs producers first): a
// cycle there has no first node to run, and is an error at the input
// that closes it, naming the path.
func callCycles(s *spec.Spec, f *spec.Finder) diag.List {
	nodes := append([]*spec.Spec{s}, s.Nodes...)
	type edge struct {
		to  *spec.Spec
		pos diag.Pos
	}
	edges := map[*spec.Spec][]edge{}
	for _, n := range nodes {
		if n.Execution == nil || n.Execution.Program == nil {
			continue
		}
		locals := n.Decls()
		seen := map[string]bool{}
		for _, c := range callTargets(n.Execution.Program) {
			if seen[c.name] || bound(locals, c.name) {
				continue
			}
			seen[c.name] = true
			switch {
			case c.name == n.Name:
				edges[n] = append(edges[n], edge{n, c.pos})
			case c.name == s.Name && n != s:
				edges[n] = append(edges[n], edge{s, c.pos})
			default:
				if cl := n.ResolveCall(c.name, nil, f); cl != nil && cl.Kind == spec.CalleeNode && cl.Node != nil {
					edges[n] = append(edges[n], edge{cl.Node, c.pos})
				}
			}
		}
	}
	// Depth-first from each node in file order; an edge back to a node on
	// the stack closes a cycle, reported once at that call.
	const (
		white = iota
		grey
		black
	)
	color := map[*spec.Spec]int{}
	var stack []*spec.Spec
	var out diag.List
	var visit func(n *spec.Spec)
	visit = func(n *spec.Spec) {
		color[n] = grey
		stack = append(stack, n)
		for _, e := range edges[n] {
			switch color[e.to] {
			case white:
				visit(e.to)
			case grey:
				out.Errorf(n.File, e.pos, CodeCallCycle, "%s", cycleMessage(stack, e.to))
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
	}
	for _, n := range nodes {
		if color[n] == white {
			visit(n)
		}
	}
	return out
}

func cycleMessage(stack []*spec.Spec, to *spec.Spec) string {
	if stack[len(stack)-1] == to {
		return "call " + to.Name + ": " + to.Name + " calls itself, and each call nests one level deeper until the run fails at the nesting limit: recursion is not supported; loop in the Execution instead (repeat, for, loop while)"
	}
	var path []string
	on := false
	for _, n := range stack {
		if n == to {
			on = true
		}
		if on {
			path = append(path, n.Name)
		}
	}
	path = append(path, to.Name)
	return "call " + to.Name + " closes a cycle of calls: " + strings.Join(path, " → ") + "; each call nests one level deeper until the run fails at the nesting limit: break the cycle (recursion is not supported)"
}

// wiringCycles reports cycles among the inline nodes of s wired by name:
// node n depends on the first other node that gives an output named like
// one of n's inputs (as the run wires them). Only a file node without an
// Execution is wired, and only from the nodes that give its outputs or
// inputs.
func wiringCycles(s *spec.Spec) diag.List {
	if s.Execution != nil && s.Execution.Program != nil || len(s.Nodes) == 0 {
		return nil
	}
	produced := map[string]*spec.Spec{}
	for _, n := range s.Nodes {
		if n.Kind != spec.KindFunction && n.Kind != spec.KindResponsibility {
			continue
		}
		for _, o := range n.Outputs {
			if produced[o.Name] == nil {
				produced[o.Name] = n
			}
		}
	}
	color := map[*spec.Spec]int{} // 1 on the stack, 2 done
	var stack []*spec.Spec
	var out diag.List
	var visit func(n *spec.Spec)
	visit = func(n *spec.Spec) {
		color[n] = 1
		stack = append(stack, n)
		for _, in := range n.Inputs {
			p := produced[in.Name]
			if p == nil || p == n {
				continue
			}
			switch color[p] {
			case 0:
				visit(p)
			case 1:
				var path []string
				for i := len(stack) - 1; i >= 0; i-- {
					path = append(path, stack[i].Name)
					if stack[i] == p {
						break
					}
				}
				path = append(path, n.Name)
				out.Errorf(n.File, in.Pos, CodeCallCycle, "input %q of %s comes from %s, which waits on %s in turn: the inline nodes are wired in a cycle (%s, each an input from the next): rename an input or an output to break it",
					in.Name, n.Name, p.Name, n.Name, strings.Join(path, " ← "))
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = 2
	}
	var roots []string
	for _, o := range s.Outputs {
		roots = append(roots, o.Name)
	}
	for _, in := range s.Inputs {
		roots = append(roots, in.Name)
	}
	for _, name := range roots {
		if p := produced[name]; p != nil && color[p] == 0 {
			visit(p)
		}
	}
	return out
}

// CodeTwinProducer: two inline nodes of a file wired without an Execution
// give an output of one name that the wiring reads.
const CodeTwinProducer = "lint/twin-producer"

// twinProducers reports a name that two or more inline nodes of s give
// when s has no Execution and the wiring reads the name (an output or
// input of s, or an input of an inline node): the run takes the first
// node's value and never runs the others (decided: an error at the
// second node's output, naming both, as upstream leaves the choice to
// Forme and a file has no other way to say which).
func twinProducers(s *spec.Spec) diag.List {
	if s.Execution != nil && s.Execution.Program != nil || len(s.Nodes) < 2 {
		return nil
	}
	read := map[string]bool{}
	for _, o := range s.Outputs {
		read[o.Name] = true
	}
	for _, in := range s.Inputs {
		read[in.Name] = true
	}
	for _, n := range s.Nodes {
		for _, in := range n.Inputs {
			read[in.Name] = true
		}
	}
	first := map[string]*spec.Spec{}
	var out diag.List
	for _, n := range s.Nodes {
		if n.Kind != spec.KindFunction && n.Kind != spec.KindResponsibility {
			continue
		}
		for _, o := range n.Outputs {
			p := first[o.Name]
			if p == nil {
				first[o.Name] = n
				continue
			}
			if read[o.Name] {
				out.Errorf(n.File, o.Pos, CodeTwinProducer, "## %s gives %q, which ## %s gives too: the wiring takes %s's and never runs %s for it; rename one output, or write an ### Execution that calls the one meant",
					n.Name, o.Name, p.Name, p.Name, n.Name)
			}
		}
	}
	return out
}
