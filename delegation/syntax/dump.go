package syntax

import (
	"strconv"
	"strings"
)

// Dump prints the tree rooted at n as a position-free S-expression, one
// line per top-level statement of a *Program, for example
//
//	(let x (call advancer (arg task_brief task_brief)))
//
// Names print bare, strings quoted, member access as (. X name), indexing
// as (index X I), operators as (OP X Y), loops as (for x XS body...),
// (parallel-for x,i XS body...), (repeat N as i body...), pipeline stages
// as (pipe-map XS body...) and (pipe-reduce acc,item XS body...), natural
// conditions as (natural "text").
func Dump(n Node) string {
	var b strings.Builder
	if p, ok := n.(*Program); ok {
		for i, s := range p.Body {
			if i > 0 {
				b.WriteByte('\n')
			}
			dump(&b, s)
		}
		return b.String()
	}
	dump(&b, n)
	return b.String()
}

// sexp writes (head items...), dumping nodes and writing strings bare.
func sexp(b *strings.Builder, head string, items ...any) {
	b.WriteString("(" + head)
	for _, it := range items {
		switch it := it.(type) {
		case string:
			if it != ")" {
				b.WriteByte(' ')
			}
			b.WriteString(it)
		case []Stmt:
			for _, s := range it {
				b.WriteByte(' ')
				dump(b, s)
			}
		case Node:
			b.WriteByte(' ')
			dump(b, it)
		}
	}
	b.WriteByte(')')
}

func dump(b *strings.Builder, n Node) {
	switch n := n.(type) {
	case nil:
		b.WriteString("<nil>")
	case *LetStmt:
		kw := "let"
		if n.Const {
			kw = "const"
		}
		sexp(b, kw, n.Name.Name, n.Value)
	case *AssignStmt:
		sexp(b, "=", n.LHS, n.Value)
	case *ExprStmt:
		dump(b, n.X)
	case *IfStmt:
		head := "if"
		if n.Elif {
			head = "elif"
		}
		items := []any{n.Cond, "(then"}
		items = append(items, n.Then, ")")
		if n.Else != nil {
			items = append(items, "(else", n.Else, ")")
		}
		sexp(b, head, items...)
	case *WhileStmt:
		head := "while"
		if n.Until {
			head = "until"
		}
		items := []any{n.Cond}
		if n.Open {
			head, items = "loop", nil
		}
		if n.Max != nil {
			items = append(items, "(max", n.Max, ")")
		}
		if n.Var != nil {
			items = append(items, "as", n.Var.Name)
		}
		sexp(b, head, append(items, n.Body)...)
	case *ParallelStmt:
		var items []any
		if n.Join != nil {
			items = append(items, "(join", n.Join, ")")
		}
		if n.Count != nil {
			items = append(items, "(count", n.Count, ")")
		}
		if n.OnFail != nil {
			items = append(items, "(on-fail", n.OnFail, ")")
		}
		sexp(b, "parallel", append(items, n.Branches)...)
	case *ChoiceStmt:
		items := []any{n.Criteria}
		for _, o := range n.Options {
			items = append(items, "(option", strconv.Quote(o.Label), o.Body, ")")
		}
		sexp(b, "choice", items...)
	case *TryStmt:
		items := []any{"(body", n.Body, ")"}
		if n.CatchPos.IsValid() {
			items = append(items, "(catch")
			if n.CatchVar != nil {
				items = append(items, "as", n.CatchVar.Name)
			}
			items = append(items, n.Catch, ")")
		}
		if n.FinallyPos.IsValid() {
			items = append(items, "(finally", n.Finally, ")")
		}
		sexp(b, "try", items...)
	case *AppendStmt:
		head := "append"
		if n.Record {
			head = "record"
		}
		sexp(b, head, n.Value, n.List)
	case *BranchStmt:
		if n.Break {
			b.WriteString("(break)")
		} else {
			b.WriteString("(continue)")
		}
	case *ReturnStmt:
		if n.Value == nil {
			b.WriteString("(return)")
		} else {
			sexp(b, "return", n.Value)
		}
	case *ThrowStmt:
		if n.Value == nil {
			b.WriteString("(throw)")
		} else if n.Usage {
			sexp(b, "throw-usage", n.Value)
		} else {
			sexp(b, "throw", n.Value)
		}
	default:
		dumpExpr(b, n)
	}
}

func dumpExpr(b *strings.Builder, n Node) {
	switch n := n.(type) {
	case *Ident:
		b.WriteString(n.Name)
	case *NullLit:
		b.WriteString("null")
	case *BoolLit:
		b.WriteString(strconv.FormatBool(n.Value))
	case *NumberLit:
		b.WriteString(n.Raw)
	case *StringLit:
		b.WriteString(strconv.Quote(n.Value))
	case *DurationLit:
		b.WriteString(n.Raw)
	case *ListLit:
		items := make([]any, len(n.Elems))
		for i, e := range n.Elems {
			items[i] = e
		}
		sexp(b, "list", items...)
	case *ObjectLit:
		dumpFields(b, "object", n.Fields)
	case *MemberExpr:
		sexp(b, ".", n.X, n.Name)
	case *IndexExpr:
		sexp(b, "index", n.X, n.Index)
	case *UnaryExpr:
		sexp(b, n.Op.String(), n.X)
	case *BinaryExpr:
		sexp(b, n.Op.String(), n.X, n.Y)
	case *IsExpr:
		head, what := "is", "null"
		if n.Not {
			head = "is-not"
		}
		if n.Present {
			what = "present"
		}
		sexp(b, head, n.X, what)
	case *CallExpr:
		dumpCall(b, n)
	case *GateExpr:
		items := []any{n.Question}
		if n.Timeout != nil {
			items = append(items, "(timeout", n.Timeout, ")")
		}
		if n.OnFail != nil && n.OnFail.Abort {
			items = append(items, "(on_fail abort)")
		} else if n.OnFail != nil {
			items = append(items, "(on_fail use", n.OnFail.Use, ")")
		}
		sexp(b, n.Kind, items...)
	case *ForExpr:
		vars := n.Var.Name
		if n.Index != nil {
			vars += "," + n.Index.Name
		}
		if n.Max != nil {
			sexp(b, "loop-for-each", vars, n.X, "(max", n.Max, ")", n.Body)
			break
		}
		sexp(b, loopHead("for", n.Parallel, n.First), vars, n.X, n.Body)
	case *PipeExpr:
		head := "pipe-" + n.Op.String()
		if n.Acc != nil {
			sexp(b, head, n.Acc.Name+","+n.Loop.Var.Name, n.Loop.X, n.Loop.Body)
			break
		}
		sexp(b, head, n.Loop.X, n.Loop.Body)
	case *RepeatExpr:
		items := []any{n.Count}
		if n.Var != nil {
			items = append(items, "as", n.Var.Name)
		}
		sexp(b, loopHead("repeat", n.Parallel, n.First), append(items, n.Body)...)
	case *NaturalCond:
		sexp(b, "natural", strconv.Quote(n.Text))
	default:
		if !dumpBlock(b, n) {
			b.WriteString("<?>")
		}
	}
}

func loopHead(kw string, parallel, first bool) string {
	switch {
	case first:
		return "parallel-first-" + kw
	case parallel:
		return "parallel-" + kw
	}
	return kw
}

func dumpFields(b *strings.Builder, head string, fields []*Field) {
	items := make([]any, 0, 3*len(fields))
	for _, f := range fields {
		items = append(items, "("+fieldKey(f.Key), f.Value, ")")
	}
	sexp(b, head, items...)
}

// fieldKey prints a key bare when it is a plain name, else quoted.
func fieldKey(k string) string {
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '-')) {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

func dumpCall(b *strings.Builder, c *CallExpr) {
	items := []any{c.Target}
	if c.Session != nil {
		items[0] = c.Session.Name
	}
	for _, a := range c.Args {
		items = append(items, "(arg "+fieldKey(a.Key), a.Value, ")")
	}
	if c.Retries != nil {
		items = append(items, "(retries", c.Retries, ")")
	}
	if c.Timeout != nil {
		items = append(items, "(timeout", c.Timeout, ")")
	}
	if c.Backoff != nil {
		items = append(items, "(backoff", c.Backoff, ")")
	}
	if c.OnFail != nil {
		if c.OnFail.Abort {
			items = append(items, "(on_fail abort)")
		} else {
			items = append(items, "(on_fail use", c.OnFail.Use, ")")
		}
	}
	sexp(b, "call", items...)
}
