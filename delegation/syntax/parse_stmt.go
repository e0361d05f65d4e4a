package syntax

import (
	"strings"

	"github.com/proselang/prose/diag"
)

// parseStmt dispatches on the first word of a line. Keywords are
// contextual: a line holding a top-level '=' (other than `let`) is an
// assignment, so `record = x` assigns a variable named record.
//
//	stmt = let_stmt | assign_stmt | if_stmt | while_stmt | parallel_stmt
//	     | try_stmt | append_stmt | branch_stmt | return_stmt | throw_stmt
//	     | choice_stmt | loop_stmt | block_def | expr_stmt .
func (p *parser) parseStmt() Stmt {
	t := p.tok()
	if t.kind == INDENT {
		p.errorf(t.pos, "syntax/indent", "unexpected indentation: this line is indented more than the line above, which does not end with ':'")
	}
	if t.kind != IDENT {
		return p.parseExprStmt()
	}
	next := p.peek(1)
	if t.raw != "let" && t.raw != "const" && !(t.raw == "block" && next.kind == IDENT) && p.lineHasAssign() {
		if (t.raw == "if" || t.raw == "elif" || t.raw == "loop") && startsOperand(next) {
			kw := t.raw
			if kw == "loop" {
				kw += " " + next.raw
			}
			p.errorf(p.assignPos(), "syntax/expected", "a condition compares with '==', not '=': write '%s A == B:'", kw)
		}
		return p.parseAssign()
	}
	switch t.raw {
	case "let", "const":
		return p.parseLet()
	case "for", "repeat":
		if p.isLoopStart() || t.raw == "for" && next.kind == IDENT || t.raw == "repeat" && (startsOperand(next) || next.kind == COLON) {
			return p.a.exprs.new(ExprStmt{X: p.parseLoop()})
		}
	case "while", "until":
		if startsOperand(next) {
			p.errorf(t.pos, "syntax/expected", "a condition loop is written 'loop %s COND (max: N):'", t.raw)
		}
	case "if":
		return p.parseIf(false)
	case "elif", "else":
		p.errorf(t.pos, "syntax/else-without-if", "'%s' without a matching 'if': it must follow an if block at the same indentation", t.raw)
	case "catch", "finally":
		p.errorf(t.pos, "syntax/catch-without-try", "'%s' without a matching 'try': it must follow a try block at the same indentation", t.raw)
	case "parallel", "try":
		if next.kind == COLON && t.raw == "try" {
			return p.parseTry()
		}
		if next.kind == COLON || next.kind == LPAREN && t.raw == "parallel" {
			return p.parseParallel()
		}
		if next.kind == NEWLINE && p.peek(2).kind == INDENT {
			p.errorf(next.pos, "syntax/missing-colon", "missing ':' at the end of the %s line: a block opens with ':'", t.raw)
		}
		if isWordTok(next, "for") || isWordTok(next, "repeat") || isWordTok(next, "first") {
			return p.a.exprs.new(ExprStmt{X: p.parseLoop()})
		}
	case "loop":
		if isWordTok(next, "while") || isWordTok(next, "until") {
			return p.parseWhile()
		}
		if isWordTok(next, "up") && isWordTok(p.peek(2), "to") {
			return p.parseLoopUpTo()
		}
		if isWordTok(next, "for") && isWordTok(p.peek(2), "each") {
			return p.a.exprs.new(ExprStmt{X: p.parseLoopForEach()})
		}
		if next.kind == LPAREN || next.kind == COLON || isWordTok(next, "as") {
			return p.parseOpenLoop() // parse_loop_open.go
		}
	case "append", "record":
		if startsOperand(next) {
			return p.parseAppend(t.raw == "record")
		}
	case "choice":
		if p.isChoiceStart() {
			return p.parseChoice() // parse_choice.go
		}
	case "option":
		if p.peek(1).kind == STRING {
			return p.parseOptionOutside()
		}
	case "agent":
		if p.isAgentStart() {
			p.parseAgent()
			return nil
		}
	case "continue", "break":
		return p.parseBranch()
	case "block":
		if next.kind == IDENT {
			return p.parseBlockDef()
		}
	case "return":
		return p.parseReturn()
	case "throw":
		return p.parseThrow()
	}
	return p.parseExprStmt()
}

// assignPos is the position of the current line's first '='.
func (p *parser) assignPos() diag.Pos {
	for i := p.p; i < len(p.toks); i++ {
		if p.toks[i].kind == ASSIGN {
			return p.toks[i].pos
		}
	}
	return p.tok().pos
}

// lineHasAssign reports whether the current logical line holds an '='.
func (p *parser) lineHasAssign() bool {
	for i := p.p; i < len(p.toks); i++ {
		switch p.toks[i].kind {
		case ASSIGN:
			return true
		case NEWLINE, EOF, INDENT, OUTDENT, COLON:
			return false
		}
	}
	return false
}

// parseExprStmt parses a bare call, a statement-level loop or a value.
//
//	expr_stmt = value NEWLINE .
func (p *parser) parseExprStmt() Stmt {
	p.orphanStage()
	x := p.parseValue()
	p.endStmt("expression")
	return p.a.exprs.new(ExprStmt{X: x})
}

// parseLet parses a let statement.
//
//	let_stmt = ( 'let' | 'const' ) IDENT '=' value NEWLINE .
func (p *parser) parseLet() Stmt {
	let := p.advance()
	kw, after := "let", "after 'let'"
	if let.raw == "const" {
		kw, after = "const", "after 'const'"
	}
	if p.tok().kind == LBRACE {
		return p.parseDestructure(let, kw)
	}
	name := p.parseIdent(after)
	if t := p.tok(); t.kind != ASSIGN {
		p.errorf(t.pos, "syntax/expected", "expected '%s' after '%s %s', found %s", ASSIGN, kw, name.Name, describe(t))
	}
	p.advance()
	v := p.parseValue()
	p.endStmt(kw + " statement")
	return p.a.lets.new(LetStmt{Let: let.pos, Name: name, Value: v, Const: kw == "const"})
}

// parseDestructure parses a destructuring let, after its keyword: the
// let of the hidden name "{a, b}" to the value, with the lets of a and b
// to its members left in p.destructured (see LetStmt).
//
//	destructure = ('let' | 'const') '{' IDENT { ',' IDENT } [ ',' ] '}' '=' value NEWLINE .
func (p *parser) parseDestructure(let token, kw string) Stmt {
	open := p.advance()
	var names []*Ident
	seen := map[string]bool{}
	for p.tok().kind != RBRACE {
		id := p.parseIdent("in the braces of a destructuring " + kw + ": " + kw + " {a, b} = call x")
		if seen[id.Name] {
			p.errorf(id.NamePos, "syntax/destructure", "%s is named twice in the braces", id.Name)
		}
		seen[id.Name] = true
		names = append(names, id)
		if p.tok().kind != COMMA {
			break
		}
		p.advance()
	}
	p.expect(RBRACE, "to close the names of a destructuring "+kw+": "+kw+" {a, b} = call x")
	if len(names) == 0 {
		p.errorf(open.pos, "syntax/destructure", "a destructuring %s names at least one member: %s {a, b} = call x", kw, kw)
	}
	p.expect(ASSIGN, "after the braces of a destructuring "+kw)
	v := p.parseValue()
	p.endStmt(kw + " statement")
	spelt := make([]string, len(names))
	for i, n := range names {
		spelt[i] = n.Name
	}
	holder := "{" + strings.Join(spelt, ", ") + "}"
	first := p.a.lets.new(LetStmt{Let: let.pos, Name: p.a.idents.new(Ident{NamePos: open.pos, Name: holder}), Value: v, Const: kw == "const"})
	for _, n := range names {
		m := p.a.members.new(MemberExpr{X: p.a.idents.new(Ident{NamePos: open.pos, Name: holder}), NamePos: n.NamePos, Name: n.Name, Required: true})
		p.destructured = append(p.destructured, p.a.lets.new(LetStmt{Let: let.pos, Name: n, Value: m, Const: kw == "const"}))
	}
	return first
}

// parseAssign parses an assignment to a name or an indexed element.
//
//	assign_stmt = postfix '=' value NEWLINE .
func (p *parser) parseAssign() Stmt {
	lhs := p.parsePostfix()
	switch lhs.(type) {
	case *Ident, *IndexExpr:
	default:
		p.errorf(lhs.Pos(), "syntax/assign", "cannot assign to this expression: only a name or an indexed element (name[i]) can be assigned")
	}
	if id, ok := lhs.(*Ident); ok && p.tok().kind == IDENT && p.peek(1).kind == ASSIGN {
		// `var x = 1`, `set x = 1`: another language's declaration
		p.errorf(id.NamePos, "syntax/expected", "'%s' is no keyword: a name is bound with let %s = VALUE (const %s = VALUE for one bound once), and assigned with %s = VALUE",
			id.Name, p.tok().raw, p.tok().raw, p.tok().raw)
	}
	eq := p.expect(ASSIGN, "in assignment (use '==' to compare)")
	v := p.parseValue()
	p.endStmt("assignment")
	return p.a.assigns.new(AssignStmt{LHS: lhs, Eq: eq.pos, Value: v})
}

// parseIf parses an if statement and its elif/else chain. An elif is
// the only statement of the Else of the IfStmt before it, but a flat
// chain is not nesting: it is parsed in a loop, and only its length is
// bounded (maxElifs branches), so that the walks over the tree, which
// recurse into each Else, stay shallow enough.
//
//	if_stmt = ('if' | 'elif') cond block [ elif_part | 'else' block ] .
func (p *parser) parseIf(elif bool) Stmt {
	first := p.parseIfBranch(elif)
	cur := first
	for n := 1; ; n++ {
		switch {
		case p.isWord("elif") && p.peek(1).kind != ASSIGN:
			if n >= maxElifs {
				p.errorf(p.tok().pos, "syntax/nesting", "an if/elif chain of more than %d branches: split it, or look the case up in an object", maxElifs)
			}
			next := p.parseIfBranch(true)
			cur.Else = p.a.stmtLists.cut([]Stmt{next})
			cur = next
			continue
		case p.isWord("else") && p.peek(1).kind != ASSIGN:
			if isWordTok(p.peek(1), "if") {
				p.errorf(p.tok().pos, "syntax/else-if", "write 'elif COND:' instead of 'else if COND:'")
			}
			cur.ElsePos = p.advance().pos
			cur.Else = p.parseBlock("else")
		}
		return first
	}
}

// maxElifs bounds the branches of one if/elif chain.
const maxElifs = 1000

// parseIfBranch parses `if COND:` or `elif COND:` and its block.
func (p *parser) parseIfBranch(elif bool) *IfStmt {
	kw := p.advance()
	what := kw.raw
	end := p.headEnd(false)
	cond := p.parseCond(what, end)
	s := p.a.ifs.new(IfStmt{If: kw.pos, Elif: elif, Cond: cond, ElsePos: diag.NoPos})
	s.Then = p.parseBlock(what)
	return s
}

// parseWhile parses a condition loop.
//
//	while_stmt = 'loop' ('while' | 'until') cond [ '(' 'max' ':' expr ')' ] [ 'as' IDENT ] block .
func (p *parser) parseWhile() Stmt {
	loop := p.advance()
	until := p.advance().raw == "until"
	what := "loop while"
	if until {
		what = "loop until"
	}
	end := p.headEnd(true)
	s := &WhileStmt{Loop: loop.pos, Until: until}
	s.Cond = p.parseCond(what, end)
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
	s.Body = p.parseBlock(what)
	return s
}

// parseLoopUpTo reports upstream's `loop up to N:`, which is not
// ProseScript, naming the forms to write, and reads it on as `repeat N:`
// so that its body is still checked.
func (p *parser) parseLoopUpTo() Stmt {
	loop := p.advance()
	p.advance() // up
	p.advance() // to
	p.errorf(loop.pos, "syntax/loop-up-to", "'loop up to N:' is not ProseScript: write 'repeat N:' for N passes, or 'loop until COND (max: N):' to stop early when COND holds")
	r := p.a.repeats.new(RepeatExpr{Repeat: loop.pos})
	r.Count = p.parseOperand("the number of iterations: repeat N:")
	r.Body = p.parseBlock("loop")
	return p.a.exprs.new(ExprStmt{X: r})
}

// parseParallel parses a block of concurrent branches, with the join's
// modifiers.
//
//	parallel_stmt = 'parallel' [ '(' parallel_mod { ',' parallel_mod } ')' ] block .
//	parallel_mod  = operand | 'count' ':' operand | 'on' '-' 'fail' ':' operand .
func (p *parser) parseParallel() Stmt {
	kw := p.advance()
	s := &ParallelStmt{Parallel: kw.pos}
	if p.tok().kind == LPAREN {
		s.Mods = p.advance().pos
		const form = `like parallel ("any", count: 2, on-fail: "continue"):`
		for first := true; ; first = false {
			if !first {
				if p.tok().kind != COMMA {
					break
				}
				p.advance()
			}
			switch {
			case p.isWord("count") && p.peek(1).kind == COLON:
				at := p.advance().pos
				p.advance()
				if s.Count != nil {
					p.errorf(at, "syntax/parallel-mod", "count is given twice in the parallel modifiers")
				}
				s.Count = p.parseOperand("the number of branches that must succeed after 'count:', " + form)
			case p.isWord("on-fail") || p.isWord("on") && p.peek(1).kind == MINUS && isWordTok(p.peek(2), "fail"):
				at := p.advance().pos
				if p.tok().kind == MINUS {
					p.advance()
					p.advance()
				}
				p.expect(COLON, "after 'on-fail'")
				if s.OnFail != nil {
					p.errorf(at, "syntax/parallel-mod", "on-fail is given twice in the parallel modifiers")
				}
				s.OnFail = p.parseOperand(`the failure policy after 'on-fail:' ("fail-fast", "continue" or "ignore"), ` + form)
			case p.tok().kind == IDENT && p.peek(1).kind == COLON:
				t := p.tok()
				p.errorf(t.pos, "syntax/parallel-mod", "unknown parallel modifier %q: the modifiers are a join (\"all\", \"first\" or \"any\"), count: N and on-fail: POLICY, %s", t.raw, form)
				p.advance()
				p.advance()
				p.parseOperand("a modifier's value")
			default:
				at := p.tok().pos
				x := p.parseOperand(`the join ("all", "first" or "any"), count: N or on-fail: POLICY, ` + form)
				if s.Join != nil {
					p.errorf(at, "syntax/parallel-mod", "the join is given twice in the parallel modifiers")
				}
				s.Join = x
			}
		}
		p.expect(RPAREN, "to close the parallel modifiers")
	}
	s.Branches = p.parseBlock("parallel")
	// A destructuring let is several statements (LetStmt), which would be
	// as many branches: refused, and taken out.
	kept := s.Branches[:0]
	for _, br := range s.Branches {
		if let, ok := br.(*LetStmt); ok {
			if strings.HasPrefix(let.Name.Name, "{") {
				p.report(let.Name.NamePos, "syntax/destructure", "a destructuring let cannot be a branch of a parallel block: bind the value in the branch (let r = call ...) and destructure it after the block (let %s = r)", let.Name.Name)
				continue
			}
			if m, ok := let.Value.(*MemberExpr); ok && m.Required {
				continue
			}
		}
		kept = append(kept, br)
	}
	s.Branches = kept
	return s
}

// parseTry parses try/catch/finally.
//
//	try_stmt = 'try' block [ 'catch' [ 'as' IDENT ] block ] [ 'finally' block ] .
func (p *parser) parseTry() Stmt {
	kw := p.advance()
	s := &TryStmt{Try: kw.pos, CatchPos: diag.NoPos, FinallyPos: diag.NoPos}
	s.Body = p.parseBlock("try")
	if p.isWord("catch") && p.peek(1).kind != ASSIGN {
		s.CatchPos = p.advance().pos
		if p.isWord("as") {
			p.advance()
			s.CatchVar = p.parseIdent("after 'catch as'")
		} else if t := p.tok(); t.kind == IDENT {
			p.errorf(t.pos, "syntax/expected", "write 'catch as %s:' to name the error", t.raw)
		}
		p.catches++
		s.Catch = p.parseBlock("catch")
		p.catches--
	}
	if p.isWord("finally") && p.peek(1).kind != ASSIGN {
		s.FinallyPos = p.advance().pos
		s.Finally = p.parseBlock("finally")
	}
	if s.CatchPos == diag.NoPos && s.FinallyPos == diag.NoPos {
		p.report(kw.pos, "syntax/try-without-catch", "'try' needs a 'catch:' or 'finally:' block after it, at the same indentation")
	}
	return s
}

// parseAppend parses `append VALUE to LIST` or `record VALUE in LIST`.
//
//	append_stmt = 'append' expr 'to' postfix NEWLINE | 'record' expr 'in' postfix NEWLINE .
func (p *parser) parseAppend(record bool) Stmt {
	kw := p.advance()
	word := "to"
	if record {
		word = "in"
	}
	if end := p.peek(2).kind; p.isWord(word) && p.peek(1).kind == IDENT && (end == NEWLINE || end == EOF) {
		p.errorf(p.tok().pos, "syntax/expected", "expected the value to add after '%s': %s VALUE %s LIST", kw.raw, kw.raw, word)
	}
	v := p.parseOperandAfter("the value to add after '", kw.raw, "'")
	if record {
		p.expectWord("in", "after the recorded value: record VALUE in LIST")
	} else {
		p.expectWord("to", "after the appended value: append VALUE to LIST")
	}
	list := p.parsePostfix()
	p.endStmtOf("", kw.raw, " statement")
	return p.a.appends.new(AppendStmt{Keyword: kw.pos, Record: record, Value: v, List: list})
}

// parseBranch parses continue or break.
//
//	branch_stmt = ('continue' | 'break') NEWLINE .
func (p *parser) parseBranch() Stmt {
	kw := p.advance()
	p.endStmtOf("'", kw.raw, "'")
	return &BranchStmt{Keyword: kw.pos, Break: kw.raw == "break"}
}

// parseReturn parses a return statement.
//
//	return_stmt = 'return' [ value ] NEWLINE .
func (p *parser) parseReturn() Stmt {
	kw := p.advance()
	s := p.a.returns.new(ReturnStmt{Return: kw.pos})
	if k := p.tok().kind; k != NEWLINE && k != EOF && k != OUTDENT {
		s.Value = p.parseValue()
	}
	if t := p.tok(); t.kind == COMMA {
		p.errorf(t.pos, "syntax/unexpected", "return takes one value: return a list [a, b] or an object { a, b }")
	}
	p.endStmt("return statement")
	return s
}

// parseThrow parses a throw statement.
//
//	throw_stmt = 'throw' [ 'usage' ] expr NEWLINE .
//
// `usage` is a word, not a keyword: only followed by a string is it the
// mark of a usage error (`throw usage` alone throws the name usage).
func (p *parser) parseThrow() Stmt {
	kw := p.advance()
	if isWordTok(p.tok(), "usage") && p.peek(1).kind == STRING {
		p.advance()
		v := p.parseOperand("the reason after 'throw usage', like throw usage \"max_rounds must be at least 1\"")
		p.endStmt("throw statement")
		return &ThrowStmt{Throw: kw.pos, Value: v, Usage: true}
	}
	if k := p.peek(0).kind; (k == NEWLINE || k == EOF || k == OUTDENT) && p.catches > 0 {
		p.endStmt("throw statement")
		return &ThrowStmt{Throw: kw.pos} // raises the caught error again
	}
	v := p.parseOperand("the value to throw after 'throw', like throw \"reason\" (a bare throw raises a caught error again, inside catch only)")
	p.endStmt("throw statement")
	return &ThrowStmt{Throw: kw.pos, Value: v}
}

// parseValue parses what may stand on the right of `let NAME =`: a call, a
// collecting loop, or an expression, a call or an expression followed by
// pipeline stages (pipe.go).
//
//	value = call [ pipeline ] | gate | loop | do_block | do_call | expr [ pipeline ] .
func (p *parser) parseValue() Expr { return p.parseValueIn(false) }

// parseValueIn is parseValue; arg marks a call's argument, whose value
// takes only the stages that follow it on its line or indented under it
// (a '|' line at the arguments' indentation is a stage of the call).
func (p *parser) parseValueIn(arg bool) Expr {
	if p.isWord("call") {
		if k := p.peek(1).kind; k == NEWLINE || k == EOF {
			p.errorf(p.peek(1).pos, "syntax/expected", "expected the service to call after 'call', like `call worker`")
		}
	}
	if p.isCallStart() {
		return p.pipeline(p.parseCall(), arg)
	}
	if p.isGateStart() {
		return p.parseGate()
	}
	if p.isSessionStart() {
		return p.parseSession()
	}
	if p.isLoopStart() {
		return p.parseLoop()
	}
	if p.isWord("loop") {
		if next := p.peek(1); isWordTok(next, "for") && isWordTok(p.peek(2), "each") {
			return p.parseLoopForEach() // collects as the for loop it is (rule 7a)
		} else if isWordTok(next, "while") || isWordTok(next, "until") || next.kind == LPAREN || next.kind == COLON || isWordTok(next, "as") {
			p.loopAsValue()
		}
	}
	if p.isWord("choice") && p.isChoiceStart() {
		p.choiceAsValue() // parse_choice.go
	}
	if p.isDoStart() {
		return p.parseDo()
	}
	return p.pipeline(p.parseExpr(), arg)
}

func (p *parser) isCallStart() bool {
	return p.isWord("call") && startsOperand(p.peek(1))
}

// isLoopStart reports whether a for/repeat loop, possibly parallel,
// starts at the current token.
func (p *parser) isLoopStart() bool {
	i := 0
	if isWordTok(p.peek(i), "parallel") {
		i++
		if isWordTok(p.peek(i), "first") && (isWordTok(p.peek(i+1), "for") || isWordTok(p.peek(i+1), "repeat")) {
			i++
		}
	}
	t := p.peek(i)
	switch {
	case isWordTok(t, "for"):
		return p.peek(i+1).kind == IDENT && (isWordTok(p.peek(i+2), "in") || p.peek(i+2).kind == COMMA)
	case isWordTok(t, "repeat"):
		return startsOperand(p.peek(i + 1))
	}
	return false
}

// parseLoop parses a for or repeat loop, as a statement or a value.
//
//	loop   = [ 'parallel' [ 'first' ] ] ( for | repeat ) .
//	for    = 'for' IDENT [ ',' IDENT ] 'in' expr block .
//	repeat = 'repeat' expr [ 'as' IDENT ] block .
func (p *parser) parseLoop() Expr {
	start := p.tok().pos
	parallel, first := false, false
	if p.isWord("parallel") {
		p.advance()
		parallel = true
		if p.isWord("first") {
			p.advance()
			first = true
		}
	}
	if p.isWord("repeat") {
		p.advance()
		r := p.a.repeats.new(RepeatExpr{Repeat: start, Parallel: parallel, First: first})
		if t := p.tok(); t.kind == COLON || isWordTok(t, "as") {
			p.errorf(t.pos, "syntax/expected", "expected the number of iterations after 'repeat': repeat N: or repeat N as i:")
		}
		r.Count = p.parseOperand("the number of iterations after 'repeat': repeat N:")
		if p.isWord("as") {
			p.advance()
			r.Var = p.parseIdent("after 'as'")
		}
		r.Body = p.parseBlock("repeat")
		return r
	}
	p.expectWord("for", "after 'parallel'")
	f := p.a.fors.new(ForExpr{For: start, Parallel: parallel, First: first})
	p.parseForHead(f, "for", "for x in list:")
	f.Body = p.parseBlock("for")
	return f
}

// parseForHead parses a for loop's names and list, after its keywords
// (kw, as messages name them; form is the loop written out).
//
//	for_head = IDENT [ ',' IDENT ] 'in' operand .
func (p *parser) parseForHead(f *ForExpr, kw, form string) {
	f.Var = p.parseIdent("after '" + kw + "'")
	if p.tok().kind == COMMA {
		p.advance()
		f.Index = p.parseIdent("after ',' (" + strings.Replace(form, " x ", " x, i ", 1) + ")")
	}
	p.expectWord("in", "after the loop variable: "+form)
	f.X = p.parseOperand("the list to loop over after 'in': " + form)
}

// loopAsValue reports a loop while, loop until or open loop written as a
// value (`let x = loop (max: 3):`): they run until a condition or a
// break, and give no list of values; without this, `loop` read as a
// name and the error fell on the token after it.
func (p *parser) loopAsValue() {
	p.errorf(p.tok().pos, "syntax/loop-value", "a loop while, loop until or loop (max: N) is a statement, not a value: write it on its own line and append what each pass finds to a list made before it, or collect with for, repeat or loop for each")
}

// parseLoopForEach parses upstream's bounded iteration over a list.
//
//	for_each = 'loop' 'for' 'each' IDENT [ ',' IDENT ] 'in' operand '(' 'max' ':' expr ')' block .
func (p *parser) parseLoopForEach() Expr {
	start := p.advance().pos // loop
	p.advance()              // for
	p.advance()              // each
	f := p.a.fors.new(ForExpr{For: start})
	p.parseForHead(f, "loop for each", "loop for each x in list (max: N):")
	if p.tok().kind != LPAREN {
		p.errorf(p.tok().pos, "syntax/unbounded-loop", "'loop for each' needs its bound: loop for each x in list (max: N): (or write for x in list:)")
	} else {
		p.advance()
		p.expectWord("max", "in the loop bound '(max: N)'")
		p.expect(COLON, "after 'max'")
		f.Max = p.parseOperand("the most iterations after 'max:', like (max: 20)")
		p.expect(RPAREN, "to close '(max: N)'")
	}
	f.Body = p.parseBlock("loop for each")
	return f
}

// parseOperand parses an expression that the grammar requires here; when
// none starts (the line ends, a ':' comes), the error says what was
// expected rather than just "a value".
func (p *parser) parseOperand(what string) Expr {
	return p.parseOperandAfter(what, "", "")
}

// parseOperandAfter is parseOperand with what written in three parts,
// joined only for the message.
func (p *parser) parseOperandAfter(what, word, after string) Expr {
	if t := p.tok(); !startsOperand(t) && t.kind != ILLEGAL {
		p.errorf(t.pos, "syntax/expected", "expected %s%s%s, found %s", what, word, after, describe(t))
	}
	return p.parseExpr()
}

// parseIdent parses a name.
func (p *parser) parseIdent(context string) *Ident {
	t := p.tok()
	if t.kind != IDENT || reserved(t.raw) {
		p.errorf(t.pos, "syntax/expected", "expected a name %s, found %s", context, describe(t))
	}
	p.advance()
	return p.a.idents.new(Ident{NamePos: t.pos, Name: t.raw})
}
