package delegation

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// The limits a Host that sets none runs with: the one set of defaults of
// a run (package patterns' Limits fills them in from here).
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
	if host == nil {
		host = &Host{}
	}
	if prog == nil {
		return nil, &Error{Kind: KindRuntime, Msg: "no program to run"}
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
	sc := newScope(nil)
	for k, v := range globals {
		c, err := cloneWithin(ctx, host.MaxValueBytes, normalize(v))
		if err != nil {
			return nil, &Error{Kind: KindRuntime, Msg: fmt.Sprintf("the value of %s: %v", k, err)}
		}
		sc.vars[k] = c
	}
	f := &frame{in: in, ctx: ctx, sc: sc}
	c, v, _, err := f.execBlock(prog.Body, false)
	if err != nil {
		return nil, err
	}
	if c == ctrlReturn {
		return v, nil
	}
	return nil, nil
}

// interp is the state shared by every thread of one run.
type interp struct {
	host  Host
	file  *diag.File
	steps atomic.Int64
}

// frame is one thread of execution: the delegation itself, or one parallel
// iteration or branch.
type frame struct {
	in  *interp
	ctx context.Context
	sc  *scope
	// path is the iteration path ("/2/1") appended to call and judgment ids.
	path string
	// loops counts the enclosing loops that continue/break may act on;
	// parLoop is the value of loops inside the body of a parallel loop
	// iteration (break may not leave it), 0 elsewhere.
	loops, parLoop int
}

func (f *frame) child(ctx context.Context, path string) *frame {
	return &frame{in: f.in, ctx: ctx, sc: newScope(f.sc), path: path}
}

// scope holds the names of the delegation or of one parallel iteration.
type scope struct {
	mu     sync.RWMutex
	parent *scope
	vars   map[string]Value
}

func newScope(parent *scope) *scope {
	return &scope{parent: parent, vars: make(map[string]Value, 8)}
}

func (s *scope) lookup(name string) (Value, bool) {
	for ; s != nil; s = s.parent {
		s.mu.RLock()
		v, ok := s.vars[name]
		s.mu.RUnlock()
		if ok {
			return v, true
		}
	}
	return nil, false
}

// let binds name in this scope (re-binding is assignment).
func (s *scope) let(name string, v Value) {
	s.mu.Lock()
	s.vars[name] = v
	s.mu.Unlock()
}

// assign sets the nearest binding of name; false when it is unbound.
func (s *scope) assign(name string, v Value) bool {
	for ; s != nil; s = s.parent {
		s.mu.Lock()
		_, ok := s.vars[name]
		if ok {
			s.vars[name] = v
		}
		s.mu.Unlock()
		if ok {
			return true
		}
	}
	return false
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
// through Runtime.All, which cancels the siblings.
type returnSignal struct{ v Value }

func (*returnSignal) Error() string { return "return" }

func (f *frame) position(p diag.Pos) diag.Position { return f.in.file.Position(p) }

// errorf builds a run-time error at p and records it.
func (f *frame) errorf(p diag.Pos, kind, format string, args ...any) *Error {
	e := &Error{Pos: f.position(p), Kind: kind, Msg: fmt.Sprintf(format, args...), Path: f.id(p)}
	f.record(&Event{Kind: "error", Path: e.Path, Pos: e.Pos, Err: e})
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
	return pathAt(f.in.host.Scope, f.position(p).Line, f.path)
}

// step counts one statement against the budget and checks for cancellation.
func (f *frame) step(s syntax.Stmt) error {
	if f.ctx.Err() != nil {
		return f.canceled(s.Pos())
	}
	if n := f.in.steps.Add(1); n > int64(f.in.host.MaxSteps) {
		return f.errorf(s.Pos(), KindLimit, "step budget of %d statements exceeded", f.in.host.MaxSteps)
	}
	return nil
}

// execBlock runs stmts. It returns how the block ended; for ctrlReturn the
// returned value, otherwise the value of the last value-producing statement
// (a bare call or expression, or an if/try whose branch produced one), with
// has telling whether there was one. tail marks the body of a collecting
// loop: its last statement, when it is a loop, collects too.
func (f *frame) execBlock(stmts []syntax.Stmt, tail bool) (c ctrl, v Value, has bool, err error) {
	for i, s := range stmts {
		sc, sv, sh, err := f.execStmt(s, tail && i == len(stmts)-1)
		if err != nil || sc != ctrlNone {
			return sc, sv, sh, err
		}
		if sh {
			v, has = sv, true
		}
	}
	return ctrlNone, v, has, nil
}

func (f *frame) execStmt(s syntax.Stmt, tail bool) (ctrl, Value, bool, error) {
	if err := f.step(s); err != nil {
		return ctrlNone, nil, false, err
	}
	switch s := s.(type) {
	case *syntax.LetStmt:
		v, err := f.eval(s.Value)
		if err != nil {
			return ctrlNone, nil, false, err
		}
		f.sc.let(s.Name.Name, v)
	case *syntax.AssignStmt:
		return ctrlNone, nil, false, f.execAssign(s)
	case *syntax.ExprStmt:
		return f.execExprStmt(s, tail)
	case *syntax.IfStmt:
		return f.execIf(s, tail)
	case *syntax.WhileStmt:
		return f.execWhile(s)
	case *syntax.ParallelStmt:
		return f.execParallel(s)
	case *syntax.TryStmt:
		return f.execTry(s, tail)
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
		}
		return ctrlReturn, v, true, nil
	case *syntax.ThrowStmt:
		v, err := f.eval(s.Value)
		if err != nil {
			return ctrlNone, nil, false, err
		}
		e := f.errorf(s.Throw, KindThrow, "%s", Text(v))
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
	v, err := f.eval(s.Value)
	if err != nil {
		return err
	}
	switch lhs := s.LHS.(type) {
	case *syntax.Ident:
		if !f.sc.assign(lhs.Name, v) {
			return f.errorf(lhs.NamePos, KindRuntime, "assignment to undefined name '%s' (bind it first with let)", lhs.Name)
		}
		return nil
	case *syntax.IndexExpr:
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
	l.Append(v)
	return nil
}

func (f *frame) execBranch(s *syntax.BranchStmt) (ctrl, Value, bool, error) {
	word := "continue"
	if s.Break {
		word = "break"
	}
	switch {
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
			f.sc.let(s.CatchVar.Name, re.Object())
		}
		c, v, has, err = f.execBlock(s.Catch, tail)
	}
	if s.Finally != nil {
		fc, fv, _, ferr := f.execBlock(s.Finally, false)
		if ferr != nil || fc != ctrlNone {
			return fc, fv, fc == ctrlReturn, ferr
		}
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
