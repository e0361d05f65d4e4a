package check

import (
	"github.com/proselang/prose/delegation/syntax"
)

// nullInText reports an optional input without a default that the
// program joins into text (`"for " + audience`, "for {audience}") and
// never tests anywhere (`if audience is present:`, `audience == null`, a
// condition naming it). A caller that leaves it out gives null, which
// `+` and braces write as the text "null" (semantics.md 18, 18a), so the
// result reads "for null" with exit 0. A warning: the rule itself is
// decided, and a program may mean it; the fix is a default
// (`(string, default: "")`) or a test of the input.
func (c *checker) nullInText(prog *syntax.Program) {
	maybe := map[string]bool{}
	for _, in := range c.d.Inputs {
		if in.NullIfOmitted {
			maybe[in.Name] = true
		}
	}
	if len(maybe) == 0 {
		return
	}
	// names a condition or a presence test reads, and names the program
	// binds itself (then the name is not, or not only, the input)
	tested := map[string]bool{}
	mark := func(e syntax.Node) {
		if e == nil {
			return
		}
		syntax.Walk(e, func(n syntax.Node) bool {
			switch x := n.(type) {
			case *syntax.Ident:
				tested[x.Name] = true
			case *syntax.NaturalCond:
				for _, w := range x.Words {
					tested[rootName(w.Path)] = true
				}
			}
			return true
		})
	}
	bind := func(id *syntax.Ident) {
		if id != nil {
			tested[id.Name] = true
		}
	}
	syntax.Walk(prog, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.IfStmt:
			mark(x.Cond)
		case *syntax.WhileStmt:
			mark(x.Cond)
			bind(x.Var)
		case *syntax.ForExpr:
			bind(x.Var)
			bind(x.Index)
		case *syntax.RepeatExpr:
			bind(x.Var)
		case *syntax.IsExpr:
			mark(x.X)
		case *syntax.BinaryExpr:
			switch x.Op {
			case syntax.EQ, syntax.NE, syntax.AND, syntax.OR:
				mark(x)
			}
		case *syntax.UnaryExpr:
			if x.Op == syntax.NOT {
				mark(x)
			}
		case *syntax.LetStmt:
			bind(x.Name)
		case *syntax.AssignStmt:
			if id, ok := x.LHS.(*syntax.Ident); ok {
				bind(id)
			}
		case *syntax.TryStmt:
			bind(x.CatchVar)
		}
		return true
	})
	report := func(id *syntax.Ident) {
		if maybe[id.Name] && !tested[id.Name] {
			c.diags.Warnf(c.f, id.NamePos, CodeNullInText,
				"optional input %s has no default, and when it is not given this joins null into the text as \"null\": give it a default, (string, default: \"\"), or test it first (if %s is present:)",
				quote(id.Name), id.Name)
			tested[id.Name] = true // once per input
		}
	}
	syntax.Walk(prog, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.StringLit:
			for _, p := range x.Parts {
				if id, ok := p.Ref.(*syntax.Ident); ok {
					report(id)
				}
			}
		case *syntax.BinaryExpr:
			if x.Op != syntax.PLUS {
				return true
			}
			if id, ok := x.X.(*syntax.Ident); ok && c.isText(x.Y) {
				report(id)
			}
			if id, ok := x.Y.(*syntax.Ident); ok && c.isText(x.X) {
				report(id)
			}
		}
		return true
	})
}

// isText reports whether e is text: a string literal, or a `+` with
// text on either side.
func (c *checker) isText(e syntax.Expr) bool {
	switch x := e.(type) {
	case *syntax.StringLit:
		return true
	case *syntax.BinaryExpr:
		return x.Op == syntax.PLUS && (c.isText(x.X) || c.isText(x.Y))
	}
	return false
}

// rootName is the first name of a name path ("r.score" -> "r").
func rootName(path string) string {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' || path[i] == '[' {
			return path[:i]
		}
	}
	return path
}
