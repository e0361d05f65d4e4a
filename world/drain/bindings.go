package drain

import (
	"fmt"
	"sort"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/graph"
)

// Bindings say what renders the nodes of one graph, typed (run.Binding)
// and canonical: node ids, not names; each callee list in name order.
type Bindings struct {
	// Nodes binds a node's render by id: run.Exec (a program) or
	// run.Model (a model).
	Nodes map[string]run.Binding
	// Default ("*") binds every node that Nodes does not name and whose
	// ### Execution does not run on the interpreter; nil: none.
	Default run.Binding
	// Callees bind the functions a node's Execution or model render
	// calls, by node id, sorted by name (the elements of a list slot,
	// given under one name, keep their order).
	Callees map[string][]run.Slot
}

// ParseBindings reads bindings as NAME=BINDING assignments, each binding
// read by run.ParseBinding: NODE=exec:COMMAND or NODE=llm[:MODEL] binds a
// node (by id or name), NODE.CALLEE=BINDING a function NODE calls,
// *=BINDING every node not bound otherwise that has no runnable
// Execution. source names the assignments in messages ("--slot"). A node,
// or *, bound twice is an error naming it: the last binding would
// silently win (a callee, NODE.CALLEE, may be a list slot, one binding
// per element).
func ParseBindings(g *graph.Graph, source string, as []run.Assignment) (*Bindings, error) {
	b := &Bindings{Nodes: map[string]run.Binding{}, Callees: map[string][]run.Slot{}}
	for _, a := range as {
		if a.Name == "*" {
			r, err := nodeBinding(source, a.Name, a.Value)
			if err != nil {
				return nil, err
			}
			if b.Default != nil {
				return nil, fmt.Errorf("%s *: given twice: bind every other node once", source)
			}
			b.Default = r
			continue
		}
		n := g.Node(a.Name)
		if n == nil {
			if id, callee, ok := strings.Cut(a.Name, "."); ok && g.Node(id) != nil && callee != "" {
				r, err := run.ParseBinding(a.Value)
				if err != nil {
					return nil, fmt.Errorf("%s %s: %v", source, a.Name, err)
				}
				id = g.Node(id).ID
				b.Callees[id] = append(b.Callees[id], run.Slot{Name: callee, Binding: r})
				continue
			}
			ids := g.Names()
			return nil, fmt.Errorf("%s %s: no such node%s (nodes: %s)", source, a.Name, didYouMean(a.Name, ids), strings.Join(ids, ", "))
		}
		r, err := nodeBinding(source, a.Name, a.Value)
		if err != nil {
			return nil, err
		}
		if _, twice := b.Nodes[n.ID]; twice {
			return nil, fmt.Errorf("%s %s: node %s is bound twice: bind its render once", source, a.Name, n.Label())
		}
		b.Nodes[n.ID] = r
	}
	b.canonical()
	return b, nil
}

// nodeBinding reads the binding of a node's render: a program or a
// model.
func nodeBinding(source, name, text string) (run.Binding, error) {
	r, err := run.ParseBinding(text)
	if _, isExec := r.(run.Exec); err == nil && isExec {
		return r, nil
	}
	if _, isModel := r.(run.Model); err == nil && isModel {
		return r, nil
	}
	return nil, fmt.Errorf("%s %s: binding %q: a node's render takes exec:COMMAND, or llm[:MODEL]", source, name, text)
}

// canonical sorts each callee list by name, stably: the order the
// bindings were given in is no part of what renders a node.
func (b *Bindings) canonical() {
	for _, l := range b.Callees {
		sort.SliceStable(l, func(i, j int) bool { return l[i].Name < l[j].Name })
	}
}

// Callees are the names a binding can bind in a function or
// responsibility (NODE.CALLEE) besides its slots: what its Execution and
// its inline nodes call, the inline nodes, and its own name (its render),
// each once.
func Callees(sp *spec.Spec) []string {
	if sp.Kind != spec.KindFunction && sp.Kind != spec.KindResponsibility {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	called := func(n *spec.Spec) {
		if n.Execution == nil || n.Execution.Program == nil {
			return
		}
		syntax.Walk(n.Execution.Program, func(x syntax.Node) bool {
			if c, ok := x.(*syntax.CallExpr); ok && c.Session == nil { // a session calls a model, no function
				if id, ok := c.Target.(*syntax.Ident); ok {
					add(id.Name)
				}
			}
			return true
		})
	}
	called(sp)
	for _, n := range sp.Nodes {
		add(n.Name)
		called(n)
	}
	add(sp.Name)
	return out
}

func didYouMean(name string, cands []string) string {
	if best := graph.Nearest(name, cands); best != "" {
		return "; did you mean " + best + "?"
	}
	return ""
}
