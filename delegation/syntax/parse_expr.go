package syntax

import (
	"strconv"
	"time"
)

// reserved reports whether w is a word that cannot name a variable (a
// switch: a map was looked up for every name parsed).
func reserved(w string) bool {
	switch w {
	case "and", "or", "not", "is", "null", "true", "false":
		return true
	}
	return false
}

// Reserved reports whether w is a word of the language that cannot name
// anything (and, or, not, is, null, true, false): a name declared
// elsewhere (a use alias) that is one of them could never be called.
func Reserved(w string) bool { return reserved(w) }

// startsOperand reports whether t can begin an expression.
func startsOperand(t *token) bool {
	switch t.kind {
	case IDENT:
		return t.raw == "not" || !reserved(t.raw) || t.raw == "null" || t.raw == "true" || t.raw == "false"
	case INT, FLOAT, STRING, DURATION, LBRACK, LBRACE, LPAREN, MINUS:
		return true
	}
	return false
}

// parseExpr parses an expression.
//
//	expr = and_expr { 'or' and_expr } .
func (p *parser) parseExpr() Expr {
	x := p.parseAnd()
	for p.isWord("or") {
		op := p.advance()
		x = p.a.binaries.new(BinaryExpr{X: x, OpPos: op.pos, Op: OR, Y: p.parseAnd()})
	}
	return x
}

// parseAnd parses a conjunction.
//
//	and_expr = not_expr { 'and' not_expr } .
func (p *parser) parseAnd() Expr {
	x := p.parseNot()
	for p.isWord("and") {
		op := p.advance()
		x = p.a.binaries.new(BinaryExpr{X: x, OpPos: op.pos, Op: AND, Y: p.parseNot()})
	}
	return x
}

// parseNot parses a negation.
//
//	not_expr = 'not' not_expr | comparison .
func (p *parser) parseNot() Expr {
	if p.isWord("not") {
		op := p.advance()
		p.enter(op.pos)
		x := p.parseNot()
		p.leave()
		return p.a.unaries.new(UnaryExpr{OpPos: op.pos, Op: NOT, X: x})
	}
	return p.parseComparison()
}

var compareOps = map[Token]bool{EQ: true, NE: true, LT: true, LE: true, GT: true, GE: true}

// parseComparison parses one (non-chained) comparison.
//
//	comparison = sum [ ('==' | '!=' | '<' | '<=' | '>' | '>=' | 'meets') sum
//	                 | 'is' [ 'not' ] ( 'null' | 'present' ) ] .
func (p *parser) parseComparison() Expr {
	x := p.parseSum()
	t := p.tok()
	switch {
	case compareOps[t.kind]:
		p.advance()
		return p.a.binaries.new(BinaryExpr{X: x, OpPos: t.pos, Op: t.kind, Y: p.parseSum()})
	case isWordTok(t, "meets"):
		p.advance()
		return p.a.binaries.new(BinaryExpr{X: x, OpPos: t.pos, Op: MEETS, Y: p.parseSum()})
	case isWordTok(t, "is"):
		is := p.advance()
		e := p.a.isExprs.new(IsExpr{X: x, IsPos: is.pos})
		if p.isWord("not") {
			p.advance()
			e.Not = true
		}
		w := p.tok()
		if !isWordTok(w, "null") && !isWordTok(w, "present") {
			p.errorf(w.pos, "syntax/expected", "expected 'null' or 'present' after 'is', found %s", describe(w))
		}
		p.advance()
		e.Present = w.raw == "present"
		e.EndPos = w.end
		return e
	}
	return x
}

// parseSum parses additions and subtractions.
//
//	sum = unary { ('+' | '-') unary } .
func (p *parser) parseSum() Expr {
	x := p.parseUnary()
	for k := p.tok().kind; k == PLUS || k == MINUS; k = p.tok().kind {
		op := p.advance()
		x = p.a.binaries.new(BinaryExpr{X: x, OpPos: op.pos, Op: k, Y: p.parseUnary()})
	}
	return x
}

// parseUnary parses a negative number or negated operand.
//
//	unary = '-' unary | postfix .
func (p *parser) parseUnary() Expr {
	if t := p.tok(); t.kind == MINUS {
		if n := p.peek(1); (n.kind == INT || n.kind == FLOAT) && n.pos == t.end {
			return p.negativeNumber()
		}
		op := p.advance()
		p.enter(op.pos)
		x := p.parseUnary()
		p.leave()
		return p.a.unaries.new(UnaryExpr{OpPos: op.pos, Op: MINUS, X: x})
	}
	return p.parsePostfix()
}

// negativeNumber folds '-' and the number right after it into one literal.
func (p *parser) negativeNumber() Expr {
	minus := p.advance()
	n := p.parsePrimary().(*NumberLit)
	n.ValuePos, n.Raw = minus.pos, "-"+n.Raw
	n.Int, n.Float = -n.Int, -n.Float
	return n
}

// parsePostfix parses member access and indexing.
//
//	postfix = primary { '.' IDENT | '[' expr ']' } .
func (p *parser) parsePostfix() Expr {
	x := p.parsePrimary()
	for {
		switch p.tok().kind {
		case DOT:
			p.advance()
			t := p.tok()
			if t.kind != IDENT {
				p.errorf(t.pos, "syntax/expected", "expected a member name after '.', found %s", describe(t))
			}
			p.advance()
			x = p.a.members.new(MemberExpr{X: x, NamePos: t.pos, Name: t.raw})
		case LBRACK:
			lb := p.advance()
			p.enter(lb.pos)
			i := p.parseExpr()
			p.leave()
			rb := p.expect(RBRACK, "to close the index")
			x = &IndexExpr{X: x, Lbrack: lb.pos, Index: i, Rbrack: rb.pos}
		default:
			return x
		}
	}
}

// parsePrimary parses an operand.
//
//	primary = IDENT | INT | FLOAT | STRING | DURATION | 'null' | 'true' | 'false'
//	        | list | object | '(' expr ')' | world_read .
func (p *parser) parsePrimary() Expr {
	t := p.tok()
	switch t.kind {
	case IDENT:
		return p.parseName()
	case INT:
		p.advance()
		n, err := strconv.ParseInt(t.raw, 10, 64)
		if err != nil {
			p.errorf(t.pos, "syntax/number", "integer %s is too large", t.raw)
		}
		return p.a.numbers.new(NumberLit{ValuePos: t.pos, Raw: t.raw, IsInt: true, Int: n, Float: float64(n)})
	case FLOAT:
		p.advance()
		f, _ := strconv.ParseFloat(t.raw, 64)
		return p.a.numbers.new(NumberLit{ValuePos: t.pos, Raw: t.raw, Float: f})
	case STRING:
		p.advance()
		raw := t.raw
		if int(t.end-t.pos) != len(raw) && p.file != nil && t.pos >= 0 && int(t.end) <= p.file.Size() {
			// A triple-quoted string spanning lines of a list item: Raw
			// is the text as it stands in the file, so End is exact.
			raw = string(p.file.Source()[t.pos:t.end])
		}
		v, parts := interpolate(&p.a, p.value(t), raw, t.pos, litBraces(t.raw))
		return p.a.strs.new(StringLit{ValuePos: t.pos, Raw: raw, Value: v, Parts: parts})
	case DURATION:
		p.advance()
		d, _ := time.ParseDuration(t.raw)
		return &DurationLit{ValuePos: t.pos, Raw: t.raw, Value: d}
	case LBRACK:
		return p.parseList()
	case LBRACE:
		return p.parseObject()
	case LPAREN:
		lp := p.advance()
		p.enter(lp.pos)
		x := p.parseExpr()
		p.leave()
		p.expect(RPAREN, "to close the parenthesis")
		return x
	case ILLEGAL:
		p.errorf(t.pos, "syntax/token", "%s", p.value(t))
	}
	p.errorf(t.pos, "syntax/expected", "expected a value, found %s", describe(t))
	return nil
}

// parseName parses a name or a named literal.
func (p *parser) parseName() Expr {
	t := p.advance()
	switch t.raw {
	case "null":
		return p.a.nulls.new(NullLit{ValuePos: t.pos})
	case "true", "false":
		return p.a.bools.new(BoolLit{ValuePos: t.pos, Value: t.raw == "true"})
	case "call":
		if startsOperand(p.tok()) {
			p.errorf(t.pos, "syntax/call-position", "a call must stand on its own: write `let NAME = call TARGET` on its own line and use NAME here")
		}
	case "do":
		// A do: block or do NAME(...) is a whole value (grammar.md),
		// never an operand: without this, `k + do f(k)` read do as a
		// name and stopped at f with "expected the end of the line".
		if n := p.tok(); n.kind == COLON || n.kind == IDENT && !reserved(n.raw) {
			p.errorf(t.pos, "syntax/do-position", "a do block is a value of its own, not a part of an expression: write `let NAME = do ...` on its own line and use NAME here")
		}
	}
	if reserved(t.raw) {
		p.errorf(t.pos, "syntax/expected", "expected a value, found '%s'", t.raw)
	}
	if t.raw == WorldRead && p.tok().kind == LPAREN {
		return p.parseWorldRead(&t)
	}
	return p.a.idents.new(Ident{NamePos: t.pos, Name: t.raw})
}

// WorldRead is the name of the world-model read a responsibility's
// Execution writes as `read_world_model("NODE")`.
const WorldRead = "read_world_model"

// parseWorldRead parses the world-model read, the one call written with
// parentheses: it is the call `call read_world_model` with the argument
// `node: "NODE"` ("self" for the node's own prior truth).
//
//	world_read = 'read_world_model' '(' STRING ')' .
func (p *parser) parseWorldRead(name *token) Expr {
	lp := p.advance()
	p.enter(lp.pos)
	s := p.tok()
	var arg Expr = &NullLit{ValuePos: s.pos}
	if s.kind == STRING {
		arg = p.parsePrimary()
	} else {
		p.errorf(s.pos, "syntax/expected", "expected a node id in quotes after '%s(', like %s(\"self\")", WorldRead, WorldRead)
	}
	p.leave()
	rp := p.expect(RPAREN, "to close "+WorldRead+"(")
	node := p.a.fields.new(Field{KeyPos: s.pos, Key: "node", Value: arg})
	return p.a.calls.new(CallExpr{Call: name.pos, Target: p.a.idents.new(Ident{NamePos: name.pos, Name: name.raw}),
		Args: p.a.fieldLists.cut([]*Field{node}), EndPos: rp.end})
}

// parseList parses a list literal; commas are optional between lines.
//
//	list = '[' [ expr { sep expr } [ ',' ] ] ']' .
//	sep  = ',' | (nothing, when the next item starts a new line) .
func (p *parser) parseList() Expr {
	lb := p.advance()
	p.enter(lb.pos)
	l := p.a.listLits.new(ListLit{Lbrack: lb.pos})
	base := len(p.exprStack)
	for p.tok().kind != RBRACK {
		x := p.parseExpr()
		p.exprStack = append(p.exprStack, x)
		p.separator(RBRACK, "list element")
	}
	l.Elems = p.a.exprLists.cut(p.exprStack[base:])
	clear(p.exprStack[base:])
	p.exprStack = p.exprStack[:base]
	l.Rbrack = p.advance().pos
	p.leave()
	return l
}

// parseObject parses an object literal; commas are optional between lines
// and a bare name is shorthand for `name: name`.
//
//	object = '{' [ field { sep field } [ ',' ] ] '}' .
//	field  = (IDENT | STRING) [ ':' expr ] .
func (p *parser) parseObject() *ObjectLit {
	lb := p.advance()
	p.enter(lb.pos)
	o := p.a.objects.new(ObjectLit{Lbrace: lb.pos})
	base := len(p.fieldStack)
	for p.tok().kind != RBRACE {
		f := p.parseField()
		p.fieldStack = append(p.fieldStack, f)
		p.separator(RBRACE, "object field")
	}
	o.Fields = p.a.fieldLists.cut(p.fieldStack[base:])
	clear(p.fieldStack[base:])
	p.fieldStack = p.fieldStack[:base]
	o.Rbrace = p.advance().pos
	p.leave()
	return o
}

func (p *parser) parseField() *Field {
	t := p.tok()
	if t.kind != IDENT && t.kind != STRING {
		p.errorf(t.pos, "syntax/expected", "expected a field name in the object, found %s", describe(t))
	}
	p.advance()
	key := t.raw
	if t.kind == STRING {
		key = p.value(t)
	}
	f := p.a.fields.new(Field{KeyPos: t.pos, Key: key})
	if p.tok().kind == COLON {
		p.advance()
		f.Value = p.parseExpr()
		return f
	}
	if t.kind == STRING || reserved(t.raw) {
		p.errorf(p.tok().pos, "syntax/expected", "expected ':' after the field name %s", describe(t))
	}
	f.Value = p.a.idents.new(Ident{NamePos: t.pos, Name: t.raw})
	return f
}

// separator consumes the separator after a list element or object field:
// a comma, or nothing when the next item starts a new line.
func (p *parser) separator(closer Token, what string) {
	t := p.tok()
	switch {
	case t.kind == COMMA:
		p.advance()
	case t.kind == closer, t.nl:
	default:
		p.errorf(t.pos, "syntax/expected", "expected ',' or '%s' after the %s, found %s", closer, what, describe(t))
	}
}
