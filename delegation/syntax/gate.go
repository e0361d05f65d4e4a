package syntax

import "github.com/proselang/prose/diag"

// Gate kinds: the word that opens a GateExpr.
const (
	GateAskUser = "ask_user" // a question, answered with a string
	GateGate    = "gate"     // a decision, answered with a JSON value
)

// GateExpr is `ask_user QUESTION` or `gate QUESTION`, the value of a
// `let` (or of an assignment), with an optional indented block of clauses:
//
//	let release = ask_user "Which release?"
//	let verdict = gate { summary: s, options: ["ship", "hold"] }
//	    timeout 24h
//	    on_fail use "hold"
//
// The run asks a person and goes on with the answer (delegation/gate.go).
type GateExpr struct {
	Gate     diag.Pos // the keyword
	Kind     string   // GateAskUser or GateGate
	Question Expr
	Timeout  Expr    // nil when absent
	OnFail   *OnFail // nil when absent
	EndPos   diag.Pos
}

func (e *GateExpr) Pos() diag.Pos { return e.Gate }
func (e *GateExpr) End() diag.Pos { return e.EndPos }
func (*GateExpr) expr()           {}

// isGateStart reports whether a gate starts at the current token: the
// word ask_user or gate followed by a string or an object, so a name
// `gate` used as a value is still a name.
func (p *parser) isGateStart() bool {
	if !p.isWord(GateAskUser) && !p.isWord(GateGate) {
		return false
	}
	k := p.peek(1).kind
	return k == STRING || k == LBRACE
}

// parseGate parses a gate and its clauses.
//
//	gate      = ('ask_user' | 'gate') (STRING | object) [ NEWLINE INDENT { gate_line } OUTDENT ] .
//	gate_line = 'timeout' expr NEWLINE | 'on_fail' ( 'abort' | 'use' expr ) NEWLINE .
func (p *parser) parseGate() Expr {
	kw := p.advance()
	g := &GateExpr{Gate: kw.pos, Kind: kw.raw}
	g.Question = p.parsePostfix()
	g.EndPos = g.Question.End()
	if p.tok().kind != NEWLINE || p.peek(1).kind != INDENT {
		return g
	}
	p.advance()
	ind := p.advance()
	p.enter(ind.pos)
	for k := p.tok().kind; k != OUTDENT && k != EOF; k = p.tok().kind {
		t := p.tok()
		if t.kind == IDENT && (t.raw == "timeout" || t.raw == "on_fail") {
			// the clauses are a call's: parse them as one, keep two
			c := &CallExpr{Timeout: g.Timeout, OnFail: g.OnFail}
			p.parseClause(c, t)
			g.Timeout, g.OnFail = c.Timeout, c.OnFail
		} else {
			p.errorf(t.pos, "syntax/gate-clause", "expected a clause of %s (timeout DURATION, on_fail use VALUE), found %s", kw.raw, describe(t))
		}
		p.endStmtOf("", t.raw, " clause")
		g.EndPos = p.lastEnd()
	}
	p.leave()
	p.expect(OUTDENT, "at the end of the gate's clauses")
	return g
}
