// Package check runs the static checks of a parsed Delegation block against
// what its spec declares. It needs no model and never runs anything.
//
// The scopes are the resolver's (syntax.Binding, syntax.Frame, shared with
// the evaluator: one scope per delegation, as in Python: a `let` of a
// bound name is an assignment; names bound inside sequential loops stay
// visible after them; each iteration of a parallel body has its own
// frame). Check follows the program in order to tell which names are
// bound yet where they are used, and reports, each with a stable code
// from Rules. Branches of which one runs (then/else, try/catch) may each bind
// the same name without a re-declaration finding.
//
//   - undefined names, with a did-you-mean over slots, config, inputs and
//     bindings; call targets that are not services; where a slot declares
//     its requires precisely, argument keys that misspell a required one
//     and required keys a call does not pass (extra keys are context and
//     pass);
//   - `let` of a bound name, outer names assigned inside a parallel body;
//   - unbounded or badly counted loops, continue/break outside a loop;
//   - retries/backoff/timeout misuse and on_fail fallbacks whose shape
//     contradicts what the slot ensures;
//   - returned keys versus declared outputs, config and inputs never used;
//   - shapes (shape.go): what a value holds where the spec declares it (a
//     callee's outputs and their types, the fields a slot's ensures names,
//     typed inputs, literals), followed through let, re-assignment and
//     joins; a member the value cannot have, a return that lacks or drops
//     an output, a fallback of another shape than the callee's, a value of
//     another type than declared;
//   - natural-language conditions that mention no bound name or whose
//     `says` predicate has no clear polarity, and string literals that
//     describe a computed value instead of computing it.
//
// Uses finds where config keys are read as counts and timeouts, and
// CheckDefaults reports defaults those uses would refuse at run time (a
// negative repeat count, a zero timeout), at the Config line; the binder
// holds --config values to the same uses before any service runs.
//
// Main types and entry points: Decls (what a spec declares, built by the
// spec loader; its Callees by the Contract Markdown checks), Callee,
// Check, Rules, Rule, Uses, Use, CheckDefaults, Default.
package check

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// Check reports the static findings of prog against d. A nil prog or d is
// treated as empty. The result is unsorted; callers sort and dedupe.
func Check(prog *syntax.Program, d *Decls) diag.List {
	if prog == nil {
		return nil
	}
	if d == nil {
		d = &Decls{}
	}
	c := newChecker(prog.File, d)
	c.blockNames = blockNamesOf(prog)
	c.prog = prog
	c.agentDefs(prog)
	c.stmts(prog.Body)
	c.blocks(prog)
	c.finish()
	c.noWinner(prog)
	c.loopVarsOverwrite(prog)
	c.nullInText(prog)
	if d.ReturnRule {
		c.neverReturns(prog)
	}
	diags := c.diags
	c.release()
	return diags
}

// neverReturns reports an Execution with no return at all (nor a throw)
// whose node declares two or more outputs, or one that is not optional:
// its value is null, which the return rule refuses at the end of every
// run (with one output, callgraph's "ended without a return").
func (c *checker) neverReturns(prog *syntax.Program) {
	req := c.required()
	if len(prog.Body) == 0 || len(req) == 0 || len(req) == 1 && c.optionalOutput(req[0]) {
		return
	}
	ends := false
	var inner *syntax.ReturnStmt // the first return that is not the Execution's
	var innerOf string
	skip := func(n syntax.Node, of string) bool {
		if inner == nil {
			syntax.Walk(n, func(m syntax.Node) bool {
				if r, ok := m.(*syntax.ReturnStmt); ok && inner == nil {
					inner, innerOf = r, of
				}
				return inner == nil
			})
		}
		return false
	}
	syntax.Walk(prog, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ReturnStmt, *syntax.ThrowStmt:
			ends = true
		case *syntax.LetStmt:
			// a collecting loop's return gives one iteration's value
			// (semantics.md 9), not the Execution's
			if collecting(n.Value) {
				return skip(n.Value, collectedBy(n.Value))
			}
		case *syntax.AssignStmt:
			if collecting(n.Value) {
				return skip(n.Value, collectedBy(n.Value))
			}
		case *syntax.DoExpr:
			return skip(n, "its do: block") // a return there gives the block's value
		case *syntax.BlockStmt:
			return skip(n, "block "+n.Name.Name)
		}
		return !ends
	})
	if ends {
		c.someReturn(prog.Body, req)
		return
	}
	hint := ""
	if inner != nil {
		// the author likely meant that return to end the Execution
		hint = fmt.Sprintf(" (the return at line %d gives the value of %s, not the Execution's)", c.line(inner.Pos()), innerOf)
	}
	what := "it declares"
	if c.d.Node != "" {
		what = c.d.Node + " declares"
	}
	if len(req) == 1 {
		c.diags.Errorf(c.f, prog.Body[0].Pos(), CodeReturnShape, "the Execution never returns%s, so every run of it fails at its end, but %s the output %s: end it with return {%s: ...}",
			hint, what, quote(req[0]), req[0])
		return
	}
	c.diags.Errorf(c.f, prog.Body[0].Pos(), CodeReturnShape, "the Execution never returns%s, so its value is null, but %s %d outputs (%s): end it with a return of an object with those keys",
		hint, what, len(req), strings.Join(req, ", "))
}

// someReturn warns of an Execution that returns on some paths only
// (`if x: return {...}` and nothing after): a run that takes another
// path reaches the end without a return and fails there (callgraph's
// "ended without a return"). A warning: the path may be one no run
// takes; the error comes where a run takes it.
func (c *checker) someReturn(body []syntax.Stmt, req []string) {
	if slices.ContainsFunc(body, endsEveryPath) {
		return
	}
	last := body[len(body)-1]
	c.diags.Warnf(c.f, last.Pos(), CodeMissingReturn, "a run that gets past this statement reaches the end of the Execution without a return, and fails there (it declares %s): end every path with a return (or a throw)",
		strings.Join(req, ", "))
}

// endsEveryPath reports whether every way through s ends in a return or
// a throw: one of them, an if with an else whose branches all end, a try
// whose body and catch (or finally) end, a choice whose options all do.
func endsEveryPath(s syntax.Stmt) bool {
	all := func(body []syntax.Stmt) bool { return slices.ContainsFunc(body, endsEveryPath) }
	switch s := s.(type) {
	case *syntax.ReturnStmt, *syntax.ThrowStmt:
		return true
	case *syntax.IfStmt:
		return s.Else != nil && all(s.Then) && all(s.Else)
	case *syntax.TryStmt:
		return all(s.Finally) || all(s.Body) && (s.Catch == nil && s.CatchPos == diag.NoPos || all(s.Catch))
	case *syntax.ChoiceStmt:
		for _, o := range s.Options {
			if !all(o.Body) {
				return false
			}
		}
		return len(s.Options) > 0
	}
	return false
}

// collectedBy names what a return in the collecting loop or pipeline
// stage x ends, for a message.
func collectedBy(x syntax.Expr) string {
	if _, ok := x.(*syntax.PipeExpr); ok {
		return "one item of its pipeline stage"
	}
	return "one iteration of its loop"
}

// collecting reports whether x is a loop whose value is collected (the
// value of a let or an assignment): a return in its body ends one
// iteration.
func collecting(x syntax.Expr) bool {
	switch x.(type) {
	case *syntax.ForExpr, *syntax.RepeatExpr, *syntax.PipeExpr:
		return true
	}
	return false
}

// optionalOutput reports whether the declared output name may be null.
func (c *checker) optionalOutput(name string) bool {
	for _, o := range c.d.Outputs {
		if o.Name == name && !o.Inferred {
			return o.Optional
		}
	}
	return false
}

// bindKind says where a name comes from.
type bindKind uint8

const (
	kindSlot bindKind = iota
	kindConfig
	kindInput
	kindLocal   // let, assignment target
	kindLoopVar // for/repeat/loop variable, catch variable
	kindParam   // a named block's parameter
)

// binding is one name in scope.
type binding struct {
	pos diag.Pos
	// slot names the slot a loop variable over a list-valued slot ranges
	// over (see service).
	slot string
	// typ is the declared type of a config key or input, "" when unknown.
	typ   string
	level int32 // parallel nesting depth where the name was bound
	// scope is the depth of blocks (do: and named) where the name was
	// bound (block.go).
	scope int32
	kind  bindKind
	// constant is set for a name bound by `const`: a later let of it or
	// assignment to it is an error (its elements and appends are not: a
	// const fixes what the name holds, as in JavaScript).
	constant bool
	// service is true for a loop variable over a list-valued slot or input:
	// it may be a call target.
	service bool
	// used is set once a config key or input is read (saves map writes).
	used bool
	// shape is what the name holds where the checker stands (shape.go);
	// nil is unknown, or for an input or config key its declared type.
	shape *valueShape
	// forgot is set when the name's shape is unknown although declared
	// (an input assigned in a loop).
	forgot bool
}

// checker is the state of one Check run.
type checker struct {
	f     *diag.File
	d     *Decls
	diags diag.List

	names   map[string]*binding
	journal []undo // every set, for rollback
	slots   map[string]*Slot
	used    map[string]bool // config/input names read somewhere

	level    int32 // depth of parallel bodies
	loops    int   // depth of loops (reset inside parallel: branches)
	parLoop  bool  // the innermost loop runs its iterations in parallel
	inBranch bool  // inside a parallel: branch, outside any loop of its own
	collect  int   // depth of value-collecting loop bodies
	// live are the loop and catch variables whose body is being checked:
	// assigning one there is an error (upstream: a loop or catch variable
	// is immutable within its iteration or catch body).
	live []*binding

	scope      int32    // depth of block bodies (block.go)
	blockScope int32    // the scope of the named block being checked, 0 outside
	fence      string   // the block continue and break cannot leave ("" outside blocks)
	blockNames []string // the program's named blocks

	// prog is the program checked; pipeLevel and pipeLoops are level
	// and loops inside the body of the innermost pipeline stage being
	// checked (0 outside any), a scope of its own that no continue or
	// break may leave (pipe.go).
	prog      *syntax.Program
	pipeLevel int32
	// stage is the innermost pipeline stage whose body is being checked.
	stage *syntax.PipeExpr
	// stageShapes is what is known of a stage's value (stageValue): the
	// shape of each item a map or pmap gives, the shape a reduce gives.
	stageShapes map[*syntax.PipeExpr]*valueShape
	// doShapes is what is known of a do: block's value (doValue).
	doShapes map[*syntax.DoExpr]*valueShape
	// retStage is the stage whose item a return being checked would end
	// (nil where a return ends a block, a collecting loop's iteration or
	// the run): pipe.go warns of it.
	retStage  *syntax.PipeExpr
	pipeLoops int

	siblings []string // names bound by the branches of the parallel: block being checked
	// doStmt is the do: block or block run standing as a statement being
	// checked, whose value nothing reads (blockNoValue leaves it alone).
	doStmt   syntax.Expr
	sibStack []string // the siblings of the blocks being checked, inner ones above outer ones

	returned    map[string]bool // keys of top-level return objects
	opaqueRet   bool            // a top-level return whose keys are unknown
	anyTopLevel bool
	lacking     map[string]bool // outputs a check/return-shape error named (not also "never returned")

	// bindings is where every binding comes from, nb of them used: none
	// outlives the run, so the array is the next run's too.
	bindings []binding
	nb       int
	bound    []undo // scratch of alternatives, nested calls' above their callers'
	joins    []shapeJoin
	// ensured caches the fields each slot's ensures names (shape.go)
	ensured []slotFields
}

// checkers keeps checkers, their maps cleared, from one Check to the next:
// a checker is built for every Delegation a lint reads, and its maps and
// bindings were most of a check's allocations.
var checkers sync.Pool // of *checker

func newChecker(f *diag.File, d *Decls) *checker {
	c, _ := checkers.Get().(*checker)
	if c == nil {
		n := len(d.Inputs) + len(d.Config) + len(d.Slots)
		c = &checker{
			names:    make(map[string]*binding, n),
			slots:    make(map[string]*Slot, len(d.Slots)),
			used:     map[string]bool{},
			returned: map[string]bool{},
			lacking:  map[string]bool{},
		}
	}
	c.f, c.d = f, d
	next := c.newBinding
	// Inputs first, then config, then slots: a name declared as several
	// keeps the most specific kind (a slot listed among the inputs is a
	// service; a config key listed among them is config).
	for _, in := range d.Inputs {
		b := binding{kind: kindInput, pos: in.Pos, typ: in.Type}
		if len(in.Members) > 0 {
			b.shape = &valueShape{kind: kObject, closed: !in.Open, fields: in.Members, from: in.From}
		}
		c.names[in.Name] = next(b)
	}
	for _, cf := range d.Config {
		typ := cf.Type
		if old := c.names[cf.Name]; typ == "" && old != nil {
			typ = old.typ
		}
		c.names[cf.Name] = next(binding{kind: kindConfig, pos: cf.Pos, typ: typ})
	}
	for i := range d.Slots {
		s := &d.Slots[i]
		c.slots[s.Name] = s
		c.names[s.Name] = next(binding{kind: kindSlot, pos: s.Pos})
	}
	return c
}

// newBinding is a binding from c.bindings holding b. A full array is
// replaced by a larger one: the pointers into it stay valid.
func (c *checker) newBinding(b binding) *binding {
	if c.nb == len(c.bindings) {
		c.bindings = make([]binding, max(2*len(c.bindings), 32))
		c.nb = 0
	}
	p := &c.bindings[c.nb]
	c.nb++
	*p = b
	return p
}

// release clears c of the run (its findings belong to the caller) and
// gives it back to the pool. Maps grown past maxPooledNames are not kept.
func (c *checker) release() {
	if len(c.names) > maxPooledNames || len(c.bindings) > maxPooledNames {
		return
	}
	clear(c.names)
	clear(c.slots)
	clear(c.used)
	clear(c.returned)
	clear(c.lacking)
	clear(c.journal)
	clear(c.bindings[:c.nb])
	clear(c.bound)
	clear(c.joins)
	clear(c.ensured)
	clear(c.sibStack)
	*c = checker{
		names: c.names, slots: c.slots, used: c.used, returned: c.returned, lacking: c.lacking,
		journal: c.journal[:0], bindings: c.bindings, bound: c.bound[:0], sibStack: c.sibStack[:0],
		joins: c.joins[:0], ensured: c.ensured[:0],
	}
	checkers.Put(c)
}

const maxPooledNames = 1 << 10

// lookup resolves a name read at pos; it marks config and inputs used.
func (c *checker) lookup(name string) *binding {
	b := c.names[name]
	if b != nil && (b.kind == kindConfig || b.kind == kindInput) && !b.used {
		b.used = true
		c.used[name] = true
	}
	return b
}

// use resolves an identifier read as a value and reports it when unbound.
func (c *checker) use(id *syntax.Ident) *binding {
	b := c.lookup(id.Name)
	if b == nil {
		c.undefined(id.NamePos, id.Name, "")
	}
	return b
}

// undefined reports an unbound name with a did-you-mean when one is close.
func (c *checker) undefined(pos diag.Pos, name, what string) {
	if what == "" {
		what = "undefined name"
	}
	msg := what + " " + quote(name)
	if at := c.pipeVar(name); at != "" {
		msg += ": " + at
	} else if slices.Contains(c.siblings, name) {
		msg += ": it is bound by another branch of this parallel block, and branches run at the same time; use it after the block"
	} else if s := c.hyphenSplit(name); s != "" {
		msg += "; a hyphen between letters joins a name: to subtract, write " + quote(s)
	} else if lit := foreignLiteral[name]; lit != "" {
		msg += "; the literal is written " + lit
	} else if s := c.suggest(name); s != "" {
		msg += "; did you mean " + quote(s) + "?"
	}
	c.diags.Errorf(c.f, pos, CodeUndefinedName, "%s", msg)
}

// foreignLiteral is the literal a name borrowed from another language
// spells (True, None, nil), for the message of it unbound.
var foreignLiteral = map[string]string{
	"True": "true", "TRUE": "true", "False": "false", "FALSE": "false",
	"None": "null", "nil": "null", "NULL": "null", "Null": "null", "undefined": "null",
}

// set binds name to b, remembering the previous binding so that mark and
// rollback can undo it.
func (c *checker) set(name string, b *binding) {
	c.journal = append(c.journal, undo{name, c.names[name]})
	c.names[name] = b
}

// undo is one journal entry: name was bound to old before a set.
type undo struct {
	name string
	old  *binding
}

// mark and rollback bracket a block whose bindings must not outlive it (a
// parallel body: names bound inside it are local to each iteration).
func (c *checker) mark() int { return len(c.journal) }

func (c *checker) rollback(m int) {
	for i := len(c.journal) - 1; i >= m; i-- {
		u := c.journal[i]
		if u.old == nil {
			delete(c.names, u.name)
		} else {
			c.names[u.name] = u.old
		}
	}
	c.journal = c.journal[:m]
}

func quote(s string) string { return "'" + s + "'" }
