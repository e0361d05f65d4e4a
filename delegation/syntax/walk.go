package syntax

import "github.com/proselang/prose/diag"

// Pos is the position of the program's first statement (NoPos when empty).
func (p *Program) Pos() diag.Pos {
	if len(p.Body) == 0 {
		return diag.NoPos
	}
	return p.Body[0].Pos()
}

// End is the end of the program's last statement (NoPos when empty).
func (p *Program) End() diag.Pos { return endOf(p.Body, diag.NoPos) }

// Walk traverses the tree rooted at n in source order, calling fn for each
// node; when fn returns false the node's children are skipped. A *Program
// is a Node too. Call arguments, object fields and `on_fail use` values are
// visited through their values.
func Walk(n Node, fn func(Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	walkStmts := func(list []Stmt) {
		for _, s := range list {
			Walk(s, fn)
		}
	}
	walkExpr := func(x Expr) {
		if x != nil {
			Walk(x, fn)
		}
	}
	switch n := n.(type) {
	case *Program:
		walkStmts(n.Body)
	case *LetStmt:
		Walk(n.Name, fn)
		walkExpr(n.Value)
	case *AssignStmt:
		walkExpr(n.LHS)
		walkExpr(n.Value)
	case *ExprStmt:
		walkExpr(n.X)
	case *IfStmt:
		walkExpr(n.Cond)
		walkStmts(n.Then)
		walkStmts(n.Else)
	case *WhileStmt:
		walkExpr(n.Cond)
		walkExpr(n.Max)
		if n.Var != nil {
			Walk(n.Var, fn)
		}
		walkStmts(n.Body)
	case *ParallelStmt:
		walkStmts(n.Branches)
	case *TryStmt:
		walkStmts(n.Body)
		if n.CatchVar != nil {
			Walk(n.CatchVar, fn)
		}
		walkStmts(n.Catch)
		walkStmts(n.Finally)
	case *AppendStmt:
		walkExpr(n.Value)
		walkExpr(n.List)
	case *ReturnStmt:
		walkExpr(n.Value)
	case *ThrowStmt:
		walkExpr(n.Value)
	default:
		walkExprChildren(n, fn)
	}
}

// walkExprChildren visits the children of an expression node.
func walkExprChildren(n Node, fn func(Node) bool) {
	walkExpr := func(x Expr) {
		if x != nil {
			Walk(x, fn)
		}
	}
	switch n := n.(type) {
	case *StringLit:
		for _, p := range n.Parts {
			walkExpr(p.Ref)
		}
	case *ListLit:
		for _, e := range n.Elems {
			walkExpr(e)
		}
	case *ObjectLit:
		for _, f := range n.Fields {
			walkExpr(f.Value)
		}
	case *MemberExpr:
		walkExpr(n.X)
	case *IndexExpr:
		walkExpr(n.X)
		walkExpr(n.Index)
	case *UnaryExpr:
		walkExpr(n.X)
	case *BinaryExpr:
		walkExpr(n.X)
		walkExpr(n.Y)
	case *IsExpr:
		walkExpr(n.X)
	case *CallExpr:
		walkExpr(n.Target)
		for _, a := range n.Args {
			walkExpr(a.Value)
		}
		walkExpr(n.Retries)
		walkExpr(n.Timeout)
		if n.Backoff != nil {
			walkExpr(n.Backoff)
		}
		if n.OnFail != nil {
			walkExpr(n.OnFail.Use)
		}
	case *GateExpr:
		walkExpr(n.Question)
		walkExpr(n.Timeout)
		if n.OnFail != nil {
			walkExpr(n.OnFail.Use)
		}
	case *ForExpr:
		Walk(n.Var, fn)
		if n.Index != nil {
			Walk(n.Index, fn)
		}
		walkExpr(n.X)
		if n.Max != nil {
			walkExpr(n.Max)
		}
		for _, s := range n.Body {
			Walk(s, fn)
		}
	case *PipeExpr:
		if n.Acc != nil {
			Walk(n.Acc, fn)
		}
		Walk(n.Loop, fn) // the loop the stage stands for (pipe.go)
	case *RepeatExpr:
		walkExpr(n.Count)
		if n.Var != nil {
			Walk(n.Var, fn)
		}
		for _, s := range n.Body {
			Walk(s, fn)
		}
	default:
		walkBlock(n, fn)
	}
}
