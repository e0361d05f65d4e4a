package check

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// expr checks an expression. collecting is true when e is the value of a
// let, so a loop there collects one value per iteration.
func (c *checker) expr(e syntax.Expr, collecting bool) {
	switch e := e.(type) {
	case nil:
	case *syntax.Ident:
		c.use(e)
	case *syntax.StringLit:
		c.interpolations(e)
	case *syntax.ListLit:
		for _, x := range e.Elems {
			c.expr(x, false)
		}
	case *syntax.ObjectLit:
		c.fields(e.Fields, "object key")
	case *syntax.MemberExpr:
		if c.earlierConfig(e) {
			break
		}
		c.configMember(e)
		c.expr(e.X, false)
		c.memberRead(e)
	case *syntax.IndexExpr:
		c.expr(e.X, false)
		c.expr(e.Index, false)
	case *syntax.UnaryExpr:
		c.expr(e.X, false)
	case *syntax.BinaryExpr:
		c.expr(e.X, false)
		c.expr(e.Y, false)
		c.comparison(e)
	case *syntax.IsExpr:
		c.expr(e.X, false)
	case *syntax.CallExpr:
		c.call(e)
	case *syntax.GateExpr:
		c.expr(e.Question, false)
		c.expr(e.Timeout, false)
		if e.OnFail != nil {
			c.expr(e.OnFail.Use, false)
		}
	case *syntax.ForExpr:
		c.forLoop(e, collecting)
	case *syntax.RepeatExpr:
		c.repeatLoop(e, collecting)
	case *syntax.PipeExpr:
		c.pipe(e)
	case *syntax.NaturalCond:
		c.natural(e)
	case *syntax.DoExpr:
		if c.doStmt != syntax.Expr(e) && !blockGivesValue(e.Body) {
			c.diags.Errorf(c.f, e.Do, CodeBlockNoValue, "this do: block gives no value (no return, no value on a line of its own), so its value is always null: end it with return VALUE, or with the value on a line of its own")
		}
		c.doStmt = nil // a do: in its body is another's
		c.blockBody("a do: block", false, nil, e.Body, e)
	case *syntax.DoCallExpr:
		if c.doStmt != syntax.Expr(e) && e.Def != nil && !blockGivesValue(e.Def.Body) {
			c.diags.Errorf(c.f, e.Name.NamePos, CodeBlockNoValue, "block %s (line %d) gives no value (no return, no value on a line of its own), so the value of this do is always null: end the block with return VALUE, or run it as a statement of its own",
				e.Name.Name, c.line(e.Def.Block))
		} else if c.doStmt != syntax.Expr(e) {
			c.nullPath(e)
		}
		c.doCall(e)
	}
}

// spacedBrace matches braces around a name path with spaces inside, which
// are text (grammar.md, Strings), and the character before them. It is
// compiled at its first use (its Unicode classes cost every command that
// links the checker a fraction of a millisecond at start otherwise).
var spacedBrace = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[^\\])\{(\s*)([\pL_][\pL\pN_-]*(?:\.[\pL_][\pL\pN_-]*)*)(\s*)\}`)
})

// exprBrace matches braces in a string around what reads as an
// expression, which is text (grammar.md, Strings): a block run (`do
// NAME(` or `do:`), a call (`call NAME`), or a name path followed by an
// operator, an index or parentheses (`{n + 1}`, `{xs[0]}`). Group 2 is
// the word after do or call, group 3 the name path. Braces holding a
// quote, a colon or another brace (JSON, a template) never match.
var exprBrace = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[^\{])\{\s*(?:(?:do|call)\s+([\pL_][\pL\pN_-]*)|([\pL_][\pL\pN_-]*(?:\.[\pL_][\pL\pN_-]*)*)\s*(?:[-+]\s|\[|\())[^{}":]*\}`)
})

// exprBraces warns of braces around an expression in s (exprBrace) when
// the name in them is the program's (a block, a bound name): the run
// would give the braces as written with exit 0.
func (c *checker) exprBraces(s *syntax.StringLit) {
	for _, m := range exprBrace().FindAllStringSubmatchIndex(s.Raw, -1) {
		if m[4] >= 0 {
			if name := s.Raw[m[4]:m[5]]; !slices.Contains(c.blockNames, name) && c.names[name] == nil {
				continue
			}
		} else if root, _, _ := strings.Cut(s.Raw[m[6]:m[7]], "."); c.names[root] == nil {
			continue
		}
		c.diags.Warnf(c.f, s.ValuePos+diag.Pos(m[3]), CodeExprBrace,
			"%s is text, not a value: braces interpolate only a name or a member path, as {topic} or {r.score}; bind the value first (let v = ...) and write {v}",
			s.Raw[m[3]:m[1]])
	}
}

// interpolations checks the `{name}` references of a string: each name
// must be bound (reported at its brace), and counts as used. Braces with
// spaces around a bound name (`{ topic }`) are text, not the name's
// value: a warning says so (check/spaced-brace), since "About { topic }"
// would be sent as written with exit 0; `\{ topic \}` writes them as text
// on purpose.
func (c *checker) interpolations(s *syntax.StringLit) {
	if strings.Contains(s.Raw, "{") {
		c.exprBraces(s)
		for _, m := range spacedBrace().FindAllStringSubmatchIndex(s.Raw, -1) {
			if m[5] == m[4] && m[9] == m[8] {
				continue // no space: an interpolation (or {{name}, text)
			}
			path := s.Raw[m[6]:m[7]]
			root, _, _ := strings.Cut(path, ".")
			if c.names[root] == nil {
				continue
			}
			c.diags.Warnf(c.f, s.ValuePos+diag.Pos(m[3]), CodeSpacedBrace,
				"%s is text, not the value of %s: braces interpolate only a name with nothing else inside; write {%s} (or \\{ %s \\} for the text)",
				s.Raw[m[3]:m[1]], root, path, path)
		}
	}
	for _, p := range s.Parts {
		if p.Ref == nil {
			continue
		}
		root := rootIdent(p.Ref)
		if c.lookup(root.Name) == nil {
			c.undefined(p.Brace, root.Name, "undefined name")
			continue
		}
		c.expr(p.Ref, false)
	}
}

// fields checks the values of an object literal or argument list and
// reports a key given twice.
func (c *checker) fields(fs []*syntax.Field, what string) {
	for i, f := range fs {
		for _, g := range fs[:i] {
			if g.Key == f.Key {
				c.diags.Warnf(c.f, f.KeyPos, CodeDuplicateKey, "%s %s given twice; the last one wins", what, quote(f.Key))
				break
			}
		}
		c.expr(f.Value, false)
	}
}

func (c *checker) forLoop(e *syntax.ForExpr, collecting bool) {
	c.expr(e.X, false)
	if e.Max != nil {
		c.count(e.Max, "loop max")
	}
	if sh := c.shapeOf(e.X); sh != nil && sh.kind != kUnknown && sh.kind != kNull && sh.kind != kList {
		what := pathOf(e.X)
		if what == "" {
			what = "this value"
		}
		fix := "loop over a list"
		if id, ok := e.X.(*syntax.Ident); ok && sh.kind == kText {
			if b := c.names[id.Name]; b != nil && (b.kind == kindConfig || b.kind == kindInput) {
				fix = "declare " + id.Name + " a list (string[]) and give it as a JSON array, or one --input or --config per element"
			}
		}
		c.diags.Errorf(c.f, e.X.Pos(), CodeTypeMismatch, "for cannot loop over %s: it is %s, not a list, so a run stops there: %s", what, describeShape(sh), fix)
	}
	if collecting && !e.First {
		c.collectNulls(e.Body, nil)
	}
	c.loopBody(e.Parallel || e.First, collecting, func() {
		c.forgetAssigned(e.Body)
		c.bindVar(e.Var, e.X)
		if e.Index != nil {
			c.bindVar(e.Index, nil)
		}
	}, e.Body, nil)
}

func (c *checker) repeatLoop(e *syntax.RepeatExpr, collecting bool) {
	c.count(e.Count, "repeat count")
	if collecting && !e.First {
		c.collectNulls(e.Body, nil)
	}
	c.loopBody(e.Parallel || e.First, collecting, func() {
		c.forgetAssigned(e.Body)
		if e.Var != nil {
			c.bindVar(e.Var, nil)
		}
	}, e.Body, nil)
}

// loopBody checks a loop's body after bind has bound its variables. A
// parallel body gets its own scope per iteration; a collecting body turns
// its returns into iteration values.
func (c *checker) loopBody(parallel, collecting bool, bind func(), body []syntax.Stmt, after func()) {
	m := c.mark()
	if parallel {
		c.level++
	}
	outerRet := c.retStage
	if collecting {
		c.collect++
		c.lastDoNoValue(body)
		c.retStage = nil // a return ends this loop's iteration (a stage's bind sets it)
	}
	live := len(c.live)
	bind()
	outer, branch := c.parLoop, c.inBranch
	c.parLoop, c.inBranch = parallel, false
	c.loops++
	c.stmts(body)
	if after != nil {
		after() // the body's names still bound
	}
	c.loops--
	c.live = c.live[:live]
	c.forgetAssigned(body) // after any number of iterations
	c.parLoop, c.inBranch = outer, branch
	c.retStage = outerRet
	if collecting {
		c.collect--
	}
	if parallel {
		c.level--
		c.rollback(m)
	}
}

// count checks a repeat count or loop max: a non-negative integer literal,
// or a name or member path (config key, input, tier.count, xs.length).
func (c *checker) count(e syntax.Expr, what string) {
	switch x := e.(type) {
	case *syntax.NumberLit:
		if !x.IsInt || x.Int < 0 {
			c.diags.Errorf(c.f, x.ValuePos, CodeLoopCount, "%s %s is not a non-negative integer", what, x.Raw)
		} else if x.Int == 0 && what == "loop max" {
			c.diags.Errorf(c.f, x.ValuePos, CodeLoopCount, "loop max 0: the loop never runs; a loop's max is at least 1")
		} else if x.Int == 0 {
			// a count written 0 never runs its body (upstream: a
			// non-positive repeat count is an error); a count from data
			// may be 0 on purpose and is not judged here
			c.diags.Errorf(c.f, x.ValuePos, CodeLoopCount, "%s 0: the body never runs; remove the loop, or count at least 1", what)
		}
		return
	case *syntax.Ident:
		c.expr(e, false)
		if b := c.names[x.Name]; b != nil && !countType(b.typ) {
			c.diags.Errorf(c.f, x.NamePos, CodeLoopCount,
				"%s %s is declared %s, not an integer", what, quote(x.Name), b.typ)
		}
		return
	case *syntax.MemberExpr:
		if rootIdent(e) != nil {
			c.expr(e, false)
			return
		}
	}
	c.expr(e, false)
	c.diags.Errorf(c.f, e.Pos(), CodeLoopCount,
		"%s must be an integer literal, a config key or input, or a member path such as tier.count", what)
}

// countType reports whether a declared type can hold a count: integer,
// number (the corpus types counts so in its inputs), any, or unknown.
func countType(typ string) bool {
	switch typ {
	case "", "integer", "int", "number", "any":
		return true
	}
	return false
}

// mentionsBound reports whether the words of n name a bound name, and
// marks the config keys they read as used.
func (c *checker) mentionsBound(n *syntax.NaturalCond) bool {
	mentioned := false
	for _, w := range n.Words {
		if root, key, ok := strings.Cut(w.Path, "."); ok && root == "config" && c.configInput() {
			k, _, _ := strings.Cut(key, ".")
			c.used[k] = true
		}
		if c.lookup(rootOf(w.Path)) != nil {
			mentioned = true
		}
	}
	return mentioned
}

// natural checks a natural-language condition: it should mention at least
// one bound name (else the judge has nothing to look at), and a `says`
// predicate should have a clear polarity.
func (c *checker) natural(n *syntax.NaturalCond) {
	if !c.mentionsBound(n) {
		c.diags.Warnf(c.f, n.TextPos, CodeConditionNoNames,
			"condition %q mentions no bound name; the judge would decide it without any data", n.Text)
	}
	if n.Says != nil && n.Says.Polarity == syntax.Unknown {
		c.diags.Warnf(c.f, n.TextPos, CodeSaysPolarity,
			"cannot tell whether %q is a success or a failure; use a word such as acceptable, success, failure or error",
			n.Says.Predicate)
	}
}

// cond checks an if/elif/loop condition.
func (c *checker) cond(e syntax.Expr) {
	c.expr(e, false)
	c.objectAsCond(e)
}

// objectAsCond reports a condition that is a value known to be an object
// with a boolean field (`if review:` where the reviewer's ensures is
// `{accepted: boolean, notes: string}`): an object is true whenever it
// has a key, so the condition never reads the field, and a rejection
// took the branch of an acceptance with exit 0. A presence test is
// written `review is present`.
func (c *checker) objectAsCond(e syntax.Expr) {
	switch x := e.(type) {
	case *syntax.UnaryExpr:
		if x.Op == syntax.NOT {
			c.objectAsCond(x.X)
		}
		return
	case *syntax.BinaryExpr:
		if x.Op == syntax.AND || x.Op == syntax.OR {
			c.objectAsCond(x.X)
			c.objectAsCond(x.Y)
		}
		return
	case *syntax.Ident, *syntax.MemberExpr:
	default:
		return
	}
	what := pathOf(e)
	sh := c.shapeOf(e)
	if what == "" || sh == nil || sh.kind != kObject {
		return
	}
	for _, f := range sh.fields {
		if typeKind(f.Type) == kBool {
			c.diags.Errorf(c.f, e.Pos(), CodeTypeMismatch,
				"%s is %s, which is true whenever it has a key, whatever its %s says: write %s.%s (or %s is present to test that it came)",
				what, describeShape(sh), f.Name, what, f.Name, what)
			return
		}
	}
}

// rootIdent is the identifier a member/index path starts from.
func rootIdent(e syntax.Expr) *syntax.Ident {
	for {
		switch x := e.(type) {
		case *syntax.Ident:
			return x
		case *syntax.MemberExpr:
			e = x.X
		case *syntax.IndexExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// rootOf is the first name of a dotted path.
func rootOf(path string) string {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' || path[i] == '[' {
			return path[:i]
		}
	}
	return path
}

// configInput reports whether `config` is the object of a 0.15 pattern's
// config keys (declared as an input by spec.Decls), not a name the
// program binds itself.
func (c *checker) configInput() bool {
	b := c.names["config"]
	return b != nil && b.kind == kindInput && len(c.d.Config) > 0
}

// earlierConfig reports config.KEY in a file read by the earlier rules
// (no `config` is bound, and config keys are declared): the 0.15 form,
// in a file whose version selects the earlier generation (see
// spec/generation.go). One error says how to mark the file; KEY counts as
// read, so its Config line draws no "never used" echo.
func (c *checker) earlierConfig(e *syntax.MemberExpr) bool {
	id, ok := e.X.(*syntax.Ident)
	if !ok || id.Name != "config" || len(c.d.Config) == 0 || c.lookup("config") != nil {
		return false
	}
	for _, cf := range c.d.Config {
		if cf.Name == e.Name {
			c.used[e.Name] = true
			if b := c.names[e.Name]; b != nil {
				b.used = true
			}
		}
	}
	c.diags.Errorf(c.f, id.NamePos, CodeUndefinedName,
		"undefined name 'config': config.%s is how OpenProse 0.15 reads a config key, and this file is read by the earlier rules (its version selects them), where a key is read by its bare name: write %s, or mark the file `version: 0.15.0` in its front matter",
		e.Name, e.Name)
	return true
}

// configMember checks config.KEY: it reads the config key KEY, which must
// be declared.
func (c *checker) configMember(e *syntax.MemberExpr) {
	id, ok := e.X.(*syntax.Ident)
	if !ok || id.Name != "config" || !c.configInput() {
		return
	}
	keys := make([]string, len(c.d.Config))
	for i, cf := range c.d.Config {
		if cf.Name == e.Name {
			c.used[e.Name] = true
			return
		}
		keys[i] = cf.Name
	}
	hint := ""
	if near := closest(e.Name, keys); near != "" {
		hint = fmt.Sprintf(" (did you mean config.%s?)", near)
	}
	c.diags.Errorf(c.f, e.NamePos, CodeUndefinedName, "config has no key %s%s; the keys are declared under ### Config", quote(e.Name), hint)
}
