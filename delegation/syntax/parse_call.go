package syntax

import (
	"strings"

	"github.com/proselang/prose/diag"
)

// clauseNames lists the call clauses, for messages.
var clauseNames = []string{"retries", "timeout", "backoff", "on_fail"}

// parseCall parses a call and its indented block of arguments and clauses,
// which may come in any order.
//
//	call      = 'call' postfix [ NEWLINE INDENT { call_line } { stage } OUTDENT ] .
//	call_line = (IDENT | STRING) ':' value NEWLINE
//	          | 'retries' expr NEWLINE
//	          | 'timeout' expr NEWLINE
//	          | 'backoff' object NEWLINE
//	          | 'on_fail' ( 'abort' | 'use' expr ) NEWLINE .
func (p *parser) parseCall() Expr {
	kw := p.advance()
	c := p.a.calls.new(CallExpr{Call: kw.pos})
	start := p.p
	c.Target = p.parsePostfix()
	c.EndPos = c.Target.End()
	if t := p.tok(); t.kind == LPAREN || t.kind == LBRACE || isWordTok(t, "with") || t.kind == IDENT && p.peek(1).kind == COLON {
		p.errorf(t.pos, "syntax/call-args", "a call's arguments go on the lines below it, indented, one per line: `call %s` then `  key: value`", p.sourceText(p.toks[start:p.p]))
	}
	if p.tok().kind != NEWLINE || p.peek(1).kind != INDENT || p.peek(2).kind == PIPE {
		return c // a pipeline indented under the call: pipe.go
	}
	p.advance()
	ind := p.advance()
	p.enter(ind.pos)
	base := len(p.fieldStack)
	for k := p.tok().kind; k != OUTDENT && k != EOF && k != PIPE; k = p.tok().kind {
		p.parseCallLine(c, base)
		c.EndPos = p.lastEnd()
	}
	c.Args = p.a.fieldLists.cut(p.fieldStack[base:])
	clear(p.fieldStack[base:])
	p.fieldStack = p.fieldStack[:base]
	var x Expr = c
	for p.tok().kind == PIPE { // stages at the arguments' indentation
		x = p.parseStage(x)
	}
	p.leave()
	p.expect(OUTDENT, "at the end of the call's arguments")
	return x
}

// lastEnd is the end of the last token before the current NEWLINE run.
func (p *parser) lastEnd() diag.Pos {
	for i := p.p - 1; i >= 0; i-- {
		switch p.toks[i].kind {
		case NEWLINE, INDENT, OUTDENT:
			continue
		}
		return p.toks[i].end
	}
	return 0
}

// parseCallLine parses one argument or clause line of a call; the
// arguments so far are p.fieldStack[base:].
func (p *parser) parseCallLine(c *CallExpr, base int) {
	t := p.tok()
	switch {
	case t.kind == INDENT:
		p.errorf(t.pos, "syntax/indent", "unexpected indentation inside the call's arguments: indent every argument line the same way")
	case (t.kind == IDENT || t.kind == STRING) && p.peek(1).kind == COLON:
		p.advance()
		p.advance()
		key := t.raw
		if t.kind == STRING {
			key = p.value(t)
		}
		for _, a := range p.fieldStack[base:] {
			if a.Key == key {
				p.errorf(t.pos, "syntax/duplicate-arg", "duplicate argument '%s' in call", key)
			}
		}
		f := p.a.fields.new(Field{KeyPos: t.pos, Key: key})
		f.Value = p.parseValueIn(true)
		p.fieldStack = append(p.fieldStack, f)
		p.endStmt("argument")
		return
	case t.kind != IDENT:
		p.errorf(t.pos, "syntax/expected", "expected a `key: value` argument or a clause (%s), found %s", strings.Join(clauseNames, ", "), describe(t))
	}
	p.parseClause(c, t)
	p.endStmtOf("", t.raw, " clause")
}

// parseClause parses retries, timeout, backoff or on_fail.
func (p *parser) parseClause(c *CallExpr, t *token) {
	dup := func(set bool) {
		if set {
			p.errorf(t.pos, "syntax/duplicate-clause", "duplicate '%s' clause in call: keep one", t.raw)
		}
	}
	switch t.raw {
	case "retries":
		dup(c.Retries != nil)
		p.advance()
		c.Retries = p.parseOperand("the number of retries after 'retries', like retries 2")
	case "timeout":
		dup(c.Timeout != nil)
		p.advance()
		c.Timeout = p.parseOperand("a duration after 'timeout', like timeout 30s")
	case "backoff":
		dup(c.Backoff != nil)
		p.advance()
		if p.tok().kind != LBRACE {
			p.errorf(p.tok().pos, "syntax/expected", "expected an object after 'backoff', like backoff {initial: 200ms, max: 10s, multiplier: 2}")
		}
		c.Backoff = p.parseObject()
	case "on_fail":
		dup(c.OnFail != nil)
		p.advance()
		c.OnFail = &OnFail{OnFailPos: t.pos}
		switch {
		case p.isWord("abort"):
			p.advance()
			c.OnFail.Abort = true
		case p.isWord("use"):
			p.advance()
			c.OnFail.Use = p.parseOperand("the fallback value after 'on_fail use'")
		default:
			p.errorf(p.tok().pos, "syntax/expected", "expected 'abort' or 'use VALUE' after 'on_fail', found %s", describe(p.tok()))
		}
	default:
		if startsOperand(p.peek(1)) {
			p.errorf(t.pos, "syntax/unknown-clause", "unknown call clause '%s': expected one of %s, or an argument written '%s: VALUE'", t.raw, strings.Join(clauseNames, ", "), t.raw)
		}
		p.errorf(t.pos, "syntax/unknown-clause", "unknown call clause '%s': an argument is written '%s: VALUE'; clauses are %s", t.raw, t.raw, strings.Join(clauseNames, ", "))
	}
}
