package delegation

import (
	"strconv"

	"github.com/proselang/prose/delegation/syntax"
)

// Blocks (semantics.md, Blocks): a `do:` block runs its statements in a
// scope of its own, in the thread and loop iteration it stands in; `do
// NAME(ARGS)` runs a named block's body in a new scope holding its
// parameters, enclosed by the delegation's scope. Either's value is that
// of a `return` executed in it, which ends only the block, else that of
// its last bare statement, as a collecting loop's iteration gives it
// (rule 9: execBlock's value, a loop in last place collecting), else null.

// MaxBlockDepth is the most named block invocations running inside one
// another (recursion included): one more is an error naming the block,
// never a Go stack overflow or a run that does not end.
const MaxBlockDepth = 64

// envKind says what an assignment from inside a scope may reach past it.
type envKind uint8

const (
	// envParallel: a parallel iteration or branch, and the delegation
	// (nothing is past it); an assignment does not reach past it.
	envParallel envKind = iota
	// envDo: a `do:` block, written in place: an assignment reaches the
	// names around it.
	envDo
	// envBlock: a named block's invocation: an assignment does not reach
	// the top-level names it reads (it returns its value instead).
	envBlock
	// envPipe: one item of a sequential pipeline stage (eval_pipe.go):
	// an assignment does not reach past it, as from a parallel body.
	envPipe
)

// evalDo runs a `do:` block.
func (f *frame) evalDo(x *syntax.DoExpr) (Value, error) {
	g := *f
	g.env = newEnv(x.Frame, f.env)
	g.env.kind = envDo
	g.loops, g.parLoop, g.fence = 0, 0, "a do: block"
	return g.blockValue(x.Body)
}

// evalDoCall runs a named block: its arguments are evaluated in f, from
// left to right, and bound to its parameters in a scope of its own.
func (f *frame) evalDoCall(x *syntax.DoCallExpr) (Value, error) {
	def := x.Def
	if def == nil {
		return nil, f.errorf(x.Name.NamePos, KindRuntime, "no block named %s is defined: define it at the top level, block %s(...):", x.Name.Name, x.Name.Name)
	}
	if len(x.Args) != len(def.Params) {
		return nil, f.errorf(x.Name.NamePos, KindRuntime, "block %s takes %d arguments, and this do gives %d", def.Name.Name, len(def.Params), len(x.Args))
	}
	if f.depth >= MaxBlockDepth {
		return nil, f.limitf(x.Do, LimitBlockDepth, "block %s: more than %d block invocations inside one another (a recursion that does not end?): make it stop sooner, or loop instead", def.Name.Name, MaxBlockDepth)
	}
	e := newEnv(def.Frame, f.in.top)
	e.kind, e.params = envBlock, len(def.Params)
	for i, a := range x.Args {
		v, err := f.evalSlot(a)
		if err != nil {
			return nil, err
		}
		e.slots[i] = f.tag(a, v)
	}
	g := &frame{th: f.th, in: f.in, ctx: f.ctx, env: e,
		site:  f.site + "L" + strconv.Itoa(f.position(x.Do).Line) + f.path() + ":",
		fence: "block " + def.Name.Name, depth: f.depth + 1}
	return g.blockValue(def.Body)
}

// blockValue runs a block's body and gives its value.
func (f *frame) blockValue(body []syntax.Stmt) (Value, error) {
	c, v, has, err := f.execBlock(body, true)
	if err != nil {
		return nil, err
	}
	if !has || c != ctrlReturn && c != ctrlNone {
		f.th.vt = valTag{} // the block's null
	}
	return iterValue(c, v, has), nil
}

// reaches checks that an assignment from f to a name depth scopes out,
// whose scope is e, may reach it: not past a parallel iteration or
// branch (rule 3), nor out of a named block, nor to a parameter.
func (f *frame) reaches(id *syntax.Ident, b *syntax.Binding, e *env) error {
	s := f.env
	for d := 0; d < b.Depth; d++ {
		switch s.kind {
		case envParallel:
			return f.errorf(id.NamePos, KindRuntime, "a parallel body cannot assign the outer '%s': concurrent iterations would race; collect values with append, or return them from the body", id.Name)
		case envPipe:
			return f.errorf(id.NamePos, KindRuntime, "a pipeline stage's body cannot assign the outer '%s': each item's body has a scope of its own (and pmap runs them at once); return the item's value, or collect with append", id.Name)
		case envBlock:
			return f.errorf(id.NamePos, KindRuntime, "a block cannot assign the top-level '%s': return the value, and assign it where the block is run (%s = do ...)", id.Name, id.Name)
		}
		s = s.up
	}
	if b.Index < e.params {
		return f.paramAssigned(id)
	}
	return nil
}

// paramAssigned is the error of a write to a block's parameter.
func (f *frame) paramAssigned(id *syntax.Ident) error {
	return f.errorf(id.NamePos, KindRuntime, "'%s' is a parameter of the block, which nothing assigns: bind the new value to another name (let new_%s = ...)", id.Name, id.Name)
}
