package syntax

import "math/bits"

// The resolver turns every name into a slot once, after parsing, as
// starlark-go's resolve package gives each identifier a Binding: the
// evaluator then indexes a slice instead of looking a string up in a map,
// and the checker asks the same bindings which scope a name belongs to.
//
// Scopes (semantics.md, "Names and scopes"):
//
//   - The delegation has one scope, as in Python: every name a `let`, a
//     sequential loop, `loop ... as` or `catch as` binds anywhere in it is
//     a slot of the delegation's frame (Program.Frame), and so is every
//     name read and bound nowhere: a slot, config key or input, filled
//     from the run's globals when the run starts.
//   - Each iteration of a parallel loop and each branch of `parallel:` has
//     its own frame: the names bound inside it (its loop variables, its
//     lets, the variables of sequential loops inside it) are its slots.
//     A name it reads and does not bind is a slot of an enclosing frame
//     (Outer, Depth frames out).
//   - Each item of a pipeline stage (pipe.go) has its own frame too,
//     sequential stages included: the item, reduce's accumulator and the
//     names the body binds are its slots.
//   - A name a parallel frame binds that an enclosing frame has too reads
//     the enclosing slot until the frame binds its own (Binding.Shadows),
//     as a lookup through nested scopes would.
//   - The names a `parallel:` branch binds are slots of the enclosing
//     frame too (Frame.Export): after the join they are copied out, in
//     branch order.
//   - A `do:` block has its own frame (DoExpr.Frame), enclosed by the
//     frame it stands in; a named block's invocation has one too
//     (BlockStmt.Frame, its parameters first), enclosed by the
//     delegation's frame wherever the `do` stands: a block sees the
//     top-level names, lexically (resolve_block.go).

// Scope says where a name's slot is.
type Scope uint8

const (
	// Unresolved is the zero Scope: the resolver has not run.
	Unresolved Scope = iota
	// Local is a slot of the frame the name is used in.
	Local
	// Outer is a slot of an enclosing frame, Depth frames out.
	Outer
)

// Binding is where a name lives: a slot of a frame.
type Binding struct {
	Scope Scope
	Depth int // Outer: how many frames out (1: the enclosing frame)
	Index int // the slot in that frame
	// Shadows, for a name a parallel frame binds, is the same name in an
	// enclosing frame (nil when none has it): where the name reads from
	// until the parallel frame binds its own.
	Shadows *Binding
}

// Frame is the slot layout of one scope: the delegation (Program.Frame),
// each iteration of a parallel loop (ForExpr.Frame, RepeatExpr.Frame) or
// each branch of `parallel:` (ParallelStmt.Frames).
type Frame struct {
	// Names holds the name of each slot, in the order the resolver met
	// them.
	Names []string
	// Export, for a branch of `parallel:`, is the slot in the enclosing
	// frame of each of this frame's slots (Export[i] for Names[i]).
	Export []int

	// index is an open-addressed hash table of Names' slots, once there
	// are more than smallFrame: each entry a slot plus one (0: empty), a
	// power of two of them, at most half of them full.
	index []int32
	up    *Frame
}

// smallFrame is the most names a frame looks up by scanning Names; most
// frames have a few names (a parallel iteration's), and a scan of them
// costs less than hashing.
const smallFrame = 8

// Slot is the index of name in fr, or -1.
func (fr *Frame) Slot(name string) int {
	if fr.index == nil {
		for i, n := range fr.Names {
			if n == name {
				return i
			}
		}
		return -1
	}
	mask := uint32(len(fr.index) - 1)
	for h := hashName(name) & mask; ; h = (h + 1) & mask {
		i := fr.index[h]
		if i == 0 {
			return -1
		}
		if fr.Names[i-1] == name {
			return int(i - 1)
		}
	}
}

// declare gives name a slot in fr, if it has none, and returns it. A
// frame's first name reserves room for the names it is likely to get:
// the delegation's in the program's block, a parallel frame's in the
// arena.
func (r *resolver) declare(fr *Frame, name string) int {
	if i := fr.Slot(name); i >= 0 {
		return i
	}
	switch {
	case fr.Names != nil:
	case fr == r.top:
		fr.Names = r.topNames[:0:len(r.topNames)]
	default:
		fr.Names = r.a.names.room(4)
	}
	fr.Names = append(fr.Names, name)
	switch n := len(fr.Names); {
	case n > smallFrame && 2*n > len(fr.index):
		size := 1 << bits.Len(uint(2*n)) // under half full
		if fr == r.top && size <= len(r.topIndex) {
			fr.index = r.topIndex[:size]
		} else {
			fr.index = make([]int32, size)
		}
		for i, x := range fr.Names {
			fr.place(x, i)
		}
	case fr.index != nil:
		fr.place(name, n-1)
	}
	return len(fr.Names) - 1
}

// place enters slot i, named name, in fr.index.
func (fr *Frame) place(name string, i int) {
	mask := uint32(len(fr.index) - 1)
	h := hashName(name) & mask
	for fr.index[h] != 0 {
		h = (h + 1) & mask
	}
	fr.index[h] = int32(i + 1)
}

// hashName is the FNV-1a hash of name.
func hashName(name string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h ^= uint32(name[i])
		h *= 16777619
	}
	return h
}

// resolve binds every name of pb.prog (see above), in the frame pb.top,
// with the other frames and the bindings from a. Parse calls it.
func (r *resolver) resolve(pb *programBlock, a *arena) {
	r.a = a
	r.top, r.topIndex, r.topNames = &pb.top, pb.index[:], pb.names[:]
	switch {
	case a.nCalls > len(pb.calls):
		r.calls = make([]*CallExpr, 0, a.nCalls)
	case a.nCalls > 0:
		r.calls = pb.calls[:0]
	}
	switch {
	case a.nLoops > len(pb.loops):
		r.loops = make([]*ForExpr, 0, a.nLoops)
	case a.nLoops > 0:
		r.loops = pb.loops[:0]
	}
	prog := &pb.prog
	prog.Frame = r.top
	r.collectBlocks(prog.Body)
	r.enter(r.top, prog.Body, nil)
	prog.calls, prog.loops, prog.indexed = r.calls[:len(r.calls):len(r.calls)], r.loops[:len(r.loops):len(r.loops)], true
}

type resolver struct {
	a        *arena
	top      *Frame
	topIndex []int32  // room for top's index
	topNames []string // and its names
	cur      *Frame
	// calls and loops collect what Program.Calls and Loops give.
	calls []*CallExpr
	loops []*ForExpr
	// blocks are the program's named blocks by name, the first of each
	// name (resolve_block.go).
	blocks map[string]*BlockStmt
}

// enter resolves the statements of frame fr; bind runs first, in fr, for
// the loop variables of a parallel loop.
func (r *resolver) enter(fr *Frame, body []Stmt, bind func()) {
	outer := r.cur
	r.cur = fr
	if fr != r.top {
		fr.up = outer
	}
	if bind != nil {
		bind()
	}
	r.declareStmts(fr, body)
	r.stmts(body)
	r.cur = outer
}

// declareStmts declares in fr the names body binds, not descending into
// the frames of parallel loops; the branches of `parallel:` get their
// frames here, so their names are fr's too.
func (r *resolver) declareStmts(fr *Frame, body []Stmt) {
	for _, s := range body {
		r.declareIn(fr, s)
	}
}

// declareIn is declareStmts for one node.
func (r *resolver) declareIn(fr *Frame, s Node) {
	Walk(s, func(n Node) bool {
		switch n := n.(type) {
		case *LetStmt:
			r.declare(fr, n.Name.Name)
		case *WhileStmt:
			if n.Var != nil {
				r.declare(fr, n.Var.Name)
			}
		case *TryStmt:
			if n.CatchVar != nil {
				r.declare(fr, n.CatchVar.Name)
			}
		case *PipeExpr:
			// the item and the body's names are the body's (pipe.go)
			Walk(n.Loop.X, func(n Node) bool { return r.declareInExpr(fr, n) })
			return false
		case *ForExpr:
			if n.Parallel || n.First {
				Walk(n.X, func(n Node) bool { return r.declareInExpr(fr, n) })
				return false
			}
			r.declare(fr, n.Var.Name)
			if n.Index != nil {
				r.declare(fr, n.Index.Name)
			}
		case *RepeatExpr:
			if n.Parallel || n.First {
				Walk(n.Count, func(n Node) bool { return r.declareInExpr(fr, n) })
				return false
			}
			if n.Var != nil {
				r.declare(fr, n.Var.Name)
			}
		case *BlockStmt, *DoExpr:
			return false // a frame of its own
		case *ParallelStmt:
			n.Frames = make([]*Frame, len(n.Branches))
			for i := range n.Branches {
				bf := r.a.frames.new(Frame{})
				r.declareStmts(bf, n.Branches[i:i+1])
				bf.Export = make([]int, len(bf.Names))
				for j, name := range bf.Names {
					bf.Export[j] = r.declare(fr, name)
				}
				n.Frames[i] = bf
			}
			return false
		}
		return true
	})
}

// declareInExpr is declareStmts' walk over an expression evaluated in
// fr (a parallel loop's list or count).
func (r *resolver) declareInExpr(fr *Frame, n Node) bool {
	switch n.(type) {
	case *ForExpr, *RepeatExpr, *PipeExpr:
		r.declareIn(fr, n)
		return false
	}
	return true
}

// lookup is the binding of name used in the current frame; a name no
// frame binds becomes a slot of the delegation's frame.
func (r *resolver) lookup(name string) Binding {
	depth := 0
	for fr := r.cur; fr != nil; fr = fr.up {
		if i := fr.Slot(name); i >= 0 {
			b := Binding{Scope: Local, Depth: depth, Index: i}
			if depth > 0 {
				b.Scope = Outer
			}
			if fr.up != nil && fr != r.top {
				b.Shadows = r.outerOf(fr, name, depth)
			}
			return b
		}
		if fr.up == nil {
			break
		}
		depth++
	}
	i := r.declare(r.top, name)
	if depth == 0 {
		return Binding{Scope: Local, Index: i}
	}
	return Binding{Scope: Outer, Depth: depth, Index: i}
}

// outerOf is the binding, seen from depth frames inside fr, of name in the
// frames enclosing fr; nil when none has it.
func (r *resolver) outerOf(fr *Frame, name string, depth int) *Binding {
	d := depth + 1
	for o := fr.up; o != nil; o = o.up {
		if i := o.Slot(name); i >= 0 {
			b := r.a.bindings.new(Binding{Scope: Outer, Depth: d, Index: i})
			if o.up != nil && o != r.top {
				b.Shadows = r.outerOf(o, name, d)
			}
			return b
		}
		d++
	}
	// Bound nowhere outside: a global, a slot of the delegation's frame.
	return r.a.bindings.new(Binding{Scope: Outer, Depth: d - 1, Index: r.declare(r.top, name)})
}

func (r *resolver) ident(id *Ident) {
	if id != nil {
		id.Binding = r.lookup(id.Name)
	}
}

func (r *resolver) stmts(body []Stmt) {
	for _, s := range body {
		r.stmt(s)
	}
}

func (r *resolver) stmt(s Stmt) {
	switch s := s.(type) {
	case *LetStmt:
		r.expr(s.Value)
		r.ident(s.Name)
	case *AssignStmt:
		r.expr(s.Value)
		r.expr(s.LHS)
	case *ExprStmt:
		r.expr(s.X)
	case *IfStmt:
		r.expr(s.Cond)
		r.stmts(s.Then)
		r.stmts(s.Else)
	case *WhileStmt:
		r.expr(s.Max)
		r.ident(s.Var)
		r.expr(s.Cond)
		r.stmts(s.Body)
	case *ParallelStmt:
		for i, br := range s.Branches {
			fr := s.Frames[i]
			outer := r.cur
			fr.up, r.cur = outer, fr
			r.stmt(br)
			r.cur = outer
		}
	case *TryStmt:
		r.stmts(s.Body)
		r.ident(s.CatchVar)
		r.stmts(s.Catch)
		r.stmts(s.Finally)
	case *AppendStmt:
		r.expr(s.Value)
		r.expr(s.List)
	case *ReturnStmt:
		r.expr(s.Value)
	case *ThrowStmt:
		r.expr(s.Value)
	case *BlockStmt:
		r.block(s)
	}
}

func (r *resolver) expr(x Expr) {
	switch x := x.(type) {
	case nil:
	case *Ident:
		r.ident(x)
	case *StringLit:
		for _, p := range x.Parts {
			r.expr(p.Ref)
		}
	case *ListLit:
		for _, e := range x.Elems {
			r.expr(e)
		}
	case *ObjectLit:
		r.fields(x.Fields)
	case *MemberExpr:
		r.expr(x.X)
	case *IndexExpr:
		r.expr(x.X)
		r.expr(x.Index)
	case *UnaryExpr:
		r.expr(x.X)
	case *BinaryExpr:
		r.expr(x.X)
		r.expr(x.Y)
	case *IsExpr:
		r.expr(x.X)
	case *CallExpr:
		r.calls = append(r.calls, x)
		r.expr(x.Target)
		r.fields(x.Args)
		r.expr(x.Retries)
		r.expr(x.Timeout)
		if x.Backoff != nil {
			r.expr(x.Backoff)
		}
		if x.OnFail != nil {
			r.expr(x.OnFail.Use)
		}
	case *GateExpr:
		r.expr(x.Question)
		r.expr(x.Timeout)
		if x.OnFail != nil {
			r.expr(x.OnFail.Use)
		}
	case *ForExpr:
		r.loops = append(r.loops, x)
		r.expr(x.X)
		r.expr(x.Max)
		r.loop(x.Parallel || x.First, &x.Frame, x.Body, func() {
			r.ident(x.Var)
			r.ident(x.Index)
		}, func(fr *Frame) {
			r.declare(fr, x.Var.Name)
			if x.Index != nil {
				r.declare(fr, x.Index.Name)
			}
		})
	case *PipeExpr:
		// Every stage's body is a scope of its own, as a parallel
		// iteration's: the item, reduce's accumulator and the names the
		// body binds are slots of the stage's frame.
		l := x.Loop
		r.loops = append(r.loops, l)
		r.expr(l.X)
		r.loop(true, &l.Frame, l.Body, func() {
			r.ident(x.Acc)
			r.ident(l.Var)
		}, func(fr *Frame) {
			if x.Acc != nil {
				r.declare(fr, x.Acc.Name)
			}
			r.declare(fr, l.Var.Name)
		})
	case *RepeatExpr:
		r.expr(x.Count)
		r.loop(x.Parallel || x.First, &x.Frame, x.Body, func() { r.ident(x.Var) }, func(fr *Frame) {
			if x.Var != nil {
				r.declare(fr, x.Var.Name)
			}
		})
	case *DoExpr, *DoCallExpr:
		r.do(x)
	case *NaturalCond:
		for i := range x.Words {
			w := &x.Words[i]
			w.Binding = r.lookup(pathRoot(w.Path))
		}
	}
}

// loop resolves a loop body: in a frame of its own when parallel (declare
// declares its variables there), else in the current frame.
func (r *resolver) loop(parallel bool, frame **Frame, body []Stmt, vars func(), declare func(*Frame)) {
	if !parallel {
		vars()
		r.stmts(body)
		return
	}
	fr := r.a.frames.new(Frame{})
	*frame = fr
	declare(fr)
	r.enter(fr, body, vars)
}

func (r *resolver) fields(fs []*Field) {
	for _, f := range fs {
		r.expr(f.Value)
	}
}

// pathRoot is the first name of a dotted path.
func pathRoot(path string) string {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' || path[i] == '[' {
			return path[:i]
		}
	}
	return path
}
