package delegation

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// The limits a Host that sets none runs with: the one set of defaults of
// a run (package runhost' Limits fills them in from here).
const (
	DefaultMaxSteps    = 100000
	DefaultMaxParallel = 8
)

// Run executes prog. globals binds the names visible at top level: slots
// (Service values, or *List of Service for list slots), config and inputs
// (Values). The map and the lists and objects in it are copied, never
// modified; plain Go numbers, slices and maps are converted to Values. The
// result is the value of
// the top-level `return` that ended the run, or null when the program ran
// to its end.
//
// Run keeps all run state apart from prog, so one parsed program may run
// many times, concurrently. It reaches the world only through host; a nil
// host runs with no caller and no judge.
func Run(ctx context.Context, prog *syntax.Program, globals map[string]Value, host *Host) (Value, error) {
	v, _, err := RunReturned(ctx, prog, globals, host)
	return v, err
}

// RunReturned is Run, and reports whether a top-level `return` ended the
// run (false when the program ran to its end): a caller whose contract
// needs a value tells a program that forgot its return from one that
// returned null.
func RunReturned(ctx context.Context, prog *syntax.Program, globals map[string]Value, host *Host) (Value, bool, error) {
	if host == nil {
		host = &Host{}
	}
	if prog == nil {
		return nil, false, &Error{Kind: KindRuntime, Msg: "no program to run"}
	}
	if prog.Frame == nil {
		return nil, false, &Error{Kind: KindRuntime, Msg: "the program was not resolved (build it with syntax.Parse)"}
	}
	in := &interp{host: *host, file: prog.File}
	if in.host.Runtime == nil {
		in.host.Runtime = DefaultRuntime()
	}
	if in.host.MaxSteps <= 0 {
		in.host.MaxSteps = DefaultMaxSteps
	}
	if in.host.MaxParallel <= 0 {
		in.host.MaxParallel = DefaultMaxParallel
	}
	in.budget.Store(int64(in.host.MaxSteps))
	top := newEnv(prog.Frame, nil)
	in.top = top
	for k, v := range globals {
		c, err := cloneWithin(ctx, host.MaxValueBytes, normalize(v))
		if err != nil {
			return nil, false, &Error{Kind: KindRuntime, Msg: fmt.Sprintf("the value of %s: %v", k, err)}
		}
		if i := prog.Frame.Slot(k); i >= 0 {
			top.slots[i] = valueSlot(c)
			top.slots[i].given = true
		}
	}
	th := newThread(in, ctx, nil)
	defer th.end()
	for _, s := range top.slots {
		adopt(th, s.v, 0)
	}
	f := &frame{th: th, in: in, ctx: ctx, env: top}
	c, v, _, err := f.execBlock(prog.Body, false)
	if err != nil {
		return nil, false, err
	}
	if c == ctrlReturn {
		return v, true, nil
	}
	return nil, false, nil
}

// interp is the state shared by every thread of one run.
type interp struct {
	host Host
	file *diag.File
	// budget is the steps left to take from; each thread takes a few at
	// a time (thread.left).
	budget atomic.Int64
	// live counts the threads begun and not ended; a thread's share of
	// the budget shrinks as more run at once (refill).
	live atomic.Int64
	// top is the delegation's scope, which encloses every invocation of a
	// named block (eval_block.go).
	top *env
}

// thread is one line of execution: the delegation itself, or one parallel
// iteration or branch. Only its own goroutine touches it.
type thread struct {
	in   *interp
	ctx  context.Context
	done <-chan struct{}
	// left is how many steps this thread took from the run's budget and
	// has not used yet.
	left int64
	// parent is the thread that started this one (nil for the
	// delegation's).
	parent *thread
	// pending holds this thread's appends to lists it does not own, for
	// the join to merge in iteration order (appends.go).
	pending []pendingAppend
	// vt is the mark of the value the statement or block this thread ran
	// last gave (a return's, a last bare statement's): a block's value
	// keeps the mark of the expression that gave it, so that `let v =
	// do: ...` marks v as `let v = EXPR` would (rule 27a).
	vt valTag
}

// valTag is what a name bound to a value is marked with besides the value
// (slot.out and slot.given).
type valTag struct {
	out   *syntax.CallExpr
	given bool
}

func newThread(in *interp, ctx context.Context, parent *thread) *thread {
	in.live.Add(1)
	return &thread{in: in, ctx: ctx, done: ctx.Done(), parent: parent}
}

// end gives the steps the thread took and did not use back to the run;
// the thread runs no statement after it.
func (t *thread) end() {
	t.giveBack()
	t.in.live.Add(-1)
}

// giveBack returns the steps the thread took and did not use to the run.
// A thread calls it before it waits (for a service, a judge, a timer or
// its parallel iterations), so that a thread that waits holds no steps
// another could run: however many iterations wait in calls at once, an
// iteration fails on the budget only when the steps are really spent.
// Its next statement takes steps anew.
func (t *thread) giveBack() {
	if t.left > 0 {
		t.in.budget.Add(t.left)
		t.left = 0
	}
}

// frame is where a statement runs: a thread, the slots of its scope, and
// the loop state of the statement.
type frame struct {
	th  *thread
	in  *interp
	ctx context.Context
	env *env
	// path is the iteration path ("/2/1") appended to call and judgment
	// ids: the path of the enclosing parallel iteration (ppath) and the
	// iterations of the sequential loops inside it, innermost last, built
	// only when an id is asked for.
	ppath string
	iters *iterNode
	// loops counts the enclosing loops that continue/break may act on;
	// parLoop is the value of loops inside the body of a parallel loop
	// iteration (break may not leave it), 0 elsewhere.
	loops, parLoop int
	// caught is the error the innermost catch block running caught, which
	// a bare throw raises again; nil outside catch blocks.
	caught *Error
	// site is the path of the named block invocations the frame runs in
	// ("L20/2:L7:"), put before the line of every path it gives; fence
	// names the block that continue and break cannot leave ("" outside
	// blocks); depth counts the invocations (eval_block.go).
	site, fence string
	depth       int
}

// iterNode is one sequential loop's current iteration in a frame's path;
// the loop updates i in place as it goes (a frame that outlives the
// iteration copies the path into a string first: child).
type iterNode struct {
	up *iterNode
	i  int
}

// path is the frame's iteration path.
func (f *frame) path() string {
	if f.iters == nil {
		return f.ppath
	}
	var idx [16]int
	n := 0
	var more []int
	for it := f.iters; it != nil; it = it.up {
		if n < len(idx) {
			idx[n] = it.i
			n++
		} else {
			more = append(more, it.i)
		}
	}
	all := append(idx[:n:n], more...)
	b := []byte(f.ppath)
	for k := len(all) - 1; k >= 0; k-- {
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(all[k]+1), 10)
	}
	return string(b)
}

// child makes the frame of a parallel iteration or branch (path is its
// iteration path), with its own thread and slots laid out as fr.
func (f *frame) child(ctx context.Context, path string, fr *syntax.Frame) *frame {
	th := newThread(f.in, ctx, f.th)
	return &frame{th: th, in: f.in, ctx: ctx, env: newEnv(fr, f.env), ppath: path, caught: f.caught, site: f.site, depth: f.depth}
}

// env holds the slots of one scope (syntax.Frame); up is the enclosing
// scope's.
type env struct {
	slots []slot
	up    *env
	// kind says what an assignment from inside may reach through it
	// (assign); params counts the slots, first in the scope, that hold
	// a named block's parameters, which nothing assigns.
	kind   envKind
	params int
}

// slot is the value of one name. An integer is kept unboxed (v is
// intSlot and n the integer), so that arithmetic on names allocates
// nothing. out is the call whose answer the value is, when it was bound
// from a call (or from a name that held one): when the call's node has
// one output, the name's member of that output's name is the value
// itself (semantics.md, One-output callees).
type slot struct {
	v   Value
	n   int64
	out *syntax.CallExpr
	// given marks a name bound to a value given to the run (an input or
	// config: data the program did not make), for rule 16b.
	given bool
}

// unbound fills a slot that nothing has bound yet; intSlot marks a slot
// holding an unboxed integer.
var (
	unbound Value = &struct{ unboundSlot byte }{}
	intSlot Value = &struct{ intSlot byte }{}
)

// value is the slot's value (unbound when nothing bound it).
func (s slot) value() Value {
	if s.v == intSlot {
		return s.n
	}
	return s.v
}

// valueSlot holds v in a slot, unboxing an integer.
func valueSlot(v Value) slot {
	if n, ok := v.(int64); ok {
		return slot{v: intSlot, n: n}
	}
	return slot{v: v}
}

func newEnv(fr *syntax.Frame, up *env) *env {
	e := &env{slots: make([]slot, len(fr.Names)), up: up}
	for i := range e.slots {
		e.slots[i].v = unbound
	}
	return e
}

// slot reads the slot of b; its v is unbound when nothing bound it.
func (f *frame) slot(b *syntax.Binding) slot {
	for {
		e := f.env
		for d := b.Depth; d > 0; d-- {
			e = e.up
		}
		s := e.slots[b.Index]
		if s.v != unbound || b.Shadows == nil {
			return s
		}
		b = b.Shadows
	}
}

// let binds the name of id in this frame (re-binding is assignment).
func (f *frame) let(id *syntax.Ident, v Value) {
	f.env.slots[id.Binding.Index] = valueSlot(v)
}

// letInt is let of an integer.
func (f *frame) letInt(id *syntax.Ident, n int64) {
	f.env.slots[id.Binding.Index] = slot{v: intSlot, n: n}
}

// assign sets the slot id resolves to: this frame's when bound here,
// else the enclosing one's. It fails when nothing bound the name, and when
// the slot is outside the parallel body the frame runs in (see
// semantics.md, rule 3).
func (f *frame) assign(id *syntax.Ident, v slot) error {
	b := &id.Binding
	for {
		e := f.env
		for d := b.Depth; d > 0; d-- {
			e = e.up
		}
		cur := e.slots[b.Index].v
		if cur == unbound && b.Shadows != nil {
			b = b.Shadows
			continue
		}
		if cur == unbound {
			return f.errorf(id.NamePos, KindRuntime, "assignment to undefined name '%s' (bind it first with let)", id.Name)
		}
		if err := f.reaches(id, b, e); err != nil {
			return err
		}
		e.slots[b.Index] = v
		return nil
	}
}

// tag marks the slot v, the value of x about to be bound to a name, with
// the call it is the answer of, when x is a call or a name that holds
// one (the output of a one-output call reads NAME.OUTPUT as itself, and
// an error of a member read names the call); any other value is bound
// untagged, so a re-assignment from something else clears the mark.
func (f *frame) tag(x syntax.Expr, v slot) slot {
	t := f.tagOf(x)
	v.out, v.given = t.out, t.given
	return v
}

// tagOf is the mark of the value x just gave: the call for a call, the
// name's mark for a name, and for a block (`do:`, `do NAME(...)`) the
// mark of the expression its value came from (a `return`'s, its last
// bare statement's), so that a block's value is marked as that
// expression bound to a name outside it would be (semantics.md, 35).
func (f *frame) tagOf(x syntax.Expr) valTag {
	switch x := x.(type) {
	case *syntax.CallExpr:
		return valTag{out: x}
	case *syntax.Ident:
		from := f.slot(&x.Binding)
		return valTag{from.out, from.given}
	case *syntax.DoExpr, *syntax.DoCallExpr:
		return f.th.vt
	}
	return valTag{}
}

// ctrl is how a statement ended.
type ctrl int

const (
	ctrlNone ctrl = iota
	ctrlContinue
	ctrlBreak
	ctrlReturn
)

// returnSignal carries a `return` out of a parallel iteration or branch
// through Runtime.Group, which cancels the siblings.
type returnSignal struct {
	v  Value
	i  int    // the iteration or branch
	vt valTag // the mark of v (thread.vt)
}

func (*returnSignal) Error() string { return "return" }

func (f *frame) position(p diag.Pos) diag.Position { return f.in.file.Position(p) }

// errorf builds a run-time error at p and records it.
func (f *frame) errorf(p diag.Pos, kind, format string, args ...any) *Error {
	e := &Error{Pos: f.position(p), Kind: kind, Msg: fmt.Sprintf(format, args...), Path: f.id(p)}
	f.record(&Event{Kind: EventError, Path: e.Path, Pos: e.Pos, Err: e})
	return e
}

// canceled builds the error for a done context.
func (f *frame) canceled(p diag.Pos) *Error {
	err := f.ctx.Err()
	msg := "run canceled"
	if errors.Is(err, context.DeadlineExceeded) {
		msg = "run timed out"
	}
	return &Error{Pos: f.position(p), Kind: KindCanceled, Msg: msg, Err: err}
}

func (f *frame) record(ev *Event) {
	if r := f.in.host.Recorder; r != nil {
		if ev.Time.IsZero() {
			ev.Time = f.in.host.Runtime.Now()
		}
		r.Record(ev)
	}
}

// id is the stable path of the call or condition at p in this frame.
func (f *frame) id(p diag.Pos) Path {
	return pathIn(f.in.host.Scope, f.site, f.position(p).Line, f.path())
}

// step counts one statement against the budget and checks for
// cancellation. The thread takes steps from the run's budget a few at a
// time (refill), so the sequential path touches no shared counter, and
// looks at its context's done channel each time it takes more: at least
// every stepChunk statements.
func (f *frame) step(s syntax.Stmt) error {
	t := f.th
	if t.left > 0 {
		t.left--
		return nil
	}
	return f.refill(s.Pos())
}

// stepChunk is the most steps a thread takes from the run's budget at once.
const stepChunk = 256

// refill takes more steps for f's thread, one of them for the statement
// at p. While the budget is large a thread takes stepChunk steps; as it
// shrinks, or as more threads run at once, fewer: a thread takes at most
// a sixteenth of what is left divided among the live threads, so the
// steps held and unused at any moment stay a small part of what is left.
// The budget is exact for a sequential run, and for parallel iterations
// that wait in calls (they hold no steps while waiting: giveBack); only
// iterations running statements at the very same moment may stop up to
// one step each early.
func (f *frame) refill(p diag.Pos) error {
	t := f.th
	select {
	case <-t.done:
		return f.canceled(p)
	default:
	}
	for {
		avail := f.in.budget.Load()
		if avail <= 0 {
			return f.limitf(p, LimitSteps, "step budget of %d statements exceeded", f.in.host.MaxSteps)
		}
		take := min(int64(stepChunk), max(1, avail/(16*max(1, f.in.live.Load()))))
		if f.in.budget.CompareAndSwap(avail, avail-take) {
			t.left = take - 1
			return nil
		}
	}
}

// execBlock runs stmts. It returns how the block ended; for ctrlReturn the
// returned value, otherwise the value of the last value-producing statement
// (a bare call or expression, or an if/try whose branch produced one), with
// has telling whether there was one. tail marks the body of a collecting
// loop: its last statement, when it is a loop, collects too.
func (f *frame) execBlock(stmts []syntax.Stmt, tail bool) (c ctrl, v Value, has bool, err error) {
	var vt valTag
	for i, s := range stmts {
		sc, sv, sh, err := f.execStmt(s, tail && i == len(stmts)-1)
		if err != nil || sc != ctrlNone {
			return sc, sv, sh, err
		}
		if sh {
			v, has, vt = sv, true, f.th.vt
		}
	}
	f.th.vt = vt
	return ctrlNone, v, has, nil
}

func (f *frame) execStmt(s syntax.Stmt, tail bool) (ctrl, Value, bool, error) {
	if err := f.step(s); err != nil {
		return ctrlNone, nil, false, err
	}
	switch s := s.(type) {
	case *syntax.LetStmt:
		v, err := f.evalSlot(s.Value)
		if err != nil {
			return ctrlNone, nil, false, err
		}
		if s.Name.Binding.Index < f.env.params {
			return ctrlNone, nil, false, f.paramAssigned(s.Name)
		}
		f.env.slots[s.Name.Binding.Index] = f.tag(s.Value, v)
	case *syntax.AssignStmt:
		return ctrlNone, nil, false, f.execAssign(s)
	case *syntax.ExprStmt:
		c, v, has, err := f.execExprStmt(s, tail)
		if err == nil && has && c == ctrlNone {
			f.th.vt = f.tagOf(s.X) // a loop's list has none
		}
		return c, v, has, err
	case *syntax.IfStmt:
		return f.execIf(s, tail)
	case *syntax.WhileStmt:
		return f.execWhile(s)
	case *syntax.ParallelStmt:
		return f.execParallel(s)
	case *syntax.TryStmt:
		return f.execTry(s, tail)
	case *syntax.ChoiceStmt:
		return f.execChoice(s, tail) // eval_choice.go
	case *syntax.AppendStmt:
		return ctrlNone, nil, false, f.execAppend(s)
	case *syntax.BranchStmt:
		return f.execBranch(s)
	case *syntax.ReturnStmt:
		var v Value
		if s.Value != nil {
			var err error
			if v, err = f.eval(s.Value); err != nil {
				return ctrlNone, nil, false, err
			}
			if err := f.checkSize(s.Pos(), v, "the returned value"); err != nil {
				return ctrlNone, nil, false, err
			}
			f.th.vt = f.tagOf(s.Value)
		} else {
			f.th.vt = valTag{}
		}
		return ctrlReturn, v, true, nil
	case *syntax.BlockStmt:
		// a definition: `do NAME(...)` runs it
	case *syntax.ThrowStmt:
		if s.Value == nil {
			if f.caught == nil {
				return ctrlNone, nil, false, f.errorf(s.Throw, KindRuntime, "a bare throw raises again the error a catch caught, and no catch is running here: throw a value (throw \"reason\")")
			}
			return ctrlNone, nil, false, f.caught
		}
		v, err := f.eval(s.Value)
		if err != nil {
			return ctrlNone, nil, false, err
		}
		kind := KindThrow
		if s.Usage {
			kind = KindUsage
		}
		e := f.errorf(s.Throw, kind, "%s", Text(v))
		e.Value = v
		return ctrlNone, nil, false, e
	default:
		return ctrlNone, nil, false, f.errorf(s.Pos(), KindRuntime, "unsupported statement %T", s)
	}
	return ctrlNone, nil, false, nil
}

func (f *frame) execExprStmt(s *syntax.ExprStmt, tail bool) (ctrl, Value, bool, error) {
	switch x := s.X.(type) {
	case *syntax.ForExpr:
		return f.execLoopStmt(x, tail)
	case *syntax.RepeatExpr:
		return f.execLoopStmt(x, tail)
	}
	v, err := f.eval(s.X)
	return ctrlNone, v, err == nil, err
}

func (f *frame) execAssign(s *syntax.AssignStmt) error {
	if lhs, ok := s.LHS.(*syntax.Ident); ok {
		v, err := f.evalSlot(s.Value)
		if err != nil {
			return err
		}
		return f.assign(lhs, f.tag(s.Value, v))
	}
	v, err := f.eval(s.Value)
	if err != nil {
		return err
	}
	if lhs, ok := s.LHS.(*syntax.IndexExpr); ok {
		return f.setIndex(lhs, v)
	}
	return f.errorf(s.LHS.Pos(), KindRuntime, "cannot assign to this expression")
}

func (f *frame) execIf(s *syntax.IfStmt, tail bool) (ctrl, Value, bool, error) {
	ok, err := f.cond(s.Cond, s.Then)
	if err != nil {
		return ctrlNone, nil, false, err
	}
	if ok {
		return f.execBlock(s.Then, tail)
	}
	if s.Else != nil {
		return f.execBlock(s.Else, tail)
	}
	return ctrlNone, nil, false, nil
}

func (f *frame) execAppend(s *syntax.AppendStmt) error {
	v, err := f.eval(s.Value)
	if err != nil {
		return err
	}
	target, err := f.eval(s.List)
	if err != nil {
		return err
	}
	l, ok := target.(*List)
	if !ok {
		kw := "append to"
		if s.Record {
			kw = "record in"
		}
		return f.errorf(s.List.Pos(), KindRuntime, "cannot %s %s: it is %s, not a list", kw, exprText(s.List), TypeName(target))
	}
	return f.appendTo(s.Keyword, l, v)
}

func (f *frame) execBranch(s *syntax.BranchStmt) (ctrl, Value, bool, error) {
	word := "continue"
	if s.Break {
		word = "break"
	}
	switch {
	case f.loops == 0 && f.fence != "":
		return ctrlNone, nil, false, f.errorf(s.Keyword, KindRuntime, "%s cannot leave %s: end the block with return, and decide in the loop around it", word, f.fence)
	case f.loops == 0:
		return ctrlNone, nil, false, f.errorf(s.Keyword, KindRuntime, "%s outside a loop", word)
	case s.Break && f.loops == f.parLoop:
		return ctrlNone, nil, false, f.errorf(s.Keyword, KindRuntime,
			"break cannot leave a parallel loop (its iterations run at once); use continue or return")
	case s.Break:
		return ctrlBreak, nil, false, nil
	}
	return ctrlContinue, nil, false, nil
}

// execTry runs try/catch/finally. The catch runs for catchable errors only;
// finally runs however the body and catch ended, and its own error or
// control flow, if any, wins.
func (f *frame) execTry(s *syntax.TryStmt, tail bool) (ctrl, Value, bool, error) {
	c, v, has, err := f.execBlock(s.Body, tail)
	var re *Error
	if err != nil && s.Catch != nil && errors.As(err, &re) && re.Catchable() && f.ctx.Err() == nil {
		if s.CatchVar != nil {
			f.let(s.CatchVar, f.own(re.Object()))
		}
		outer := f.caught
		f.caught = re
		c, v, has, err = f.execBlock(s.Catch, tail)
		f.caught = outer
	}
	if s.Finally != nil {
		vt := f.th.vt
		fc, fv, _, ferr := f.execBlock(s.Finally, false)
		if ferr != nil || fc != ctrlNone {
			return fc, fv, fc == ctrlReturn, ferr
		}
		f.th.vt = vt
	}
	return c, v, has, err
}

// normalize converts plain Go data (int, []any, map[string]any...) to a
// Value; Values pass through.
func normalize(v Value) Value {
	switch x := v.(type) {
	case nil, bool, int64, float64, string, *List, *Object, Service, time.Duration:
		return v
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	}
	if n, err := FromGo(v); err == nil {
		return n
	}
	return v
}
