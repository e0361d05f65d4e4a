package syntax

import (
	"time"

	"github.com/proselang/prose/diag"
)

// Line is one line of a Delegation code block as the loader hands it over:
// its text without the newline (and without any list-item indentation that
// belongs to the Markdown, not to the code) and the .md offset of Text[0].
type Line struct {
	Text string
	Off  diag.Pos
}

// Node is any syntax tree node. Pos is the offset of its first byte in the
// .md file; End the offset just past its last byte.
type Node interface {
	Pos() diag.Pos
	End() diag.Pos
}

// Stmt is a statement. The set is sealed: only this package implements it.
type Stmt interface {
	Node
	stmt()
}

// Expr is an expression. The set is sealed: only this package implements it.
type Expr interface {
	Node
	expr()
}

// Program is a parsed Delegation block.
type Program struct {
	File *diag.File
	Body []Stmt
	// Frame is the slot layout of the delegation's scope (resolve.go).
	Frame *Frame
	// Agents are the block's `agent NAME:` definitions, in order
	// (parse_session.go).
	Agents []*AgentDef

	// calls and loops are the program's call and for expressions, as
	// the resolver met them; indexed says it did (a Program Parse made).
	calls   []*CallExpr
	loops   []*ForExpr
	indexed bool
}

// Calls lists the program's call expressions, every one, in no promised
// order: what the resolver met, for a parsed program, so that readers of
// its callees need no walk of their own; a walk otherwise.
func (p *Program) Calls() []*CallExpr {
	if p.indexed {
		return p.calls
	}
	return collect[*CallExpr](p)
}

// Loops lists the program's for expressions (sequential, parallel and
// first), every one, in no promised order, as Calls does.
func (p *Program) Loops() []*ForExpr {
	if p.indexed {
		return p.loops
	}
	return collect[*ForExpr](p)
}

// collect lists the nodes of type N in p, by a walk.
func collect[N Node](p *Program) []N {
	var out []N
	Walk(p, func(n Node) bool {
		if x, ok := n.(N); ok {
			out = append(out, x)
		}
		return true
	})
	return out
}

// ---- statements ----

// LetStmt is `let NAME = VALUE`. VALUE may be a CallExpr or a loop
// (ForExpr, RepeatExpr) that collects one value per iteration.
type LetStmt struct {
	Let diag.Pos
	// Name is the name bound. `let {a, b} = X` is three statements: a
	// let of a hidden name spelt as the braces are ("{a, b}", which no
	// name can be) to X, and one let of each name to its member
	// (MemberExpr.Required).
	Name  *Ident
	Value Expr
	// Const is set for `const NAME = VALUE`: a binding no later let or
	// assignment may change (the checker's rule; the run binds it as a
	// let).
	Const bool
}

// AssignStmt is `NAME = VALUE` or `NAME[INDEX] = VALUE` (LHS is an *Ident
// or an *IndexExpr).
type AssignStmt struct {
	LHS   Expr
	Eq    diag.Pos
	Value Expr
}

// ExprStmt is an expression on its own line: a bare `call ...`, a bare value
// (the value of a collecting body), or a statement-level loop
// (`for x in xs:` / `repeat N:` / `parallel for ...:`), whose X is then a
// *ForExpr or *RepeatExpr.
type ExprStmt struct {
	X Expr
}

// IfStmt is `if COND:` BODY, with `elif` chains represented as an IfStmt
// (Elif true) that is the only element of Else.
type IfStmt struct {
	If   diag.Pos
	Elif bool // this node came from an `elif` line
	Cond Expr // an ordinary expression, or a *NaturalCond
	Then []Stmt
	Else []Stmt // nil when absent
	// ElsePos is the position of the `else` keyword, NoPos when absent or
	// when Else holds an elif.
	ElsePos diag.Pos
}

// WhileStmt is `loop while COND (max: MAX) [as VAR]:` or
// `loop until COND (max: MAX) [as VAR]:`. Max is nil when omitted (the
// checker reports it; the evaluator refuses to run an unbounded loop).
type WhileStmt struct {
	Loop  diag.Pos
	Until bool
	Cond  Expr
	Max   Expr
	Var   *Ident // nil without `as`
	Body  []Stmt
	// Open is set for upstream's open loop, `loop (max: N) [as VAR]:`
	// with no condition (parse_loop_open.go): Cond is then the literal
	// true, so the loop runs until a break or a return, at most MAX
	// iterations.
	Open bool
}

// ParallelStmt is `parallel:` followed by an indented block of branches;
// each branch is normally a LetStmt. Branches run concurrently and are
// joined at the end of the block.
type ParallelStmt struct {
	Parallel diag.Pos
	// Mods is the '(' of the modifiers, `parallel ("first", on-fail:
	// "continue"):` (NoPos without them). Join is the strategy string
	// ("all", "first" or "any"; nil: all), Count the `count:` value (nil
	// without it), OnFail the `on-fail:` policy ("fail-fast", "continue"
	// or "ignore"; nil: fail-fast). The checker checks their values.
	Mods     diag.Pos
	Join     Expr
	Count    Expr
	OnFail   Expr
	Branches []Stmt
	// Frames holds the slot layout of each branch (resolve.go).
	Frames []*Frame
}

// TryStmt is `try:` BODY [`catch [as NAME]:` CATCH] [`finally:` FINALLY].
type TryStmt struct {
	Try        diag.Pos
	Body       []Stmt
	CatchPos   diag.Pos // NoPos without catch
	CatchVar   *Ident   // nil without `as NAME`
	Catch      []Stmt
	FinallyPos diag.Pos // NoPos without finally
	Finally    []Stmt
}

// AppendStmt is `append VALUE to LIST` or `record VALUE in LIST` (Record
// true). LIST is an *Ident or a member/index path.
type AppendStmt struct {
	Keyword diag.Pos
	Record  bool
	Value   Expr
	List    Expr
}

// BranchStmt is `continue` or `break`.
type BranchStmt struct {
	Keyword diag.Pos
	Break   bool
}

// ReturnStmt is `return [VALUE]`.
type ReturnStmt struct {
	Return diag.Pos
	Value  Expr // nil for a bare return
}

// ThrowStmt is `throw VALUE`, or a bare `throw` inside a catch block,
// which raises again the error the catch caught (ProseScript's rethrow).
type ThrowStmt struct {
	Throw diag.Pos
	Value Expr // nil for a bare throw
	// Usage marks `throw usage "reason"`: the spec refuses how it was
	// used (its config or inputs), an error no try catches.
	Usage bool
}

// ---- expressions ----

// Ident is a name.
type Ident struct {
	NamePos diag.Pos
	Name    string
	// Binding is the slot the name resolves to (resolve.go).
	Binding Binding
}

// NullLit is `null`.
type NullLit struct{ ValuePos diag.Pos }

// BoolLit is `true` or `false`.
type BoolLit struct {
	ValuePos diag.Pos
	Value    bool
}

// NumberLit is an integer or decimal number literal. IsInt tells which of
// Int or Float holds the value.
type NumberLit struct {
	ValuePos diag.Pos
	Raw      string
	IsInt    bool
	Int      int64
	Float    float64
}

// StringLit is a "..." or """...""" literal; Value is unquoted (an
// escaped brace, `{{name}`, written as the text it stands for). Parts is
// set when the string interpolates names (`"About {topic}"`, interp.go):
// its text and references in order; nil otherwise.
type StringLit struct {
	ValuePos diag.Pos
	Raw      string
	Value    string
	Parts    []StringPart
}

// DurationLit is a duration such as 500ms, 30s, 2m, 1h.
type DurationLit struct {
	ValuePos diag.Pos
	Raw      string
	Value    time.Duration
}

// ListLit is `[a, b, c]`.
type ListLit struct {
	Lbrack diag.Pos
	Elems  []Expr
	Rbrack diag.Pos
}

// ObjectLit is `{ key: value, ... }`; commas between lines are optional and
// `{ a, b }` is shorthand for `{ a: a, b: b }` (Field.Value is then an
// *Ident with the key's name and position).
type ObjectLit struct {
	Lbrace diag.Pos
	Fields []*Field
	Rbrace diag.Pos
}

// Field is one `key: value` of an object literal or of a call's argument
// list.
type Field struct {
	KeyPos diag.Pos
	Key    string
	Value  Expr
}

// MemberExpr is `X.Name`; Name may contain hyphens (`verdict.re-check`).
// `.length` is an ordinary member resolved by the evaluator.
type MemberExpr struct {
	X       Expr
	NamePos diag.Pos
	Name    string
	// Required is set on the member reads a destructuring let is written
	// as (`let {a, b} = X` binds a to X.a, b to X.b): X must be an object
	// holding the key, not null, not missing it.
	Required bool
}

// IndexExpr is `X[Index]`.
type IndexExpr struct {
	X      Expr
	Lbrack diag.Pos
	Index  Expr
	Rbrack diag.Pos
}

// UnaryExpr is `not X` or `-X`.
type UnaryExpr struct {
	OpPos diag.Pos
	Op    Token // NOT or MINUS
	X     Expr
}

// BinaryExpr is `X Op Y` with Op one of OR AND EQ NE LT LE GT GE PLUS MINUS
// MEETS (`score meets threshold` is numeric >=).
type BinaryExpr struct {
	X     Expr
	OpPos diag.Pos
	Op    Token
	Y     Expr
}

// IsExpr is `X is [not] null` or `X is [not] present`.
type IsExpr struct {
	X       Expr
	IsPos   diag.Pos
	Not     bool
	Present bool // `present` (else `null`)
	EndPos  diag.Pos
}

// CallExpr is `call TARGET` followed by indented `key: value` argument lines
// and optional clauses. TARGET is an expression naming a service: a slot, a
// loop variable over a list slot, or an input.
type CallExpr struct {
	Call    diag.Pos
	Target  Expr
	Args    []*Field
	Retries Expr       // nil when absent
	Timeout Expr       // nil when absent; a DurationLit or a number of seconds
	Backoff *ObjectLit // nil when absent
	OnFail  *OnFail    // nil when absent (abort)
	// Modifiers are the arguments written among Args that a ProseScript
	// call takes as its clauses (`retry: 2`, `backoff: exponential`),
	// moved out of Args (spec, prosescript.go) and kept so that a check
	// can refuse one a callee also declares as an input.
	Modifiers []*Field
	EndPos    diag.Pos
	// Output is set by the Contract Markdown checks (package lint) when
	// the target is a node that declares exactly one output: the call's
	// value is that output, a fallback is matched to it by the return
	// rule, and a name the call's value is bound to reads NAME.Output as
	// itself (delegation/semantics.md, One-output callees).
	Output string
	// Session is set when the call is a ProseScript session
	// (parse_session.go): Target is then a hidden name the runner binds
	// to the session's model service.
	Session *Session
}

// OnFail is `on_fail abort` or `on_fail use VALUE`.
type OnFail struct {
	OnFailPos diag.Pos
	Abort     bool
	Use       Expr // non-nil for `use`
}

// ForExpr is `[parallel [first]] for VAR[, INDEX] in X:` BODY. As a
// statement it runs BODY per element; as the value of a `let` it collects
// one value per iteration (see semantics.md). First (`parallel first for`)
// runs iterations concurrently and takes the value of the first iteration
// that executes `return`, cancelling the rest.
type ForExpr struct {
	For      diag.Pos // position of the first keyword (`parallel` or `for`)
	Parallel bool
	First    bool
	Var      *Ident
	Index    *Ident // nil without `, INDEX`
	X        Expr
	// Max is the bound of upstream's `loop for each VAR in X (max: N)`
	// (nil for `for`): a list longer than it is an error, never cut.
	Max  Expr
	Body []Stmt
	// Frame is the slot layout of one iteration of a parallel loop, nil
	// for a sequential one (resolve.go).
	Frame *Frame
}

// RepeatExpr is `[parallel [first]] repeat COUNT [as VAR]:` BODY. VAR runs
// 1..COUNT.
type RepeatExpr struct {
	Repeat   diag.Pos // position of the first keyword
	Parallel bool
	First    bool
	Count    Expr
	Var      *Ident // nil without `as`
	Body     []Stmt
	// Frame is as ForExpr's.
	Frame *Frame
}

// NaturalCond is a condition that is not an expression: natural language
// for the judge, such as `verdict certifies the proposal` or
// `failure_criteria says result is a failure`. The parser keeps its exact
// text and the identifier paths it contains; which of them are bound names
// is decided where the condition stands (checker, evaluator).
type NaturalCond struct {
	TextPos diag.Pos
	Text    string
	EndPos  diag.Pos
	// Words are the identifier paths in the text, in order: `attempt.result`
	// gives one Word with Path "attempt.result".
	Words []Word
	// Negated is true when the text negates its verb: `does not`, `doesn't`,
	// `not`, `never`, `fails to`.
	Negated bool
	// Verb is the first word after the leading subject path (and after any
	// negation and adverbs like `explicitly`), lower-cased: "certifies",
	// "accepts", "says", "proceed".
	Verb string
	// Says is set for `CRITERION says SUBJECT is [not] PREDICATE`.
	Says *Says
	// Choice is set for the criteria of a `choice` (ChoiceStmt): a judge
	// picks an option by them; no deterministic rule reads them.
	Choice bool
}

// Word is an identifier path inside a NaturalCond.
type Word struct {
	Pos  diag.Pos
	Path string // dotted, as written
	// Binding is the slot of the path's first name (resolve.go).
	Binding Binding
}

// Says is the structure of `CRITERION says SUBJECT is PREDICATE`.
type Says struct {
	Criterion string // a name path, e.g. "failure_criteria"
	Subject   string // a name path, e.g. "attempt.result"
	Predicate string // the words after `is` (articles dropped): "failure"
	Negated   bool   // `is not ...`
	// Polarity of the predicate word: Positive (acceptable, success, valid,
	// passes...), Negative (failure, error, broken, invalid...), or Unknown.
	Polarity Polarity
}

// Polarity classifies a `says` predicate.
type Polarity int

const (
	Unknown Polarity = iota
	Positive
	Negative
)

// ---- positions and sealing ----

func (s *LetStmt) Pos() diag.Pos      { return s.Let }
func (s *LetStmt) End() diag.Pos      { return s.Value.End() }
func (s *AssignStmt) Pos() diag.Pos   { return s.LHS.Pos() }
func (s *AssignStmt) End() diag.Pos   { return s.Value.End() }
func (s *ExprStmt) Pos() diag.Pos     { return s.X.Pos() }
func (s *ExprStmt) End() diag.Pos     { return s.X.End() }
func (s *IfStmt) Pos() diag.Pos       { return s.If }
func (s *IfStmt) End() diag.Pos       { return endOf(s.Else, endOf(s.Then, s.Cond.End())) }
func (s *WhileStmt) Pos() diag.Pos    { return s.Loop }
func (s *WhileStmt) End() diag.Pos    { return endOf(s.Body, s.Cond.End()) }
func (s *ParallelStmt) Pos() diag.Pos { return s.Parallel }
func (s *ParallelStmt) End() diag.Pos { return endOf(s.Branches, s.Parallel+9) }
func (s *TryStmt) Pos() diag.Pos      { return s.Try }
func (s *TryStmt) End() diag.Pos {
	return endOf(s.Finally, endOf(s.Catch, endOf(s.Body, s.Try+4)))
}
func (s *AppendStmt) Pos() diag.Pos { return s.Keyword }
func (s *AppendStmt) End() diag.Pos { return s.List.End() }
func (s *BranchStmt) Pos() diag.Pos { return s.Keyword }
func (s *BranchStmt) End() diag.Pos {
	if s.Break {
		return s.Keyword + 5
	}
	return s.Keyword + 8
}
func (s *ReturnStmt) Pos() diag.Pos { return s.Return }
func (s *ReturnStmt) End() diag.Pos {
	if s.Value == nil {
		return s.Return + 6
	}
	return s.Value.End()
}
func (s *ThrowStmt) Pos() diag.Pos { return s.Throw }
func (s *ThrowStmt) End() diag.Pos {
	if s.Value == nil {
		return s.Throw + 5
	}
	return s.Value.End()
}

func (*LetStmt) stmt()      {}
func (*AssignStmt) stmt()   {}
func (*ExprStmt) stmt()     {}
func (*IfStmt) stmt()       {}
func (*WhileStmt) stmt()    {}
func (*ParallelStmt) stmt() {}
func (*TryStmt) stmt()      {}
func (*AppendStmt) stmt()   {}
func (*BranchStmt) stmt()   {}
func (*ReturnStmt) stmt()   {}
func (*ThrowStmt) stmt()    {}

func (e *Ident) Pos() diag.Pos   { return e.NamePos }
func (e *Ident) End() diag.Pos   { return e.NamePos + diag.Pos(len(e.Name)) }
func (e *NullLit) Pos() diag.Pos { return e.ValuePos }
func (e *NullLit) End() diag.Pos { return e.ValuePos + 4 }
func (e *BoolLit) Pos() diag.Pos { return e.ValuePos }
func (e *BoolLit) End() diag.Pos {
	if e.Value {
		return e.ValuePos + 4
	}
	return e.ValuePos + 5
}
func (e *NumberLit) Pos() diag.Pos   { return e.ValuePos }
func (e *NumberLit) End() diag.Pos   { return e.ValuePos + diag.Pos(len(e.Raw)) }
func (e *StringLit) Pos() diag.Pos   { return e.ValuePos }
func (e *StringLit) End() diag.Pos   { return e.ValuePos + diag.Pos(len(e.Raw)) }
func (e *DurationLit) Pos() diag.Pos { return e.ValuePos }
func (e *DurationLit) End() diag.Pos { return e.ValuePos + diag.Pos(len(e.Raw)) }
func (e *ListLit) Pos() diag.Pos     { return e.Lbrack }
func (e *ListLit) End() diag.Pos     { return e.Rbrack + 1 }
func (e *ObjectLit) Pos() diag.Pos   { return e.Lbrace }
func (e *ObjectLit) End() diag.Pos   { return e.Rbrace + 1 }
func (e *MemberExpr) Pos() diag.Pos  { return e.X.Pos() }
func (e *MemberExpr) End() diag.Pos  { return e.NamePos + diag.Pos(len(e.Name)) }
func (e *IndexExpr) Pos() diag.Pos   { return e.X.Pos() }
func (e *IndexExpr) End() diag.Pos   { return e.Rbrack + 1 }
func (e *UnaryExpr) Pos() diag.Pos   { return e.OpPos }
func (e *UnaryExpr) End() diag.Pos   { return e.X.End() }
func (e *BinaryExpr) Pos() diag.Pos  { return e.X.Pos() }
func (e *BinaryExpr) End() diag.Pos  { return e.Y.End() }
func (e *IsExpr) Pos() diag.Pos      { return e.X.Pos() }
func (e *IsExpr) End() diag.Pos      { return e.EndPos }
func (e *CallExpr) Pos() diag.Pos    { return e.Call }
func (e *CallExpr) End() diag.Pos    { return e.EndPos }
func (e *ForExpr) Pos() diag.Pos     { return e.For }
func (e *ForExpr) End() diag.Pos     { return endOf(e.Body, e.X.End()) }
func (e *RepeatExpr) Pos() diag.Pos  { return e.Repeat }
func (e *RepeatExpr) End() diag.Pos  { return endOf(e.Body, e.Count.End()) }
func (e *NaturalCond) Pos() diag.Pos { return e.TextPos }
func (e *NaturalCond) End() diag.Pos { return e.EndPos }

func (*Ident) expr()       {}
func (*NullLit) expr()     {}
func (*BoolLit) expr()     {}
func (*NumberLit) expr()   {}
func (*StringLit) expr()   {}
func (*DurationLit) expr() {}
func (*ListLit) expr()     {}
func (*ObjectLit) expr()   {}
func (*MemberExpr) expr()  {}
func (*IndexExpr) expr()   {}
func (*UnaryExpr) expr()   {}
func (*BinaryExpr) expr()  {}
func (*IsExpr) expr()      {}
func (*CallExpr) expr()    {}
func (*ForExpr) expr()     {}
func (*RepeatExpr) expr()  {}
func (*NaturalCond) expr() {}

// endOf returns the End of the last statement of body, or def when empty.
func endOf(body []Stmt, def diag.Pos) diag.Pos {
	if len(body) == 0 {
		return def
	}
	return body[len(body)-1].End()
}
