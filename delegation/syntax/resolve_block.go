package syntax

// The frames of blocks (parse_block.go, semantics.md, Blocks).
//
// A `do:` block's frame is enclosed by the frame it stands in: it reads
// the names around it, and the names it binds (a `let`, the variables of
// its sequential loops) are its own, gone after it; a `let` of a name
// bound outside makes a new name that shadows it from there on, as in a
// parallel frame (Binding.Shadows). A named block's frame holds its
// parameters, then the names its body binds, and is enclosed by the
// delegation's frame, whatever frame the `do` stands in.

// collectBlocks notes the named blocks of the top level, the first of
// each name, before any name is resolved, so that a `do` may come before
// the block's definition.
func (r *resolver) collectBlocks(body []Stmt) {
	r.blocks = nil
	for _, s := range body {
		if b, ok := s.(*BlockStmt); ok {
			if r.blocks == nil {
				r.blocks = map[string]*BlockStmt{}
			}
			if r.blocks[b.Name.Name] == nil {
				r.blocks[b.Name.Name] = b
			}
		}
	}
}

// block resolves a named block's body in a frame of its own, enclosed by
// the delegation's.
func (r *resolver) block(s *BlockStmt) {
	fr := r.a.frames.new(Frame{})
	s.Frame = fr
	for _, p := range s.Params {
		r.declare(fr, p.Name)
	}
	outer := r.cur
	r.cur = r.top
	r.enter(fr, s.Body, func() {
		for _, p := range s.Params {
			r.ident(p)
		}
	})
	r.cur = outer
}

// do resolves a `do:` block in a frame enclosed by the current one, or
// the arguments of a `do NAME(...)` and the block it names.
func (r *resolver) do(x Expr) {
	switch x := x.(type) {
	case *DoExpr:
		fr := r.a.frames.new(Frame{})
		x.Frame = fr
		r.enter(fr, x.Body, nil)
	case *DoCallExpr:
		for _, a := range x.Args {
			r.expr(a)
		}
		x.Def = r.blocks[x.Name.Name]
	}
}
