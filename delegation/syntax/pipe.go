package syntax

import (
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
)

// Pipelines (ProseScript's `xs | map: ...`, semantics.md 9b-9e): a value
// followed by stages that each run a body once per item of the list
// before them, left to right.
//
// A stage is a collecting loop written otherwise, as `let {a, b} =` is a
// let written otherwise: its PipeExpr holds the `for item in X:` loop it
// stands for (a `parallel for` for pmap), so every walk over the tree
// sees a loop whose returns end one iteration and whose variable is its
// own. What a loop does not say (filter keeps items, reduce carries an
// accumulator, the item's scope) is on the PipeExpr.

// PipeOp is the operation of a pipeline stage.
type PipeOp uint8

const (
	PipeMap PipeOp = iota + 1
	PipePMap
	PipeFilter
	PipeReduce
)

// pipeOpNames are the operations as written, by PipeOp.
var pipeOpNames = [...]string{PipeMap: "map", PipePMap: "pmap", PipeFilter: "filter", PipeReduce: "reduce"}

// String is the operation as written ("map", "reduce").
func (o PipeOp) String() string {
	if int(o) < len(pipeOpNames) && pipeOpNames[o] != "" {
		return pipeOpNames[o]
	}
	return "pipe"
}

// PipeExpr is one stage of a pipeline, `X | OP: BODY` or `X |
// reduce(ACC, ITEM): BODY`; a chain is nested to the left (the input of
// `xs | filter: ... | map: ...`'s map stage is its filter stage).
type PipeExpr struct {
	Pipe  diag.Pos // the '|'
	Op    PipeOp
	OpPos diag.Pos // the operation's name
	// Acc is reduce's accumulator, nil for the other operations.
	Acc *Ident
	// Loop is the stage as the loop it stands for: Loop.X is the input
	// (an expression, a call, or the stage before), Loop.Var the item
	// (a name `item` at OpPos for map, pmap and filter; reduce's second
	// name), Loop.Body the body, Loop.Parallel set for pmap. Loop.For is
	// the input's position (the loop spans the stage). Loop.Frame is the
	// scope of one item's body, which every stage has (the item and the
	// names the body binds are the body's alone), not only pmap's.
	Loop *ForExpr
}

func (e *PipeExpr) Pos() diag.Pos { return e.Loop.X.Pos() }
func (e *PipeExpr) End() diag.Pos {
	return endOf(e.Loop.Body, e.OpPos+diag.Pos(len(e.Op.String())))
}
func (*PipeExpr) expr() {}

// Input is the value the stage runs over.
func (e *PipeExpr) Input() Expr { return e.Loop.X }

// Item is the name of the item in the body.
func (e *PipeExpr) Item() *Ident { return e.Loop.Var }

// Body is the statements run per item.
func (e *PipeExpr) Body() []Stmt { return e.Loop.Body }

// pipeline parses the stages that follow the value x, if any: a '|' on
// the same line, or at the start of the next line, at the same
// indentation or indented under it (as upstream writes them). The value
// of a call's argument (arg) takes a '|' starting a line only indented
// under the argument: at the argument's indentation it is a stage of
// the call (parseCall).
//
//	pipeline = value [ NEWLINE [ INDENT ] ] stage { stage } [ OUTDENT ] .
func (p *parser) pipeline(x Expr, arg bool) Expr {
	indented := false
	switch t := p.tok(); {
	case t.kind == PIPE && !(arg && t.nl):
	case t.kind == NEWLINE && p.peek(1).kind == PIPE && !arg:
		p.advance()
	case t.kind == NEWLINE && p.peek(1).kind == INDENT && p.peek(2).kind == PIPE:
		p.advance()
		p.enter(p.advance().pos)
		indented = true
	default:
		return x
	}
	for p.tok().kind == PIPE {
		x = p.parseStage(x)
	}
	if indented {
		p.leave()
		if t := p.tok(); t.kind != OUTDENT && t.kind != EOF {
			p.errorf(t.pos, "syntax/pipe", "unexpected %s in a pipeline: each line under it starts a stage with '|' (| map:, | pmap:, | filter:, | reduce(acc, item):)", describe(t))
		}
		p.advance()
	}
	return x
}

// parseStage parses one stage, whose input is x.
//
//	stage = '|' ( 'map' | 'pmap' | 'filter' ) block
//	      | '|' 'reduce' '(' IDENT ',' IDENT ')' block .
func (p *parser) parseStage(x Expr) Expr {
	pipe := p.advance()
	t := p.tok()
	if t.kind != IDENT {
		p.errorf(t.pos, "syntax/pipe", "expected a pipeline operation after '|', found %s: write | map:, | pmap:, | filter: or | reduce(acc, item):", describe(t))
	}
	s := &PipeExpr{Pipe: pipe.pos, OpPos: t.pos}
	for op, name := range pipeOpNames {
		if name != "" && name == t.raw {
			s.Op = PipeOp(op)
		}
	}
	if s.Op == 0 {
		hint := nearestPipeOp(t.raw)
		if k := p.peek(1).kind; hint == "" && k != COLON && k != LPAREN {
			hint = " (a logical or is written 'or', not '|')"
		}
		p.errorf(t.pos, "syntax/pipe-op", "unknown pipeline operation '%s'%s: the operations are map, pmap, filter and reduce(acc, item)", t.raw, hint)
	}
	p.advance()
	loop := p.a.fors.new(ForExpr{For: x.Pos(), Parallel: s.Op == PipePMap, X: x})
	if s.Op == PipeReduce {
		s.Acc, loop.Var = p.reduceNames()
	} else {
		if p.tok().kind == LPAREN {
			p.errorf(p.tok().pos, "syntax/pipe", "| %s takes no names: its body reads each item as item (only reduce names its own: | reduce(acc, item):)", t.raw)
		}
		loop.Var = p.a.idents.new(Ident{NamePos: t.pos, Name: "item"})
	}
	loop.Body = p.parseBlock("| " + t.raw)
	s.Loop = loop
	return s
}

// reduceNames parses reduce's `(ACC, ITEM)`.
func (p *parser) reduceNames() (acc, item *Ident) {
	const form = "| reduce(acc, item): names the value carried from item to item, then the item"
	if t := p.tok(); t.kind != LPAREN {
		p.errorf(t.pos, "syntax/pipe-reduce", "reduce needs the names of its accumulator and its item: %s", form)
	}
	p.advance()
	name := func(what string) *Ident {
		t := p.tok()
		if t.kind != IDENT || reserved(t.raw) {
			p.errorf(t.pos, "syntax/pipe-reduce", "expected the name of reduce's %s, found %s: %s", what, describe(t), form)
		}
		p.advance()
		return p.a.idents.new(Ident{NamePos: t.pos, Name: t.raw})
	}
	acc = name("accumulator")
	if t := p.tok(); t.kind != COMMA {
		p.errorf(t.pos, "syntax/pipe-reduce", "reduce names its accumulator and its item, found only %s: | reduce(%s, item):", acc.Name, acc.Name)
	}
	p.advance()
	item = name("item")
	if item.Name == acc.Name {
		p.errorf(item.NamePos, "syntax/pipe-reduce", "reduce's accumulator and item are both named %s: give them two names, | reduce(acc, item):", item.Name)
	}
	p.expect(RPAREN, "to close reduce's names: "+form)
	return acc, item
}

// pipeSynonyms are what other languages call the operations.
var pipeSynonyms = map[string]string{
	"each": "map", "foreach": "map", "forEach": "map", "select": "map", "collect": "map",
	"parallel": "pmap", "parmap": "pmap", "par_map": "pmap",
	"where": "filter", "keep": "filter", "grep": "filter",
	"fold": "reduce", "foldl": "reduce", "inject": "reduce", "aggregate": "reduce",
}

// nearestPipeOp is the ", did you mean" of an unknown operation, "" when
// none is near.
func nearestPipeOp(w string) string {
	best := pipeSynonyms[w]
	if best == "" {
		best = didyoumean.Closest(w, []string{"map", "pmap", "filter", "reduce"}, max(1, len(w)/3))
	}
	switch best {
	case "":
		return ""
	case "reduce":
		return "; did you mean reduce(acc, item)?"
	}
	return "; did you mean " + best + "?"
}

// orphanStage reports a '|' that starts a statement: a stage with no
// value before it to run over.
func (p *parser) orphanStage() {
	if t := p.tok(); t.kind == PIPE {
		p.errorf(t.pos, "syntax/pipe", "a pipeline stage with nothing to run over: a '|' line follows the value of a let, an assignment, a return or a call (let ys = xs, then | map: under it); a loop's value is piped by its name (let ys = for ...:, then let zs = ys | map:)")
	}
}
