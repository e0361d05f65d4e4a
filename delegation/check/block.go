package check

import (
	"slices"

	"github.com/proselang/prose/delegation/syntax"
)

// Blocks (delegation/semantics.md, Blocks). A `do:` block is checked where
// it stands, in a scope of its own: the names it binds are gone after it,
// a `let` of a name bound outside shadows it (a warning), and it may
// assign the names around it. A named block is checked after the top
// level, with every top-level name bound (a block may run anywhere after
// its names are bound; one read before that fails at run time, at the
// name) and its parameters: a parameter is never assigned, nor is a
// top-level name (the block returns its value instead). In both, a
// `return` gives the block's value, and continue and break cannot leave
// the block.

// blockBody checks the statements of a block in a scope of its own. fence
// names the block for messages; named marks a named block's body.
func (c *checker) blockBody(fence string, named bool, params []*syntax.Ident, body []syntax.Stmt, do *syntax.DoExpr) {
	m := c.mark()
	loops, parLoop, branch, outer := c.loops, c.parLoop, c.inBranch, c.fence
	outerBlock, outerRet := c.blockScope, c.retStage
	c.retStage = nil // a return ends the block
	c.scope++
	if named {
		c.blockScope = c.scope
	}
	c.loops, c.parLoop, c.inBranch, c.fence = 0, false, false, fence
	c.collect++
	for _, p := range params {
		c.set(p.Name, c.newBinding(binding{kind: kindParam, pos: p.NamePos, level: c.level, scope: c.scope}))
	}
	c.stmts(body)
	if do != nil {
		c.doValue(do) // its names still bound
	}
	c.collect--
	c.loops, c.parLoop, c.inBranch, c.fence = loops, parLoop, branch, outer
	c.blockScope, c.retStage = outerBlock, outerRet
	c.scope--
	c.rollback(m)
	c.forgetAssigned(body) // what it assigned outside has a value the checker no longer follows
}

// doCall checks `do NAME(ARGS)`: a block of that name, given as many
// arguments as it has parameters.
func (c *checker) doCall(e *syntax.DoCallExpr) {
	for _, a := range e.Args {
		c.expr(a, false)
	}
	if e.Def == nil {
		msg := "no block named " + quote(e.Name.Name) + " is defined"
		if s := closest(e.Name.Name, c.blockNames); s != "" {
			msg += "; did you mean " + quote(s) + "?"
		} else {
			msg += ": define it at the top level, block " + e.Name.Name + "(...):"
		}
		c.diags.Errorf(c.f, e.Name.NamePos, CodeUndefinedBlock, "%s", msg)
		return
	}
	if n, want := len(e.Args), len(e.Def.Params); n != want {
		c.diags.Errorf(c.f, e.Name.NamePos, CodeBlockArgs, "block %s takes %d %s (%s, line %d), and this do gives %d: write do %s(%s)",
			e.Name.Name, want, plural(want, "argument"), paramList(e.Def.Params), c.line(e.Def.Block), n, e.Name.Name, paramList(e.Def.Params))
	}
}

// blocks checks the named blocks of prog, after its top level: their
// names and parameters, then their bodies.
func (c *checker) blocks(prog *syntax.Program) {
	seen := map[string]*syntax.BlockStmt{}
	misnamed := map[*syntax.BlockStmt]bool{} // told already: no unused-block for it
	for _, st := range prog.Body {
		b, ok := st.(*syntax.BlockStmt)
		if !ok {
			continue
		}
		name := b.Name.Name
		misnamed[b] = true
		switch first := seen[name]; {
		case first != nil:
			c.diags.Errorf(c.f, b.Name.NamePos, CodeBlockName, "block %s is defined twice (first at line %d): rename one of them", quote(name), c.line(first.Block))
		case c.slots[name] != nil || c.callee(name) != nil:
			c.diags.Errorf(c.f, b.Name.NamePos, CodeBlockName, "block %s has the name of the callee %s: rename the block", quote(name), quote(name))
		case c.node(name) != nil:
			// not called yet, but call NAME would reach the node and do
			// NAME(...) the block: one name for two things
			c.diags.Errorf(c.f, b.Name.NamePos, CodeBlockName, "block %s has the name of the ## node %s (line %d), which call %s runs: rename the block",
				quote(name), quote(name), c.line(c.node(name).Pos), name)
		case c.names[name] != nil:
			c.diags.Errorf(c.f, b.Name.NamePos, CodeBlockName, "block %s has the name of the %s %s (line %d): rename the block", quote(name), kindName(c.names[name].kind), quote(name), c.line(c.names[name].pos))
		default:
			delete(misnamed, b)
		}
		if seen[name] == nil {
			seen[name] = b
		}
		for i, p := range b.Params {
			if slices.ContainsFunc(b.Params[:i], func(q *syntax.Ident) bool { return q.Name == p.Name }) {
				c.diags.Errorf(c.f, p.NamePos, CodeBlockParam, "block %s names the parameter %s twice: rename one of them", name, quote(p.Name))
			}
		}
		c.blockBody("block "+name, true, b.Params, b.Body, nil)
	}
	c.unusedBlocks(prog, misnamed)
}

// node is the ## node of the file named name, or nil.
func (c *checker) node(name string) *Name {
	for i := range c.d.Nodes {
		if c.d.Nodes[i].Name == name {
			return &c.d.Nodes[i]
		}
	}
	return nil
}

// unusedBlocks warns of each named block that no do runs: none in the
// program's statements, nor in a block they run (a block that only runs
// itself is never run). Its body is checked all the same; a forgotten
// do, or a do meant for it under another name, leaves the work undone
// with no error. A block whose name is an error already (misnamed) is
// not warned of again.
func (c *checker) unusedBlocks(prog *syntax.Program, misnamed map[*syntax.BlockStmt]bool) {
	defs := map[string]*syntax.BlockStmt{}
	var roots []syntax.Node
	for _, st := range prog.Body {
		if b, ok := st.(*syntax.BlockStmt); ok {
			if defs[b.Name.Name] == nil {
				defs[b.Name.Name] = b
			}
			continue
		}
		roots = append(roots, st)
	}
	if len(defs) == 0 {
		return
	}
	run := map[string]bool{}
	var visit func(n syntax.Node)
	visit = func(n syntax.Node) {
		syntax.Walk(n, func(m syntax.Node) bool {
			if d, ok := m.(*syntax.DoCallExpr); ok && !run[d.Name.Name] {
				run[d.Name.Name] = true
				if b := defs[d.Name.Name]; b != nil {
					for _, st := range b.Body {
						visit(st)
					}
				}
			}
			return true
		})
	}
	for _, r := range roots {
		visit(r)
	}
	for _, st := range prog.Body {
		if b, ok := st.(*syntax.BlockStmt); ok && !run[b.Name.Name] && defs[b.Name.Name] == b && !misnamed[b] {
			c.diags.Warnf(c.f, b.Name.NamePos, CodeUnusedBlock, "block %s is never run: no do %s(...) reaches it; run it where its work is meant, or drop it", quote(b.Name.Name), b.Name.Name)
		}
	}
}

// blockNamesOf lists the names of prog's named blocks.
func blockNamesOf(prog *syntax.Program) []string {
	var out []string
	for _, st := range prog.Body {
		if b, ok := st.(*syntax.BlockStmt); ok {
			out = append(out, b.Name.Name)
		}
	}
	return out
}

// blockAssign reports a write to a block's parameter, or from a named
// block to a top-level name; it reports whether it did.
func (c *checker) blockAssign(id *syntax.Ident, b *binding) bool {
	switch {
	case b.kind == kindParam:
		c.diags.Errorf(c.f, id.NamePos, CodeBlockAssign, "%s is a parameter of the block (line %d), which nothing assigns: bind the new value to another name (let %s = ...)",
			quote(id.Name), c.line(b.pos), newName(id.Name))
		return true
	case c.blockScope > 0 && b.scope < c.blockScope && (b.kind == kindLocal || b.kind == kindLoopVar):
		c.diags.Errorf(c.f, id.NamePos, CodeBlockAssign, "a block cannot assign the top-level %s (line %d): return the value, and assign it where the block is run (%s = do ...)",
			quote(id.Name), c.line(b.pos), id.Name)
		return true
	}
	return false
}

// paramList is the parameters' names, joined with commas.
func paramList(ps []*syntax.Ident) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += ", "
		}
		s += p.Name
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// blockGivesValue reports whether a block's body can give a value (rule
// 35, as a pipeline stage's body, givesValue) or ends in a throw: when
// it can do neither, the value of a do that reads it is always null
// (decided, as an Execution that never returns is an error, rule 11a).
func blockGivesValue(body []syntax.Stmt) bool {
	if givesValue(body) {
		return true
	}
	throws := false
	for _, s := range body {
		syntax.Walk(s, func(n syntax.Node) bool {
			_, ok := n.(*syntax.ThrowStmt)
			throws = throws || ok
			return !throws
		})
	}
	return throws
}

// lastDoNoValue reports a collecting body (a pipeline stage's, a loop's
// whose list is kept) whose last statement runs a block that gives no
// value: that statement's null is the iteration's value each time it is
// reached (rule 9), as in | reduce(acc, x): do add(acc, x) with add
// ending in a let.
func (c *checker) lastDoNoValue(body []syntax.Stmt) {
	if len(body) == 0 {
		return
	}
	st, ok := body[len(body)-1].(*syntax.ExprStmt)
	if !ok {
		return
	}
	switch x := st.X.(type) {
	case *syntax.DoCallExpr:
		if x.Def != nil && !blockGivesValue(x.Def.Body) {
			c.diags.Errorf(c.f, x.Name.NamePos, CodeBlockNoValue, "block %s (line %d) gives no value (no return, no value on a line of its own), and this do is the last statement of a body whose value is kept, so that value is null: end the block with return VALUE",
				x.Name.Name, c.line(x.Def.Block))
		} else {
			c.nullPath(x)
		}
	case *syntax.DoExpr:
		if !blockGivesValue(x.Body) {
			c.diags.Errorf(c.f, x.Do, CodeBlockNoValue, "this do: block gives no value (no return, no value on a line of its own), and it is the last statement of a body whose value is kept, so that value is null: end it with return VALUE")
		}
	}
}

// valueOnEveryPath reports whether body gives a value on every path
// through it (rule 35): it ends in a return, a throw or a value on a
// line of its own, or in an if with an else, a try or a choice each of
// whose branches does.
func valueOnEveryPath(body []syntax.Stmt) bool {
	if len(body) == 0 {
		return false
	}
	switch s := body[len(body)-1].(type) {
	case *syntax.ReturnStmt, *syntax.ThrowStmt, *syntax.ExprStmt:
		return true
	case *syntax.IfStmt:
		return s.Else != nil && valueOnEveryPath(s.Then) && valueOnEveryPath(s.Else)
	case *syntax.TryStmt:
		return valueOnEveryPath(s.Body) && (len(s.Catch) == 0 || valueOnEveryPath(s.Catch))
	case *syntax.ChoiceStmt:
		for _, o := range s.Options {
			if !valueOnEveryPath(o.Body) {
				return false
			}
		}
		return true
	}
	return false
}

// nullPath warns of a do whose value is read, of a named block that
// gives a value on some paths only: on the others its value is null,
// with no error (the block's `if x > 2: return "big"` with no else).
func (c *checker) nullPath(e *syntax.DoCallExpr) {
	if e.Def == nil || !blockGivesValue(e.Def.Body) || valueOnEveryPath(e.Def.Body) {
		return
	}
	c.diags.Warnf(c.f, e.Name.NamePos, CodeBlockNullPath, "block %s (line %d) gives a value on some paths only, and on the others this do's value is null: end every path with return VALUE (return null where null is meant)",
		e.Name.Name, c.line(e.Def.Block))
}

// doValue records the shape of the value of the do: block e (read by
// shapeOf) where its body's value is always its last statement's (no
// return before it): that statement's shape, with the mark of a
// one-output callee's value only where the run keeps it, a call's or a
// name's value (rule 35 with 27a: v.OUT is v after let v = do: ...
// ending in call NODE). A named block's value is not followed: its body
// is checked after the statements that run it.
func (c *checker) doValue(e *syntax.DoExpr) {
	last := lastValue(e.Body)
	if last == nil {
		return
	}
	sh := c.shapeOf(last)
	switch last.(type) {
	case *syntax.CallExpr, *syntax.Ident, *syntax.DoExpr:
	default:
		sh = unmarked(sh)
	}
	if sh == nil {
		return
	}
	if c.doShapes == nil {
		c.doShapes = map[*syntax.DoExpr]*valueShape{}
	}
	c.doShapes[e] = sh
}
