package delegation

import (
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// loop is a for or repeat loop ready to run: n iterations, and how each
// binds its variables.
type loop struct {
	pos             diag.Pos
	n               int
	parallel, first bool
	body            []syntax.Stmt
	frame           *syntax.Frame // a parallel iteration's slots
	bind            func(f *frame, i int)
}

// prepare evaluates the loop's list or count.
func (f *frame) prepare(x syntax.Expr) (*loop, error) {
	switch x := x.(type) {
	case *syntax.ForExpr:
		v, err := f.eval(x.X)
		if err != nil {
			return nil, err
		}
		l, ok := v.(*List)
		if !ok {
			return nil, f.errorf(x.X.Pos(), KindRuntime, "cannot loop over %s: it is %s, not a list: give it a list (a JSON array; a declared input or config key typed T[])", exprText(x.X), TypeName(v))
		}
		elems := l.Elems() // the elements present when the loop starts
		if x.Max != nil {
			// Decided: upstream's bound of a model-sized list. Items past
			// it are never dropped in silence: the loop refuses the list.
			max, err := f.count(x.Max, "loop max", true)
			if err != nil {
				return nil, err
			}
			if len(elems) > max {
				return nil, f.errorf(x.X.Pos(), KindRuntime, "loop for each: %s has %d items, more than its (max: %d): raise the max, or cut the list before the loop (its items are not dropped in silence)", exprText(x.X), len(elems), max)
			}
		}
		lp := &loop{pos: x.For, n: len(elems), parallel: x.Parallel, first: x.First, body: x.Body, frame: x.Frame}
		lp.bind = func(f *frame, i int) {
			f.let(x.Var, elems[i])
			if x.Index != nil {
				f.letInt(x.Index, int64(i))
			}
		}
		return lp, nil
	case *syntax.RepeatExpr:
		n, err := f.count(x.Count, "repeat count", false)
		if err != nil {
			return nil, err
		}
		lp := &loop{pos: x.Repeat, n: n, parallel: x.Parallel, first: x.First, body: x.Body, frame: x.Frame}
		lp.bind = func(f *frame, i int) {
			if x.Var != nil {
				f.letInt(x.Var, int64(i+1))
			}
		}
		return lp, nil
	}
	return nil, f.errorf(x.Pos(), KindRuntime, "not a loop")
}

// count evaluates a loop count: a non-negative integer (a number with an
// integral value is accepted), at most the step budget unless it is only a
// ceiling (a loop's max: the loop may end long before it, and the step
// budget stops it as it runs).
func (f *frame) count(x syntax.Expr, what string, ceiling bool) (int, error) {
	v, err := f.eval(x)
	if err != nil {
		return 0, err
	}
	var n int64
	switch c := v.(type) {
	case int64:
		n = c
	case float64:
		if c != math.Trunc(c) || math.IsInf(c, 0) {
			return 0, f.errorf(x.Pos(), KindRuntime, "%s must be a non-negative integer, got %s", what, Text(v))
		}
		n = int64(c)
	case nil:
		return 0, f.errorf(x.Pos(), KindRuntime, "%s must be a non-negative integer, got null (is the config key or input set?)", what)
	default:
		hint := ""
		if t, isText := v.(string); isText {
			if _, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64); err == nil {
				hint = f.textHint(x, t)
			}
		}
		return 0, f.errorf(x.Pos(), KindRuntime, "%s must be a non-negative integer, got %s %s%s", what, TypeName(v), quoted(v), hint)
	}
	if n < 0 {
		return 0, f.errorf(x.Pos(), KindRuntime, "%s must be a non-negative integer, got %d", what, n)
	}
	if n == 0 && ceiling {
		// Decided (upstream: a max less than 1 is an error): a loop of
		// max 0 never runs, and what it should have made reads null.
		return 0, f.errorf(x.Pos(), KindRuntime, "%s must be at least 1, got 0: the loop would never run", what)
	}
	if n > int64(f.in.host.MaxSteps) && !ceiling {
		return 0, f.limitf(x.Pos(), LimitSteps, "%s %d exceeds the step budget of %d statements", what, n, f.in.host.MaxSteps)
	}
	return int(n), nil
}

// execLoopStmt runs a loop standing as a statement. In tail position of a
// collecting body it collects (its list is the statement's value).
func (f *frame) execLoopStmt(x syntax.Expr, tail bool) (ctrl, Value, bool, error) {
	if tail {
		v, err := f.collect(x)
		return ctrlNone, v, err == nil, err
	}
	lp, err := f.prepare(x)
	if err != nil {
		return ctrlNone, nil, false, err
	}
	switch {
	case lp.first:
		_, err := f.runFirst(lp)
		return ctrlNone, nil, false, err
	case lp.parallel:
		return f.runParallel(lp, nil)
	}
	return f.runSeq(lp, nil)
}

// collect runs a loop that yields a value: a list with one value per
// iteration, or the winner's value for `parallel first`.
func (f *frame) collect(x syntax.Expr) (Value, error) {
	lp, err := f.prepare(x)
	if err != nil {
		return nil, err
	}
	if lp.first {
		return f.runFirst(lp)
	}
	// Collecting, a return ends only its iteration: the loops end with
	// the list or an error, never with a return of their own.
	var out []Value
	if lp.parallel {
		r := f.results(true)
		if _, _, _, err = f.runParallel(lp, r); err == nil {
			out = r.vals
		}
	} else {
		out = make([]Value, 0, min(lp.n, 1024))
		_, _, _, err = f.runSeq(lp, &out)
	}
	if err != nil {
		return nil, err
	}
	return f.own(NewList(out...)), nil
}

func iterPath(prefix string, i int) string { return prefix + "/" + strconv.Itoa(i+1) }

// iterValue is the value an iteration contributes to a collecting loop.
func iterValue(c ctrl, v Value, has bool) Value {
	if (c == ctrlReturn || c == ctrlNone) && has {
		return v
	}
	return nil
}

// runSeq runs a loop's iterations in order in f's scope. With out non-nil
// it collects: a return ends only its iteration, and a break ends the
// list with the iterations before it.
func (f *frame) runSeq(lp *loop, out *[]Value) (ctrl, Value, bool, error) {
	it := *f
	it.loops++
	node := &iterNode{up: f.iters}
	it.iters = node
	for i := 0; i < lp.n; i++ {
		node.i = i
		lp.bind(&it, i)
		c, v, has, err := it.execBlock(lp.body, out != nil)
		if err != nil {
			return ctrlNone, nil, false, err
		}
		if c == ctrlBreak {
			break
		}
		if out != nil {
			*out = append(*out, iterValue(c, v, has))
			continue
		}
		if c == ctrlReturn {
			return c, v, has, nil
		}
	}
	return ctrlNone, nil, false, nil
}

// iter makes the frame of parallel iteration i, with its own scope;
// prefix is the loop's path.
func (f *frame) iter(ctx context.Context, lp *loop, prefix string, i int) *frame {
	it := f.child(ctx, iterPath(prefix, i), lp.frame)
	it.loops = f.loops + 1
	it.parLoop = it.loops
	lp.bind(it, i)
	return it
}

// results gathers what the iterations of a parallel statement leave for
// the join: their values, when the loop collects, and their buffered
// appends (appends.go). It grows with the iterations that ended, never
// with the count, and stops at the value ceiling: the values collected
// count their size written out, each buffered append two bytes. So a
// parallel loop of a huge count holds no more than the ceiling allows
// beyond its running iterations (at most Host.MaxParallel).
type results struct {
	mu       sync.Mutex
	collect  bool
	vals     []Value
	pending  map[int][]pendingAppend
	size     int64 // of the values, written out as a list
	appended int64 // buffered appends held
	max      int64
}

func (f *frame) results(collect bool) *results {
	return &results{collect: collect, size: 2, max: f.maxBytes()}
}

// put records how iteration i ended: its value v (when collecting) and
// the appends its thread t buffered. An iteration whose context is
// canceled leaves nothing: the group was decided (a win, a return, an
// error) or stopped before it ended, so the join drops it
// (GroupOutcome.Keeps). It fails when what the results hold would pass
// the ceiling.
func (r *results) put(f *frame, pos diag.Pos, i int, v Value, t *thread) error {
	var size int64
	if r.collect {
		m := newMeter(f.ctx, r.max)
		err := measure(m, v, 0)
		size = m.size + 1
		m.release()
		if err != nil {
			return f.walkError(pos, "the values collected by this loop", err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.ctx.Err() != nil {
		t.pending = nil
		return nil
	}
	r.size += size
	r.appended += int64(len(t.pending))
	if r.size > r.max {
		return f.walkError(pos, "the values collected by this loop", tooLarge(r.max))
	}
	if r.appended*2 > r.max {
		return f.limitf(pos, LimitValueSize, "the appends of this parallel loop to lists from outside it (%d elements, at least 2 bytes each written out) would pass the value size ceiling of %s (Host.MaxValueBytes)", r.appended, diag.ByteSize(r.max))
	}
	if r.collect {
		if i >= len(r.vals) {
			r.vals = append(r.vals, make([]Value, i+1-len(r.vals))...)
		}
		r.vals[i] = v
	}
	if len(t.pending) > 0 {
		if r.pending == nil {
			r.pending = map[int][]pendingAppend{}
		}
		r.pending[i] = t.pending
		t.pending = nil
	}
	return nil
}

// merge applies the buffered appends of the iterations the group kept
// (those that ended up to its decision), in index order.
func (r *results) merge(f *frame, pos diag.Pos, out GroupOutcome) error {
	idx := make([]int, 0, len(r.pending))
	for i := range r.pending {
		if out.Keeps(i) {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	for _, i := range idx {
		if err := f.merge(pos, r.pending[i]); err != nil {
			return err
		}
	}
	return nil
}

// runParallel runs the iterations concurrently. With r collecting it
// collects into r; otherwise a return in any iteration cancels the others
// and ends the enclosing body.
func (f *frame) runParallel(lp *loop, r *results) (ctrl, Value, bool, error) {
	if r == nil {
		r = f.results(false)
	}
	prefix := f.path()
	f.th.giveBack()
	out := f.in.host.Runtime.Group(f.ctx, f.id(lp.pos), lp.n, f.in.host.MaxParallel, func(ctx context.Context, i int) (bool, error) {
		it := f.iter(ctx, lp, prefix, i)
		defer it.th.end()
		c, v, has, err := it.execBlock(lp.body, r.collect)
		switch {
		case err != nil:
			return false, err
		case r.collect:
			return false, r.put(f, lp.pos, i, iterValue(c, v, has), it.th)
		case c == ctrlReturn:
			if err := r.put(f, lp.pos, i, nil, it.th); err != nil {
				return false, err
			}
			return false, &returnSignal{v, i, it.th.vt}
		}
		return false, r.put(f, lp.pos, i, nil, it.th)
	}, nil)
	_, err := out.Result(f.ctx.Err())
	c, v, has, _, err := f.joined(lp.pos, err)
	if err != nil {
		return c, v, has, err
	}
	if err := r.merge(f, lp.pos, out); err != nil {
		return ctrlNone, nil, false, err
	}
	return c, v, has, nil
}

// joined turns the error of a group (GroupOutcome.Result) into how a parallel statement
// ended; winner is the iteration or branch whose return ended it, -1 when
// none did.
func (f *frame) joined(p diag.Pos, err error) (c ctrl, v Value, has bool, winner int, _ error) {
	var rs *returnSignal
	switch {
	case err == nil:
		return ctrlNone, nil, false, -1, nil
	case errors.As(err, &rs):
		f.th.vt = rs.vt
		return ctrlReturn, rs.v, true, rs.i, nil
	case f.ctx.Err() != nil:
		return ctrlNone, nil, false, -1, f.canceled(p)
	}
	var e *Error
	if !errors.As(err, &e) && !isCancel(err) {
		err = f.errorf(p, KindRuntime, "%v", err)
	}
	return ctrlNone, nil, false, -1, err
}

// runFirst runs a `parallel first` loop: the first iteration to execute
// `return` wins and the others are canceled. The value is the winner's,
// or null when no iteration returned. The appends of the iterations that
// ended up to the win are merged, in index order.
func (f *frame) runFirst(lp *loop) (Value, error) {
	r := f.results(false)
	var (
		mu   sync.Mutex
		vals = map[int]Value{}
	)
	prefix := f.path()
	f.th.giveBack()
	out := f.in.host.Runtime.Group(f.ctx, f.id(lp.pos), lp.n, f.in.host.MaxParallel, func(ctx context.Context, i int) (bool, error) {
		it := f.iter(ctx, lp, prefix, i)
		defer it.th.end()
		c, v, _, err := it.execBlock(lp.body, false)
		if err != nil {
			return false, err
		}
		if err := r.put(f, lp.pos, i, nil, it.th); err != nil {
			return false, err
		}
		if c != ctrlReturn {
			return false, nil
		}
		mu.Lock()
		vals[i] = v
		mu.Unlock()
		return true, nil
	}, nil)
	w, err := out.Result(f.ctx.Err())
	if _, _, _, _, err := f.joined(lp.pos, err); err != nil {
		return nil, err
	}
	if err := r.merge(f, lp.pos, out); err != nil {
		return nil, err
	}
	if w < 0 || w >= lp.n {
		return nil, nil
	}
	return vals[w], nil
}

// execWhile runs `loop while|until COND (max: N) [as VAR]`. A while
// condition is tested before each iteration, an until condition after
// each; the loop ends quietly after max iterations.
func (f *frame) execWhile(s *syntax.WhileStmt) (ctrl, Value, bool, error) {
	if s.Max == nil {
		return ctrlNone, nil, false, f.errorf(s.Loop, KindRuntime, "loop without (max: N) refused: every loop must be bounded")
	}
	max, err := f.count(s.Max, "loop max", true)
	if err != nil {
		return ctrlNone, nil, false, err
	}
	it := *f
	it.loops++
	node := &iterNode{up: f.iters}
	it.iters = node
	for i := 0; i < max; i++ {
		node.i = i
		if s.Var != nil {
			f.letInt(s.Var, int64(i+1))
		}
		if !s.Until {
			ok, err := it.cond(s.Cond, nil)
			if err != nil || !ok {
				return ctrlNone, nil, false, err
			}
		}
		c, v, has, err := it.execBlock(s.Body, false)
		if err != nil || c == ctrlReturn {
			return c, v, has, err
		}
		if c == ctrlBreak {
			break
		}
		if s.Until {
			ok, err := it.cond(s.Cond, nil)
			if err != nil || ok {
				return ctrlNone, nil, false, err
			}
		}
	}
	return ctrlNone, nil, false, nil
}

// execParallel runs the branches of `parallel:` concurrently, each in its
// own scope, and joins them; then the names each branch bound become
// visible, in branch order. Its modifiers, when it has them, say how the
// join ends (execParallelMods).
func (f *frame) execParallel(s *syntax.ParallelStmt) (ctrl, Value, bool, error) {
	return f.execParallelMods(s)
}

// quoted is v's text form, with a string in quotes so that "3" and 3 read
// differently in messages.
func quoted(v Value) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return Text(v)
}

// parallelMode is what the modifiers of a `parallel (...)` block say
// (semantics.md, 13a): the join, the count of "any" (0 without one) and
// whether a branch's error is tolerated ("continue" or "ignore") and,
// when it is, whether its name holds the error ("continue").
type parallelMode struct {
	join      string
	count     int
	tolerate  bool
	surface   bool
	modifiers diag.Pos
}

// modeOf reads s's modifiers, as the checker requires them written.
func (f *frame) modeOf(s *syntax.ParallelStmt) (parallelMode, error) {
	m := parallelMode{join: "all", modifiers: s.Mods}
	word := func(x syntax.Expr, allowed ...string) (string, error) {
		if lit, ok := x.(*syntax.StringLit); ok && slices.Contains(allowed, lit.Value) {
			return lit.Value, nil
		}
		return "", f.errorf(x.Pos(), KindRuntime, "parallel modifier refused: write one of %s", strings.Join(allowed, ", "))
	}
	var err error
	if s.Join != nil {
		if m.join, err = word(s.Join, "all", "first", "any"); err != nil {
			return m, err
		}
	}
	if s.OnFail != nil {
		policy, err := word(s.OnFail, "fail-fast", "continue", "ignore")
		if err != nil {
			return m, err
		}
		m.tolerate, m.surface = policy != "fail-fast", policy == "continue"
	}
	if s.Count != nil {
		n, ok := s.Count.(*syntax.NumberLit)
		if !ok || !n.IsInt || n.Int < 1 || n.Int > int64(len(s.Branches)) || m.join != "any" {
			return m, f.errorf(s.Count.Pos(), KindRuntime, "parallel count refused: with \"any\", a whole number from 1 to the %d branches", len(s.Branches))
		}
		m.count = int(n.Int)
	}
	return m, nil
}

// race reports whether the first branch to succeed decides the block
// ("first", or "any" wanting one).
func (m parallelMode) race() bool {
	return m.join == "first" || m.join == "any" && m.count <= 1
}

// execParallelMods runs a parallel block (semantics.md, 12, 13 and, for
// its modifiers, 13a). Without modifiers every branch runs to its end and
// an uncaught error in one cancels the others. A branch whose uncaught, catchable
// error the policy tolerates ends without deciding anything; with
// "first" (or "any" wanting one) the first branch to succeed wins and the
// others are canceled; with "any" and count N every branch runs to its
// end and at least N must succeed. After the join, a branch that
// succeeded and is kept binds its names; a tolerated failure binds its
// let's name to its error ("continue") or to null ("ignore"); every
// other branch's names (canceled, not started, a success past the N
// kept) are null.
func (f *frame) execParallelMods(s *syntax.ParallelStmt) (ctrl, Value, bool, error) {
	m, err := f.modeOf(s)
	if err != nil {
		return ctrlNone, nil, false, err
	}
	frames := make([]*frame, len(s.Branches))
	r := f.results(false)
	path := f.path()
	for i := range frames {
		frames[i] = f.child(f.ctx, path, s.Frames[i])
	}
	var mu sync.Mutex
	ok := make([]bool, len(s.Branches))
	failed := make([]*Error, len(s.Branches))
	f.th.giveBack()
	out := f.in.host.Runtime.Group(f.ctx, f.id(s.Parallel), len(s.Branches), f.in.host.MaxParallel, func(ctx context.Context, i int) (bool, error) {
		b := frames[i]
		b.ctx, b.th.ctx, b.th.done = ctx, ctx, ctx.Done()
		defer b.th.end()
		c, v, _, err := b.execBlock(s.Branches[i:i+1], false)
		if err != nil {
			var re *Error
			if m.tolerate && errors.As(err, &re) && re.Catchable() && ctx.Err() == nil {
				mu.Lock()
				failed[i] = re
				mu.Unlock()
				return false, nil
			}
			return false, err
		}
		if err := r.put(f, s.Parallel, i, nil, b.th); err != nil {
			return false, err
		}
		if c == ctrlReturn {
			return false, &returnSignal{v, i, b.th.vt}
		}
		mu.Lock()
		ok[i] = true
		mu.Unlock()
		return m.race(), nil
	}, nil)
	_, err = out.Result(f.ctx.Err())
	c, v, has, _, err := f.joined(s.Parallel, err)
	if err == nil {
		err = r.merge(f, s.Parallel, out)
	}
	if err != nil || c != ctrlNone {
		return c, v, has, err
	}
	keep := make([]bool, len(s.Branches))
	kept := 0
	for i := range s.Branches {
		if ok[i] && out.Keeps(i) && (m.count <= 1 || kept < m.count) {
			keep[i] = true
			kept++
		}
	}
	if m.count > 1 && kept < m.count {
		return ctrlNone, nil, false, f.errorf(s.Mods, KindRuntime, "parallel (\"any\", count: %d): %d of the %d branches succeeded", m.count, kept, len(s.Branches))
	}
	for i, b := range frames {
		fr := s.Frames[i]
		if keep[i] {
			for j, v := range b.env.slots {
				if v.v != unbound {
					f.env.slots[fr.Export[j]] = v
				}
			}
			continue
		}
		for j := range fr.Export {
			f.env.slots[fr.Export[j]] = valueSlot(nil)
		}
		if let, isLet := s.Branches[i].(*syntax.LetStmt); isLet && failed[i] != nil && m.surface && out.Keeps(i) {
			f.env.slots[fr.Export[let.Name.Binding.Index]] = valueSlot(f.own(failed[i].Object()))
		}
	}
	return ctrlNone, nil, false, nil
}
