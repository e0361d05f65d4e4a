package syntax

import (
	"strings"

	"github.com/proselang/prose/diag"
)

// Blocks: ProseScript's anonymous `do:` block and its named blocks,
// `block NAME(P1, P2):` defined at the top level and run by `do NAME(A,
// B)` (semantics.md, Blocks). The nodes, their parse, their walk and
// their dump live here.

// BlockStmt is `block NAME(P1, P2):` BODY, a named block defined at the
// top level of the program. Running it is a no-op: `do NAME(...)` runs
// its body (the resolver collects the definitions before the run, so a
// `do` may come before the definition).
type BlockStmt struct {
	Block  diag.Pos // the keyword
	Name   *Ident   // the block's name, not a variable (never resolved)
	Params []*Ident
	Body   []Stmt
	// Frame is the slot layout of one invocation: the parameters are its
	// first len(Params) slots, then the names the body binds (resolve.go).
	Frame *Frame
}

// DoExpr is `do:` BODY, an anonymous block: its statements run in a scope
// of their own, and its value is that of a `return` in it, else of its
// last bare statement, else null.
type DoExpr struct {
	Do    diag.Pos
	Body  []Stmt
	Frame *Frame // the block's scope (resolve.go)
}

// DoCallExpr is `do NAME(ARGS)`, the invocation of a named block.
type DoCallExpr struct {
	Do     diag.Pos
	Name   *Ident // the block's name, not a variable (never resolved)
	Args   []Expr
	Rparen diag.Pos
	// Def is the block the name names, set by the resolver; nil when the
	// program defines none of that name (the checker reports it).
	Def *BlockStmt
}

func (s *BlockStmt) Pos() diag.Pos  { return s.Block }
func (s *BlockStmt) End() diag.Pos  { return endOf(s.Body, s.Name.End()) }
func (e *DoExpr) Pos() diag.Pos     { return e.Do }
func (e *DoExpr) End() diag.Pos     { return endOf(e.Body, e.Do+3) }
func (e *DoCallExpr) Pos() diag.Pos { return e.Do }
func (e *DoCallExpr) End() diag.Pos { return e.Rparen + 1 }

func (*BlockStmt) stmt()  {}
func (*DoExpr) expr()     {}
func (*DoCallExpr) expr() {}

// isDoStart reports whether a do block or a block invocation starts at
// the current token: the word do followed by ':' or a name (`do` alone
// is still a name).
func (p *parser) isDoStart() bool {
	if !p.isWord("do") {
		return false
	}
	next := p.peek(1)
	return next.kind == COLON || next.kind == IDENT && !reserved(next.raw)
}

// parseDo parses an anonymous block or a block invocation.
//
//	do_block = 'do' block .
//	do_call  = 'do' IDENT '(' [ expr { ',' expr } ] ')' .
func (p *parser) parseDo() Expr {
	kw := p.advance()
	if p.tok().kind == COLON {
		d := &DoExpr{Do: kw.pos}
		d.Body = p.parseBlock("do")
		return d
	}
	name := p.parseIdent("after 'do'")
	if t := p.tok(); t.kind != LPAREN {
		p.errorf(name.NamePos, "syntax/do-call", "do %s runs the block %s with its arguments in parentheses: write do %s(...), or do %s() when it takes none",
			name.Name, name.Name, name.Name, name.Name)
	}
	p.advance()
	d := &DoCallExpr{Do: kw.pos, Name: name}
	for p.tok().kind != RPAREN {
		d.Args = append(d.Args, p.parseOperand("an argument of do "+name.Name+"(...)"))
		if t := p.tok(); t.kind == COLON {
			// do f(x: 1), written as a call's arguments are
			p.errorf(t.pos, "syntax/do-call", "the arguments of do %s(...) are given in the order of the block's parameters, not by name: write do %s(VALUE, ...)", name.Name, name.Name)
		}
		if p.tok().kind != COMMA {
			break
		}
		p.advance()
	}
	d.Rparen = p.expect(RPAREN, "to close the arguments of do "+name.Name+"(...)").pos
	return d
}

// parseBlockDef parses the definition of a named block, which stands at
// the top level only (blocks are collected before the run, and a block
// sees the top-level names, not those of a statement around it).
//
//	block_def = 'block' IDENT [ '(' [ IDENT { ',' IDENT } ] ')' ] block .
func (p *parser) parseBlockDef() Stmt {
	kw := p.advance()
	if p.depth > 0 {
		p.errorf(kw.pos, "syntax/nested-block", "a block is defined at the top level of the program, not inside another statement: move block %s out, unindented", p.tok().raw)
	}
	s := &BlockStmt{Block: kw.pos}
	s.Name = p.parseIdent("after 'block'")
	if p.tok().kind == LPAREN {
		p.advance()
		for p.tok().kind != RPAREN {
			s.Params = append(s.Params, p.parseIdent("as a parameter of block "+s.Name.Name+"(a, b)"))
			if t := p.tok(); t.kind == ASSIGN {
				p.errorf(t.pos, "syntax/block-param", "a block's parameters take no default values: every do %s(...) gives each one, in order", s.Name.Name)
			}
			if p.tok().kind != COMMA {
				break
			}
			p.advance()
		}
		p.expect(RPAREN, "to close the parameters of block "+s.Name.Name+"(a, b)")
	}
	s.Body = p.parseBlock("block")
	return s
}

// walkBlock visits the children of a block node; it reports whether n is
// one.
func walkBlock(n Node, fn func(Node) bool) bool {
	switch n := n.(type) {
	case *BlockStmt:
		for _, id := range n.Params {
			Walk(id, fn)
		}
		for _, s := range n.Body {
			Walk(s, fn)
		}
	case *DoExpr:
		for _, s := range n.Body {
			Walk(s, fn)
		}
	case *DoCallExpr:
		for _, a := range n.Args {
			Walk(a, fn)
		}
	default:
		return false
	}
	return true
}

// dumpBlock dumps a block node, as (block NAME (P1 P2) body...), (do
// body...) and (do-call NAME ARGS...); it reports whether n is one.
func dumpBlock(b *strings.Builder, n Node) bool {
	switch n := n.(type) {
	case *BlockStmt:
		params := "("
		for i, id := range n.Params {
			if i > 0 {
				params += " "
			}
			params += id.Name
		}
		sexp(b, "block", n.Name.Name, params+")", n.Body)
	case *DoExpr:
		sexp(b, "do", n.Body)
	case *DoCallExpr:
		items := []any{n.Name.Name}
		for _, a := range n.Args {
			items = append(items, a)
		}
		sexp(b, "do-call", items...)
	default:
		return false
	}
	return true
}
