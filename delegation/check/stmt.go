package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

func (c *checker) stmts(body []syntax.Stmt) {
	for _, s := range body {
		c.stmt(s)
	}
}

func (c *checker) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.LetStmt:
		c.expr(s.Value, true)
		sh := c.shapeOf(s.Value)
		c.let(s)
		if b := c.names[s.Name.Name]; b != nil && b.kind == kindLocal && b.level == c.level {
			b.shape = sh // c.let bound a new binding
		}
	case *syntax.AssignStmt:
		c.expr(s.Value, false)
		sh := c.shapeOf(s.Value)
		c.assign(s)
		if id, ok := s.LHS.(*syntax.Ident); ok {
			c.setShape(id.Name, sh)
		}
	case *syntax.ExprStmt:
		outer := c.doStmt
		c.doStmt = s.X
		c.expr(s.X, false)
		c.doStmt = outer
	case *syntax.IfStmt:
		c.cond(s.Cond)
		c.alternatives(func() { c.stmts(s.Then) }, func() { c.stmts(s.Else) })
	case *syntax.WhileStmt:
		c.while(s)
	case *syntax.ParallelStmt:
		c.parallelBlock(s)
	case *syntax.ChoiceStmt:
		c.choice(s) // choice.go
	case *syntax.TryStmt:
		c.alternatives(func() { c.stmts(s.Body) }, func() {
			live := len(c.live)
			defer func() { c.live = c.live[:live] }()
			if s.CatchVar != nil {
				c.bindVar(s.CatchVar, nil)
				if b := c.names[s.CatchVar.Name]; b != nil {
					b.shape = c.caughtShape(s.Body) // bindVar bound a new binding
				}
			}
			c.stmts(s.Catch)
		})
		c.stmts(s.Finally)
	case *syntax.AppendStmt:
		c.expr(s.Value, false)
		c.appendTarget(s)
	case *syntax.BranchStmt:
		c.branch(s)
	case *syntax.ReturnStmt:
		if c.retStage != nil {
			c.pipeReturn(s, c.retStage)
		}
		c.ret(s)
	case *syntax.ThrowStmt:
		c.expr(s.Value, false)
	case *syntax.BlockStmt:
		// checked after the top level (blocks)
	}
}

// alternatives checks blocks of which one runs (then/else, try/catch):
// each starts from the names bound before it, so a name bound in both is
// not a re-declaration, and every name any of them binds is visible after.
//
// A name's shape after them is the join of what each block left it (its
// shape before them for a block that did not bind it).
func (c *checker) alternatives(blocks ...func()) {
	m := c.mark()
	base := len(c.bound)  // c.bound[base:]: name and its binding after the first block binding it
	jbase := len(c.joins) // c.joins[jbase:]: the shapes the blocks left each name
	for _, run := range blocks {
		run()
		for i, u := range c.journal[m:] {
			if slices.ContainsFunc(c.journal[m:m+i], func(x undo) bool { return x.name == u.name }) {
				continue // this block bound the name before: counted once
			}
			sh := c.bshape(c.names[u.name])
			if j := slices.IndexFunc(c.joins[jbase:], func(x shapeJoin) bool { return x.name == u.name }); j >= 0 {
				j += jbase
				c.joins[j].shape, c.joins[j].blocks = join(c.joins[j].shape, sh), c.joins[j].blocks+1
			} else {
				c.joins = append(c.joins, shapeJoin{u.name, sh, 1})
			}
			if !slices.ContainsFunc(c.bound[base:], func(x undo) bool { return x.name == u.name }) {
				c.bound = append(c.bound, undo{u.name, c.names[u.name]})
			}
		}
		c.rollback(m)
	}
	for i := jbase; i < len(c.joins); i++ {
		if before := c.names[c.joins[i].name]; before != nil && c.joins[i].blocks < len(blocks) {
			c.joins[i].shape = join(c.joins[i].shape, c.bshape(before))
		}
	}
	for _, u := range c.bound[base:] {
		c.set(u.name, u.old)
	}
	clear(c.bound[base:])
	c.bound = c.bound[:base]
	for _, j := range c.joins[jbase:] {
		if b := c.names[j.name]; b != nil && c.bshape(b) != j.shape {
			c.setShape(j.name, j.shape)
		}
	}
	clear(c.joins[jbase:])
	c.joins = c.joins[:jbase]
}

// assignable reports whether the current body may assign the outer
// binding b: a variable of its own thread, not one across a parallel or
// pipeline body (check/parallel-assign) nor a top-level name from a named
// block (check/block-assign). A shadowing let suggests the assignment
// only then, so following the hint never gives an error.
func (c *checker) assignable(b *binding) bool {
	return b.kind == kindLocal && !b.constant && b.level == c.level &&
		!(c.blockScope > 0 && b.scope < c.blockScope)
}

// shapeJoin is a name's shape joined over the blocks that bound it.
type shapeJoin struct {
	name   string
	shape  *valueShape
	blocks int
}

// let binds s.Name, or reports it when the name is already bound.
func (c *checker) let(s *syntax.LetStmt) {
	name := s.Name.Name
	old := c.names[name]
	if old == nil {
		c.set(name, c.newBinding(binding{kind: kindLocal, pos: s.Name.NamePos, level: c.level, scope: c.scope, constant: s.Const}))
		return
	}
	if old.kind == kindParam && old.scope == c.scope {
		c.blockAssign(s.Name, old)
		return
	}
	if old.scope < c.scope {
		// a block's let makes the block's own name (upstream: shadowing
		// an outer binding is a warning)
		fix := "give it another name"
		if c.assignable(old) {
			fix += ", or write " + name + " = ... to change that one"
		}
		c.diags.Warnf(c.f, s.Name.NamePos, CodeRedeclared,
			"let %s in the block makes a name of its own, which hides the %s of line %d until the block ends: %s",
			quote(name), quote(name), c.line(old.pos), fix)
		c.set(name, c.newBinding(binding{kind: kindLocal, pos: s.Name.NamePos, level: c.level, scope: c.scope, constant: s.Const}))
		return
	}
	if old.constant || s.Const {
		if c.pipeVarWrite(old, name, s.Name.NamePos) {
			return
		}
		kw := "let"
		if s.Const {
			kw = "const"
		}
		what := "the const " + quote(name)
		if !old.constant {
			what = quote(name) + ", already bound"
		}
		c.diags.Errorf(c.f, s.Name.NamePos, CodeConstAssign,
			"%s %s binds %s (line %d) again: a const is bound once; give this value another name, or declare %s with let if it changes",
			kw, quote(name), what, c.line(old.pos), quote(name))
		return
	}
	if old.level < c.level {
		// Refused though the body's scope would make the name its own
		// (semantics.md, rule 3): the same line outside the body assigns
		// the outer name, so a loop made parallel, or a stage made
		// pmap, would change what it does without a word.
		c.diags.Errorf(c.f, s.Name.NamePos, CodeParallelAssign,
			"let %s inside a %s names the outer %s (line %d): outside it this let would assign that name, here it would make one of the body's own, hiding it (%s): bind a new name, or collect values with append",
			quote(name), c.bodyWord(), quote(name), c.line(old.pos), c.raceWord())
		return
	}
	if c.liveVar(s.Name, old) {
		return
	}
	switch old.kind {
	case kindLocal, kindLoopVar:
		c.diags.Warnf(c.f, s.Name.NamePos, CodeRedeclared,
			"'%s' is already bound (line %d): this let is an assignment; write %s = ... instead",
			name, c.line(old.pos), name)
	default:
		// `let x = x` copies an input or config value into a variable of
		// the same name: harmless and idiomatic.
		if id, ok := s.Value.(*syntax.Ident); ok && id.Name == name {
			break
		}
		c.diags.Warnf(c.f, s.Name.NamePos, CodeRedeclared,
			"let %s rebinds the declared %s %s; choose another name", quote(name), kindName(old.kind), quote(name))
	}
	c.set(name, c.newBinding(binding{kind: kindLocal, pos: old.pos, level: old.level, scope: old.scope}))
}

// assign checks `NAME = v` and `NAME[i] = v`.
func (c *checker) assign(s *syntax.AssignStmt) {
	switch lhs := s.LHS.(type) {
	case *syntax.Ident:
		b := c.names[lhs.Name]
		if b == nil {
			c.undeclaredAssign(lhs)
			c.set(lhs.Name, c.newBinding(binding{kind: kindLocal, pos: lhs.NamePos, level: c.level, scope: c.scope}))
			return
		}
		if c.blockAssign(lhs, b) {
			return
		}
		if b.constant {
			if c.pipeVarWrite(b, lhs.Name, lhs.NamePos) {
				return
			}
			c.diags.Errorf(c.f, lhs.NamePos, CodeConstAssign,
				"%s is a const (line %d): it cannot be assigned; give this value another name, or declare %s with let if it changes",
				quote(lhs.Name), c.line(b.pos), quote(lhs.Name))
			return
		}
		if c.liveVar(lhs, b) {
			return
		}
		c.outerWrite(lhs, b, "assigns")
		if b.kind == kindInput || b.kind == kindConfig || b.kind == kindSlot {
			// upstream: reassigning a parameter is an error; the value
			// is the caller's, and `limit = x` meant for a local would
			// change what every later reading of the input gives
			c.diags.Errorf(c.f, lhs.NamePos, CodeInputAssign,
				"assignment to the %s %s: it holds the caller's value and cannot be assigned; bind the new value to another name (let %s = ...)",
				kindName(b.kind), quote(lhs.Name), newName(lhs.Name))
		}
	case *syntax.IndexExpr:
		c.expr(lhs.X, false)
		c.expr(lhs.Index, false)
		if root := rootIdent(lhs.X); root != nil {
			if b := c.names[root.Name]; b != nil {
				c.outerWrite(root, b, "writes into")
			}
		}
	default:
		c.expr(s.LHS, false)
	}
}

// newName is a name to suggest for a value meant to replace the
// declared name.
func newName(name string) string {
	if strings.Contains(name, "_") {
		return "new_" + name
	}
	return "new-" + name
}

// undeclaredAssign reports `NAME = VALUE` where no let declared NAME. The
// likely fix is the missing let; a misspelling is suggested only among
// names an assignment could mean (variables: let-bound or assigned), never
// a slot, config key or input that merely looks alike (`review = call
// reviewer` wants `let review`, not `reviewer`).
func (c *checker) undeclaredAssign(id *syntax.Ident) {
	msg := "assignment to undeclared name " + quote(id.Name)
	if slices.Contains(c.siblings, id.Name) {
		msg += ": it is bound by another branch of this parallel block, and branches run at the same time; use it after the block"
		c.diags.Errorf(c.f, id.NamePos, CodeUndefinedName, "%s", msg)
		return
	}
	var locals []string
	for n, b := range c.names {
		if b.kind == kindLocal {
			locals = append(locals, n)
		}
	}
	msg += ": declare it with `let " + id.Name + " = ...`"
	if s := closest(id.Name, locals); s != "" {
		msg += ", or did you mean " + quote(s) + "?"
	}
	c.diags.Errorf(c.f, id.NamePos, CodeUndefinedName, "%s", msg)
}

// outerWrite reports a write to a name bound outside the current parallel
// body: one the resolver put in an enclosing frame (syntax.Outer), or one
// the body binds itself but has not bound yet where it writes it (the
// write then reaches the enclosing frame's slot, Binding.Shadows). The
// evaluator refuses both writes at run time. Inside a block, whose frame
// a write may leave (a do: block's), only the parallel depth tells.
func (c *checker) outerWrite(id *syntax.Ident, b *binding, verb string) {
	if b.level < c.level || id.Binding.Scope == syntax.Outer && c.scope == 0 {
		fix := "collect values with append, or return them from the body"
		if c.pipeLevel > 0 && c.pipeLevel == c.level {
			// a running total in a map body is what a reduce stage is for
			fix = "give the item's value and fold the values with a later stage, | reduce(acc, x):, or collect them with append"
		}
		c.diags.Errorf(c.f, id.NamePos, CodeParallelAssign,
			"a %s %s the outer %s; %s: %s",
			c.bodyWord(), verb, quote(id.Name), c.raceWord(), fix)
	}
}

// appendTarget checks the list of append/record: it must be bound. Adding
// to an outer list from a parallel body is allowed: the evaluator merges
// such appends at the join, in index order (semantics.md, rule 15a).
func (c *checker) appendTarget(s *syntax.AppendStmt) {
	c.expr(s.List, false)
}

// caughtError is the shape of what `catch as NAME` binds, the members
// delegation.Error.Object gives (semantics.md, rule 30): a member it
// cannot have (problem.mesage) reads null at run time, so it is reported
// with the name meant. Its kind is one of the kinds a catch runs for
// (delegation.Error.Catchable), so `err.kind == "not-found"`, a declared
// error's name compared with the kind rather than with err.error, is a
// comparison that never holds.
var caughtError = &valueShape{kind: kObject, closed: true, from: "a caught error has the members", fields: []Name{
	{Name: "message", Type: "string"}, {Name: "kind", Type: `"call" | "throw" | "runtime" | "judge"`, From: "the kind of a caught error; a declared error's name is its member error"}, {Name: "slot"}, {Name: "attempts"},
	{Name: "value"}, {Name: "error"},
}}

// caughtShape is the shape of the error a catch of a try whose body is
// body binds: caughtError, with its member error one of the names the
// body's callees declare when they are all known (every call in the body
// is of a callee whose errors are, and nothing in it throws), so that
// `err.error == "notfound"`, where the callee declares not-found, is a
// comparison that never holds rather than a catch branch that never runs.
func (c *checker) caughtShape(body []syntax.Stmt) *valueShape {
	var names []string
	known := true
	for _, st := range body {
		syntax.Walk(st, func(x syntax.Node) bool {
			switch x := x.(type) {
			case *syntax.ThrowStmt:
				known = false
			case *syntax.CallExpr:
				id, ok := x.Target.(*syntax.Ident)
				ce := (*Callee)(nil)
				if ok {
					ce = c.callee(id.Name)
				}
				if ce == nil || !ce.ErrorsKnown {
					known = false
					break
				}
				for _, e := range ce.Errors {
					if !slices.Contains(names, e) {
						names = append(names, e)
					}
				}
			}
			return known
		})
	}
	if !known || len(names) == 0 {
		return caughtError
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	s := *caughtError
	s.fields = slices.Clone(caughtError.fields)
	for i, f := range s.fields {
		if f.Name == "error" {
			s.fields[i].Type = strings.Join(quoted, " | ")
			s.fields[i].From = "the errors the calls in the try declare"
		}
	}
	return &s
}

// bindVar binds a loop or catch variable. over is the loop's source (nil
// for repeat counters and catch variables).
func (c *checker) bindVar(id *syntax.Ident, over syntax.Expr) {
	if old := c.names[id.Name]; old != nil && old.kind == kindParam && old.scope == c.scope {
		c.blockAssign(id, old)
	}
	b := c.newBinding(binding{kind: kindLoopVar, pos: id.NamePos, level: c.level, scope: c.scope})
	if src, ok := over.(*syntax.Ident); ok {
		if ob := c.names[src.Name]; ob != nil {
			switch ob.kind {
			case kindSlot:
				b.service, b.slot = true, src.Name
			case kindInput:
				b.service = true
			}
		}
	}
	// Loop and catch variables are rebound silently; in a parallel body
	// they are per-iteration and shadow any outer name.
	c.set(id.Name, b)
	c.live = append(c.live, b)
}

// liveVar reports an assignment (or let) of a loop or catch variable
// inside the body it was bound for, and whether it did.
func (c *checker) liveVar(id *syntax.Ident, b *binding) bool {
	if b.kind != kindLoopVar || !slices.Contains(c.live, b) {
		return false
	}
	c.diags.Errorf(c.f, id.NamePos, CodeLoopVarAssign,
		"%s is the loop or catch variable bound on line %d: it holds this iteration's value and cannot be assigned in its body; bind the new value to another name (let %s = ...)",
		quote(id.Name), c.line(b.pos), newName(id.Name))
	return true
}

func (c *checker) while(s *syntax.WhileStmt) {
	if s.Open {
		c.openLoop(s) // openloop.go
	} else {
		c.invariantCond(s)
	}
	if s.Open {
		if s.Max != nil {
			c.count(s.Max, "loop max")
		}
	} else if s.Max == nil {
		kw := "while"
		if s.Until {
			kw = "until"
		}
		c.diags.Errorf(c.f, s.Loop, CodeUnboundedLoop,
			"loop %s has no bound: add (max: N)", kw)
	} else {
		c.count(s.Max, "loop max")
	}
	if !s.Until {
		c.cond(s.Cond)
	}
	live := len(c.live)
	if s.Var != nil {
		c.bindVar(s.Var, nil)
	}
	c.forgetAssigned(s.Body)
	outer, branch := c.parLoop, c.inBranch
	c.parLoop, c.inBranch = false, false
	c.loops++
	c.stmts(s.Body)
	c.loops--
	c.live = c.live[:live]
	// An until condition is tested after each iteration, where the
	// body's names are bound. The body was checked from what holds before
	// any iteration, so where it ends is what holds at every test, and the
	// condition reads the shapes it gave (`loop until verdict.acepted`
	// after `let verdict = call judge` is an unknown member), unless a
	// continue reaches the test from the middle of the body.
	tested := false
	if s.Until && !continues(s.Body) {
		c.cond(s.Cond)
		tested = true
	}
	c.forgetAssigned(s.Body) // after any number of iterations
	c.parLoop, c.inBranch = outer, branch
	if s.Until && !tested {
		c.cond(s.Cond)
	}
}

// invariantCond reports a loop whose condition is an expression that
// reads no name its body changes (binds, assigns, or changes in place),
// nor the loop's counter, nor calls anything, in a loop that no break,
// return or throw leaves: the condition is the same at every test, so
// `loop until review.score >= bar` whose body calls the worker but never
// the critic again runs to its max in silence (a while loop: none or all
// of its iterations). A body that changes a list or object in place
// (append, xs[i] = v) may change what the condition reads through
// another name, and is not judged.
func (c *checker) invariantCond(s *syntax.WhileStmt) {
	if s.Max == nil || len(s.Body) == 0 {
		return
	}
	var read []string
	if nc, natural := s.Cond.(*syntax.NaturalCond); natural {
		// a judged condition reads the values of the bound names it
		// mentions: the same values give the judge the same question
		for _, w := range nc.Words {
			if root := rootOf(w.Path); c.names[root] != nil && !slices.Contains(read, root) {
				read = append(read, root)
			}
		}
		if len(read) == 0 {
			return
		}
	}
	calls := false
	syntax.Walk(s.Cond, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Ident:
			if !slices.Contains(read, x.Name) {
				read = append(read, x.Name)
			}
		case *syntax.CallExpr:
			calls = true
		}
		return true
	})
	if calls {
		return
	}
	changed := map[string]bool{}
	if s.Var != nil {
		changed[s.Var.Name] = true
	}
	leaves := false
	bind := func(id *syntax.Ident) {
		if id != nil {
			changed[id.Name] = true
		}
	}
	for _, st := range s.Body {
		syntax.Walk(st, func(n syntax.Node) bool {
			switch x := n.(type) {
			case *syntax.ReturnStmt, *syntax.ThrowStmt, *syntax.AppendStmt:
				leaves = true
			case *syntax.BranchStmt:
				leaves = leaves || x.Break
			case *syntax.LetStmt:
				bind(x.Name)
			case *syntax.AssignStmt:
				if id, ok := x.LHS.(*syntax.Ident); ok {
					bind(id)
				} else {
					leaves = true // a change in place
				}
			case *syntax.ForExpr:
				bind(x.Var)
				bind(x.Index)
			case *syntax.RepeatExpr:
				bind(x.Var)
			case *syntax.WhileStmt:
				bind(x.Var)
			case *syntax.TryStmt:
				bind(x.CatchVar)
			}
			return true
		})
	}
	if leaves {
		return
	}
	for _, name := range read {
		if changed[name] {
			return
		}
	}
	kw, ends := "while", "no iteration or all of them"
	if s.Until {
		kw, ends = "until", "one iteration or all of them"
	}
	names := "reads no name"
	if len(read) > 0 {
		names = "reads " + strings.Join(read, ", ") + ", none of which its body changes"
	}
	c.diags.Warnf(c.f, s.Cond.Pos(), CodeLoopInvariant,
		"loop %s: its condition %s, so the condition is the same at every test and the loop runs %s: give a name it reads a new value in the body (as the call that decides it), or write repeat N",
		kw, names, ends)
}

// continues reports whether body holds a `continue` of its own loop (not
// of a loop nested in it).
func continues(body []syntax.Stmt) bool {
	found := false
	for _, st := range body {
		syntax.Walk(st, func(n syntax.Node) bool {
			switch x := n.(type) {
			case *syntax.WhileStmt, *syntax.ForExpr, *syntax.RepeatExpr:
				return false
			case *syntax.BranchStmt:
				found = found || !x.Break
			}
			return !found
		})
	}
	return found
}

// parallelBlock checks `parallel:` branches: each runs in its own scope
// and sees none of its siblings' names; the names its top-level lets bind
// are visible after the block.
func (c *checker) parallelBlock(s *syntax.ParallelStmt) {
	c.parallelMods(s)
	type newName struct {
		id *syntax.Ident
	}
	var bound []newName
	seen := map[string]bool{}
	outer, base := c.siblings, len(c.sibStack)
	for _, br := range s.Branches {
		if let, ok := br.(*syntax.LetStmt); ok && c.names[let.Name.Name] == nil {
			c.sibStack = append(c.sibStack, let.Name.Name)
		}
	}
	c.siblings = c.sibStack[base:len(c.sibStack):len(c.sibStack)]
	defer func() { c.siblings, c.sibStack = outer, c.sibStack[:base] }()
	for _, br := range s.Branches {
		m, loops, branch := c.mark(), c.loops, c.inBranch
		c.level++
		c.loops, c.inBranch = 0, true
		c.stmt(br)
		c.level--
		c.loops, c.inBranch = loops, branch
		c.rollback(m)
		let, ok := br.(*syntax.LetStmt)
		if !ok || c.names[let.Name.Name] != nil {
			continue
		}
		if seen[let.Name.Name] {
			c.diags.Errorf(c.f, let.Name.NamePos, CodeParallelAssign,
				"two parallel branches bind %s; they would race", quote(let.Name.Name))
			continue
		}
		seen[let.Name.Name] = true
		bound = append(bound, newName{let.Name})
	}
	for _, n := range bound {
		c.set(n.id.Name, c.newBinding(binding{kind: kindLocal, pos: n.id.NamePos, level: c.level, scope: c.scope}))
	}
}

// ret checks a return: inside a collecting loop body it gives the
// iteration's value; elsewhere it ends the delegation and its keys are
// compared with the declared outputs.
func (c *checker) ret(s *syntax.ReturnStmt) {
	if c.collect == 0 && c.d.ReturnRule {
		c.returnShape(s)
		c.returnFits(s)
	}
	if s.Value == nil {
		if c.collect == 0 {
			// a bare return gives null, as `return null` does: it
			// returns no output (no value could be one unseen)
			c.anyTopLevel = true
		}
		return
	}
	c.expr(s.Value, false)
	c.placeholders(s.Value)
	if c.collect > 0 {
		return
	}
	c.anyTopLevel = true
	obj, ok := s.Value.(*syntax.ObjectLit)
	if !ok {
		if _, null := s.Value.(*syntax.NullLit); !null {
			c.opaqueRet = true
		}
		return
	}
	if !c.d.ReturnRule {
		c.typedOutputsReturned(obj)
	}
	declared := c.declaredOutputs()
	// under the return rule, an object holding every output has its
	// other keys dropped: returnFits reports them as errors
	dropped := c.d.ReturnRule && len(c.required()) > 0 && c.holdsOutputs(obj)
	for _, f := range obj.Fields {
		c.returned[f.Key] = true
		if declared && !c.d.ReturnRule && !c.declaresOutput(f.Key) {
			// a key that misspells an output the object lacks: the
			// output is missing from the value, with exit 0
			if near := closest(f.Key, c.outputNames()); near != "" && !slices.ContainsFunc(obj.Fields, func(g *syntax.Field) bool { return g.Key == near }) {
				c.lacking[near] = true
				c.diags.Errorf(c.f, f.KeyPos, CodeReturnShape,
					"returned key %s is no declared output, and the object lacks the output %s it is close to: did you mean %s: ...?", quote(f.Key), quote(near), near)
				continue
			}
		}
		if declared && !dropped && !c.declaresOutput(f.Key) && !c.missesOneOutput(obj, f.Key) {
			c.diags.Warnf(c.f, f.KeyPos, CodeUndeclaredOutput,
				"returned key %s is not a declared output%s", quote(f.Key), c.suggestFrom(f.Key, c.outputNames()))
		}
	}
}

// typedOutputsReturned reports, for a pattern's Delegation (no return
// rule), an object literal it returns that lacks an output declared with
// a type and not optional, or gives it a literal null: the run refuses
// that value (callgraph.CheckPatternResult; an untyped output, as
// upstream writes them, may be left out).
func (c *checker) typedOutputsReturned(obj *syntax.ObjectLit) {
	var typed []Name
	for _, o := range c.d.Outputs {
		if o.Inferred || o.Part || !refusesNull(o) {
			continue
		}
		typed = append(typed, o)
		if !slices.ContainsFunc(obj.Fields, func(f *syntax.Field) bool { return f.Key == o.Name }) {
			c.lacking[o.Name] = true
			c.diags.Errorf(c.f, obj.Lbrace, CodeReturnShape,
				"the returned object lacks the output %s, which is declared (%s): add %s: VALUE, or declare `%s` (%s, optional) if only some returns give it",
				quote(o.Name), o.Type, o.Name, o.Name, o.Type)
		}
	}
	c.nullOutputs(obj, typed, "the pattern")
}

// nearOneOutput reports a returned object literal that lacks the node's
// one output out but has a key that misspells it (`return {sumary: r}`
// for `summary`): by the return rule the whole object would become the
// output, {"summary": {"sumary": ...}}, with exit 0 (decided: an error,
// check/return-shape; an object meant as the output is written {out:
// {...}}, and keys that are not near the output's name stay a warning).
func (c *checker) nearOneOutput(s *syntax.ReturnStmt, out string) {
	obj, ok := s.Value.(*syntax.ObjectLit)
	if !ok {
		return
	}
	for _, f := range obj.Fields {
		if c.missesOneOutput(obj, f.Key) {
			c.diags.Errorf(c.f, f.KeyPos, CodeReturnShape,
				"returned key %s is not the output %s: without the key %s the whole object becomes the output; did you mean {%s: ...}? (to give an object as the output, write {%s: {...}})",
				quote(f.Key), quote(out), quote(out), out, out)
			return
		}
	}
}

// missesOneOutput reports whether key, of the returned object literal
// obj, misspells the node's one output, which obj lacks.
func (c *checker) missesOneOutput(obj *syntax.ObjectLit, key string) bool {
	req := c.required()
	if !c.d.ReturnRule || len(req) != 1 || slices.ContainsFunc(obj.Fields, func(f *syntax.Field) bool { return f.Key == req[0] }) {
		return false
	}
	return closest(key, req) == req[0]
}

// holdsOutputs reports whether an object literal has every required
// output's key.
func (c *checker) holdsOutputs(obj *syntax.ObjectLit) bool {
	for _, r := range c.required() {
		if !slices.ContainsFunc(obj.Fields, func(f *syntax.Field) bool { return f.Key == r }) {
			return false
		}
	}
	return true
}

// required are the outputs a node's value must hold (declared, not
// inferred, not a facet of a truth), in order.
func (c *checker) required() []string {
	var out []string
	for _, o := range c.d.Outputs {
		if !o.Inferred && !o.Part {
			out = append(out, o.Name)
		}
	}
	return out
}

// returnShape checks a top-level return of an Execution under the return
// rule: with two or more outputs, a bare return, a literal that is not an
// object, or an object literal without one of them can only fail at run
// time ("returns string, but it declares 2 outputs"). A name or a call
// may hold any value and is not judged.
func (c *checker) returnShape(s *syntax.ReturnStmt) {
	req := c.required()
	if len(req) == 1 {
		c.nearOneOutput(s, req[0])
		return
	}
	if len(req) < 2 {
		return
	}
	what := "it declares"
	if c.d.Node != "" {
		what = c.d.Node + " declares"
	}
	want := fmt.Sprintf("%s %d outputs (%s): return an object with those keys", what, len(req), strings.Join(req, ", "))
	var got string
	switch v := s.Value.(type) {
	case nil:
		got = "nothing"
	case *syntax.StringLit:
		got = "a string"
	case *syntax.NumberLit:
		got = "a number"
	case *syntax.BoolLit:
		got = "a boolean"
	case *syntax.NullLit:
		got = "null"
	case *syntax.ListLit:
		got = "a list"
	case *syntax.IsExpr:
		got = "a boolean"
	case *syntax.BinaryExpr:
		switch v.Op {
		case syntax.EQ, syntax.NE, syntax.LT, syntax.LE, syntax.GT, syntax.GE:
			got = "a boolean"
		case syntax.PLUS:
			_, l := v.X.(*syntax.StringLit)
			_, r := v.Y.(*syntax.StringLit)
			if !l && !r {
				return
			}
			got = "a string" // text joined to text
		default:
			return
		}
	case *syntax.ObjectLit:
		has := map[string]bool{}
		for _, f := range v.Fields {
			has[f.Key] = true
		}
		var missing []string
		for _, o := range req {
			if !has[o] && !c.optionalOutput(o) {
				missing = append(missing, quote(o))
				c.lacking[o] = true
			}
		}
		if len(missing) == 0 {
			return
		}
		word := "output"
		if len(missing) > 1 {
			word = "outputs"
		}
		c.diags.Errorf(c.f, s.Return, CodeReturnShape, "this object lacks the %s %s: %s", word, strings.Join(missing, ", "), want)
		return
	default:
		return
	}
	c.diags.Errorf(c.f, s.Return, CodeReturnShape, "return gives %s, but %s", got, want)
}

// declaredOutputs reports whether the spec declares outputs (not
// inferred ones).
func (c *checker) declaredOutputs() bool {
	for _, o := range c.d.Outputs {
		if !o.Inferred {
			return true
		}
	}
	return false
}

// declaresOutput reports whether name is a declared (not inferred)
// output: a scan, as the outputs are few.
func (c *checker) declaresOutput(name string) bool {
	for _, o := range c.d.Outputs {
		if !o.Inferred && o.Name == name {
			return true
		}
	}
	return false
}

// outputNames are the declared (not inferred) outputs' names.
func (c *checker) outputNames() []string {
	var out []string
	for _, o := range c.d.Outputs {
		if !o.Inferred {
			out = append(out, o.Name)
		}
	}
	return out
}

// finish reports what only the whole program can tell: outputs never
// returned, config and inputs never read.
func (c *checker) finish() {
	if c.anyTopLevel && !c.opaqueRet {
		for _, o := range c.d.Outputs {
			if !o.Inferred && !o.Part && !c.returned[o.Name] && !c.lacking[o.Name] {
				c.diags.Warnf(c.f, o.Pos, CodeOutputNotReturned,
					"declared output %s is never returned", quote(o.Name))
			}
		}
	}
	config := map[string]bool{}
	for _, cf := range c.d.Config {
		config[cf.Name] = true
		if !c.used[cf.Name] && c.slots[cf.Name] == nil {
			c.diags.Warnf(c.f, cf.Pos, CodeUnusedConfig,
				"config %s is declared but never used", quote(cf.Name))
		}
	}
	for _, in := range c.d.Inputs {
		if config[in.Name] || c.slots[in.Name] != nil || c.used[in.Name] || in.Name == "config" && c.configInput() {
			continue // (the config object of a 0.15 pattern is there to be read when wanted)
		}
		c.diags.Warnf(c.f, in.Pos, CodeUnusedInput,
			"input %s is declared but never used", quote(in.Name))
	}
}

// line is the 1-based line of p, for messages.
func (c *checker) line(p diag.Pos) int { return c.f.Position(p).Line }

func kindName(k bindKind) string {
	switch k {
	case kindSlot:
		return "slot"
	case kindConfig:
		return "config key"
	case kindInput:
		return "input"
	case kindParam:
		return "parameter"
	}
	return "name"
}

// branch checks continue/break: inside a loop, not leaving a parallel:
// branch, and break not leaving a parallel loop's iteration.
func (c *checker) branch(s *syntax.BranchStmt) {
	kw := "continue"
	if s.Break {
		kw = "break"
	}
	switch {
	case c.pipeLoops > 0 && c.loops == c.pipeLoops:
		c.diags.Errorf(c.f, s.Keyword, CodeBranchOutsideLoop, "%s cannot leave a pipeline stage's body (it is no loop of the program's): give the item's value with return", kw)
	case c.loops == 0 && c.fence != "":
		c.diags.Errorf(c.f, s.Keyword, CodeBranchOutsideLoop, "%s cannot leave %s: end the block with return, and decide in the loop around it", kw, c.fence)
	case c.loops == 0 && c.inBranch:
		c.diags.Errorf(c.f, s.Keyword, CodeBranchOutsideLoop, "%s cannot leave a parallel: branch (the branches run at once): end the branch with a value instead", kw)
	case c.loops == 0:
		c.diags.Errorf(c.f, s.Keyword, CodeBranchOutsideLoop, "%s outside a loop", kw)
	case s.Break && c.parLoop:
		c.diags.Errorf(c.f, s.Keyword, CodeBranchOutsideLoop, "break cannot leave a parallel loop (its iterations run at once): use continue or return to end this iteration")
	}
}

// noWinner reports a member read of a name bound to the value of a
// `parallel first` loop when nothing in the program tests that name (`is
// null`, `is present`, `== null`, a condition of the name itself or one
// that mentions it): the value is null when no iteration returns, and
// every member of null reads null, so `return {result: won.out}` gave
// nulls with exit 0 when every candidate failed.
func (c *checker) noWinner(prog *syntax.Program) {
	firsts := map[string]bool{}
	syntax.Walk(prog, func(n syntax.Node) bool {
		if let, ok := n.(*syntax.LetStmt); ok && let.Name != nil {
			switch v := let.Value.(type) {
			case *syntax.ForExpr:
				if v.First {
					firsts[let.Name.Name] = true
				}
			case *syntax.RepeatExpr:
				if v.First {
					firsts[let.Name.Name] = true
				}
			}
		}
		return true
	})
	if len(firsts) == 0 {
		return
	}
	tested := map[string]bool{}
	isName := func(e syntax.Expr) string {
		if id, ok := e.(*syntax.Ident); ok && firsts[id.Name] {
			return id.Name
		}
		return ""
	}
	isNull := func(e syntax.Expr) bool { _, ok := e.(*syntax.NullLit); return ok }
	cond := func(e syntax.Expr) {
		switch x := e.(type) {
		case *syntax.NaturalCond:
			for _, w := range x.Words {
				root, _, _ := strings.Cut(w.Path, ".")
				tested[root] = true
			}
		default:
			// a condition that is the name itself, or its negation
			for {
				if u, ok := e.(*syntax.UnaryExpr); ok {
					e = u.X
					continue
				}
				break
			}
			if n := isName(e); n != "" {
				tested[n] = true
			}
		}
	}
	type read struct {
		name string
		pos  diag.Pos
	}
	var reads []read
	syntax.Walk(prog, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.IsExpr:
			if name := isName(x.X); name != "" {
				tested[name] = true
			}
		case *syntax.BinaryExpr:
			if (x.Op == syntax.EQ || x.Op == syntax.NE) && (isNull(x.X) || isNull(x.Y)) {
				tested[isName(x.X)], tested[isName(x.Y)] = true, true
			}
			if x.Op == syntax.AND || x.Op == syntax.OR {
				cond(x.X)
				cond(x.Y)
			}
		case *syntax.IfStmt:
			cond(x.Cond)
		case *syntax.WhileStmt:
			cond(x.Cond)
		case *syntax.MemberExpr:
			if name := isName(x.X); name != "" {
				reads = append(reads, read{name, x.X.Pos()})
			}
		}
		return true
	})
	reported := map[string]bool{}
	for _, r := range reads {
		if tested[r.name] || reported[r.name] {
			continue
		}
		reported[r.name] = true
		c.diags.Warnf(c.f, r.pos, CodeNoWinner,
			"%s is the value of a parallel first loop, null when no iteration returns, and nothing tests it: its members read null then; handle that case first (if %s is null: ...)",
			r.name, r.name)
	}
}

// loopVarsOverwrite reports a variable of a sequential loop (for, repeat
// or loop ... as) or of a catch that has the name of an input, a config
// key or a slot, when the program reads that name after the loop: names
// bound in a loop stay visible after it (semantics.md, rule 1), so the
// read gets the last element, not the input (`for topic in subtopics:`
// then `topic: topic` gave the last subtopic with exit 0). A parallel
// loop's variable is its iterations' own and is not reported.
func (c *checker) loopVarsOverwrite(prog *syntax.Program) {
	declared := map[string]string{}
	for _, in := range c.d.Inputs {
		declared[in.Name] = "input"
	}
	for _, cf := range c.d.Config {
		declared[cf.Name] = "config key"
	}
	for _, sl := range c.d.Slots {
		declared[sl.Name] = "slot"
	}
	type loopVar struct {
		id  *syntax.Ident
		end diag.Pos
		kw  string
	}
	var vars []loopVar
	// a block's names are its own (block.go): a variable bound in one is
	// read only up to the block's end
	var blocks []syntax.Node
	var piped map[*syntax.ForExpr]bool // a stage's item is its body's alone
	syntax.Walk(prog, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.DoExpr, *syntax.BlockStmt:
			blocks = append(blocks, x)
		case *syntax.PipeExpr:
			if piped == nil {
				piped = map[*syntax.ForExpr]bool{}
			}
			piped[x.Loop] = true
		case *syntax.ForExpr:
			if !x.Parallel && !x.First && !piped[x] {
				vars = append(vars, loopVar{x.Var, x.End(), "loop variable"})
				if x.Index != nil {
					vars = append(vars, loopVar{x.Index, x.End(), "loop index"})
				}
			}
		case *syntax.RepeatExpr:
			if !x.Parallel && !x.First && x.Var != nil {
				vars = append(vars, loopVar{x.Var, x.End(), "loop variable"})
			}
		case *syntax.WhileStmt:
			if x.Var != nil {
				vars = append(vars, loopVar{x.Var, x.End(), "loop variable"})
			}
		case *syntax.TryStmt:
			if x.CatchVar != nil {
				vars = append(vars, loopVar{x.CatchVar, x.End(), "catch variable"})
			}
		}
		return true
	})
	for _, v := range vars {
		if v.id == nil || declared[v.id.Name] == "" {
			continue
		}
		what := declared[v.id.Name]
		limit := diag.Pos(-1)
		for _, b := range blocks {
			if b.Pos() <= v.id.NamePos && v.id.NamePos < b.End() && (limit < 0 || b.End() < limit) {
				limit = b.End()
			}
		}
		var after diag.Pos
		rebound := false
		syntax.Walk(prog, func(n syntax.Node) bool {
			if after != 0 || rebound {
				return false
			}
			switch x := n.(type) {
			case *syntax.LetStmt:
				rebound = x.Let >= v.end && x.Name != nil && x.Name.Name == v.id.Name
			case *syntax.AssignStmt:
				id, ok := x.LHS.(*syntax.Ident)
				rebound = ok && x.Eq >= v.end && id.Name == v.id.Name
			case *syntax.ForExpr:
				rebound = x.For >= v.end && (x.Var.Name == v.id.Name || x.Index != nil && x.Index.Name == v.id.Name)
			case *syntax.RepeatExpr:
				rebound = x.Repeat >= v.end && x.Var != nil && x.Var.Name == v.id.Name
			case *syntax.Ident:
				if x.Name == v.id.Name && x.NamePos >= v.end && (limit < 0 || x.NamePos < limit) {
					after = x.NamePos
				}
			}
			return after == 0 && !rebound
		})
		if after == 0 {
			continue
		}
		c.diags.Errorf(c.f, v.id.NamePos, CodeLoopVarOverwrite,
			"the %s %s has the name of the %s %s, and overwrites it: line %d reads %s after the loop and gets its last value, not the %s; name the variable otherwise",
			v.kw, v.id.Name, what, v.id.Name, c.f.Position(after).Line, v.id.Name, what)
	}
}

// parallelMods checks the modifiers of `parallel (...)`: a join of "all",
// "first" or "any"; count: a whole number from 1 to the number of
// branches, with "any" only; on-fail: "fail-fast", "continue" or
// "ignore". Each is written as a literal (the join is decided before a
// branch runs).
func (c *checker) parallelMods(s *syntax.ParallelStmt) {
	word := func(x syntax.Expr, what string, allowed ...string) string {
		lit, ok := x.(*syntax.StringLit)
		if ok && slices.Contains(allowed, lit.Value) {
			return lit.Value
		}
		got := "this"
		if ok {
			got = strconv.Quote(lit.Value)
		}
		c.diags.Errorf(c.f, x.Pos(), CodeParallelMod, "%s is no %s: write one of %s", got, what, quoteAll(allowed))
		return ""
	}
	join := "all"
	if s.Join != nil {
		join = word(s.Join, "parallel join", "all", "first", "any")
	}
	if s.OnFail != nil {
		word(s.OnFail, "on-fail policy", "fail-fast", "continue", "ignore")
	}
	if s.Count == nil {
		return
	}
	n, ok := s.Count.(*syntax.NumberLit)
	switch {
	case !ok || !n.IsInt:
		c.diags.Errorf(c.f, s.Count.Pos(), CodeParallelMod, "count is a whole number written out, like count: 2")
	case join != "any" && join != "":
		c.diags.Errorf(c.f, s.Count.Pos(), CodeParallelMod, "count goes with the join \"any\" (the first N branches to succeed): write parallel (\"any\", count: %d):", n.Int)
	case n.Int < 1:
		c.diags.Errorf(c.f, s.Count.Pos(), CodeParallelMod, "count: %d: at least one branch must succeed (count: 1 or more)", n.Int)
	case n.Int > int64(len(s.Branches)):
		c.diags.Errorf(c.f, s.Count.Pos(), CodeParallelMod, "count: %d, but the block has %d branches", n.Int, len(s.Branches))
	}
}

// quoteAll is words, each quoted, joined with commas and "or".
func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
