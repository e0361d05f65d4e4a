package syntax

// parseOpenLoop parses upstream's open loop, which has no condition: it
// runs until a break or a return in its body, at most MAX iterations
// (semantics.md, rule 7b). It is a WhileStmt whose condition is the
// literal true, so it runs as `loop while true (max: MAX)` does; Open
// tells the checker to ask for the break or return that ends it. A
// missing `(max: N)` is the checker's error, as for any loop.
//
//	open_loop = 'loop' [ '(' 'max' ':' expr ')' ] [ 'as' IDENT ] block .
func (p *parser) parseOpenLoop() Stmt {
	loop := p.advance()
	s := &WhileStmt{Loop: loop.pos, Open: true, Cond: &BoolLit{ValuePos: loop.pos, Value: true}}
	if p.tok().kind == LPAREN {
		p.advance()
		p.expectWord("max", "in the loop bound '(max: N)'")
		p.expect(COLON, "after 'max'")
		s.Max = p.parseOperand("the most iterations after 'max:', like (max: 10)")
		p.expect(RPAREN, "to close '(max: N)'")
	}
	if p.isWord("as") {
		p.advance()
		s.Var = p.parseIdent("after 'as'")
	}
	s.Body = p.parseBlock("loop")
	return s
}
