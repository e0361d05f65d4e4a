package delegation

import (
	"strconv"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
)

// cond evaluates the condition of an if, elif or loop. then is the block
// the condition opens (nil for loops); it decides whether a natural
// condition is guard-like (see failClosed).
func (f *frame) cond(x syntax.Expr, then []syntax.Stmt) (bool, error) {
	if nc, ok := x.(*syntax.NaturalCond); ok {
		v, err := f.judge(nc, failClosed(nc, then))
		return v == true, err
	}
	v, err := f.eval(x)
	if err != nil {
		return false, err
	}
	return f.truth(v, x)
}

// falseWords are texts that read as false, though a text is true when it
// is not empty.
var falseWords = map[string]bool{"false": true, "no": true, "off": true, "0": true, "null": true, "none": true}

// truth is v's truthiness where a condition, `not`, `and` or `or` reads
// it (decided): a text that reads as false ("false", "no", "0", ...) is an
// error at x, not true: an untyped input given with --input flag=false,
// or a program that printed false as a string, must not take the branch
// its words deny.
func (f *frame) truth(v Value, x syntax.Expr) (bool, error) {
	if s, ok := v.(string); ok && falseWords[strings.ToLower(strings.TrimSpace(s))] {
		return false, f.errorf(x.Pos(), KindRuntime, "this condition reads the text %s, which would count as true (a text is true when it is not empty): declare the input (boolean) so that --input parses it, make the service print a JSON boolean, or compare the text (== %s)", strconv.Quote(s), strconv.Quote(s))
	}
	return Truthy(v), nil
}

// failClosed reports whether a natural condition guards what its block
// does, so that a judge unable to tell must give the answer that does not
// proceed (Judgment.SafeHolds):
//
//   - a negated condition whose block stops the flow (`if decision does not
//     explicitly proceed: return ...`): when unsure, stop;
//   - a positive condition, other than `says`, whose block commits
//     something (`if verdict certifies the proposal: append ...`): when
//     unsure, do not commit.
func failClosed(nc *syntax.NaturalCond, then []syntax.Stmt) bool {
	if then == nil {
		return false
	}
	if nc.Negated {
		return stops(then)
	}
	return nc.Says == nil && commits(then)
}

// stops reports whether a block contains, at its top level, a statement
// that ends the flow: return, throw or break.
func stops(body []syntax.Stmt) bool {
	for _, s := range body {
		switch s := s.(type) {
		case *syntax.ReturnStmt, *syntax.ThrowStmt:
			return true
		case *syntax.BranchStmt:
			if s.Break {
				return true
			}
		}
	}
	return false
}

// commits reports whether a block appends or records at its top level.
func commits(body []syntax.Stmt) bool {
	for _, s := range body {
		if _, ok := s.(*syntax.AppendStmt); ok {
			return true
		}
	}
	return false
}

// judge asks the host's Judge whether nc holds.
func (f *frame) judge(nc *syntax.NaturalCond, failClosed bool) (Value, error) {
	if f.in.host.Judge == nil {
		return nil, f.errorf(nc.TextPos, KindJudge,
			"cannot decide the condition %q: no judge is configured (configure a model, or have the service return a structured verdict)", nc.Text)
	}
	j := &Judgment{Path: f.id(nc.TextPos), Cond: nc, Pos: f.position(nc.TextPos), Values: f.condValues(nc), FailClosed: failClosed}
	verdict, err := f.ask(j, "cannot decide the condition ")
	if err != nil {
		return nil, err
	}
	return verdict.Holds, nil
}

// ask puts j to the host's Judge and records the verdict. An error names
// j's text, after what (the "cannot decide the condition " of a
// condition) when the judge's message does not.
func (f *frame) ask(j *Judgment, what string) (Verdict, error) {
	nc := j.Cond
	if err := f.absentIn(nc, j.Values); err != nil { // absent.go
		return Verdict{}, err
	}
	start := f.in.host.Runtime.Now()
	f.th.giveBack()
	verdict, err := f.in.host.Judge.Judge(f.ctx, j)
	end := f.in.host.Runtime.Now()
	if f.ctx.Err() != nil {
		return Verdict{}, f.canceled(nc.TextPos)
	}
	if err != nil {
		msg := oneLine(err.Error())
		if prefix := j.Pos.String() + ": "; strings.HasPrefix(msg, prefix) {
			msg = msg[len(prefix):]
		}
		if !strings.Contains(msg, nc.Text) {
			msg = what + strconv.Quote(nc.Text) + ": " + msg
		}
		e := f.errorf(nc.TextPos, KindJudge, "%s", msg)
		e.Err = err
		return Verdict{}, e
	}
	f.record(&Event{Kind: EventJudgment, Time: end, Path: j.Path, Pos: j.Pos, Condition: nc.Text, Verdict: &verdict, Duration: end.Sub(start), Args: j.Values})
	return verdict, nil
}

// condValues collects the bound name paths a condition mentions, in order
// of first mention; for `says`, the criterion and the subject always.
func (f *frame) condValues(nc *syntax.NaturalCond) *Object {
	o := NewObject()
	add := func(path string, b *syntax.Binding, always bool) {
		if path == "" {
			return
		}
		if _, dup := o.Get(path); dup {
			return
		}
		v, bound := f.lookupPath(path, b)
		if bound || always {
			o.Set(path, v)
		}
	}
	if nc.Says != nil {
		add(nc.Says.Criterion, wordBinding(nc, nc.Says.Criterion), true)
		add(nc.Says.Subject, wordBinding(nc, nc.Says.Subject), true)
	}
	for i := range nc.Words {
		w := &nc.Words[i]
		add(w.Path, &w.Binding, false)
	}
	return o
}

// wordBinding is the binding of the word of nc written as path, nil when
// the condition has no such word.
func wordBinding(nc *syntax.NaturalCond, path string) *syntax.Binding {
	for i := range nc.Words {
		if nc.Words[i].Path == path {
			return &nc.Words[i].Binding
		}
	}
	return nil
}

// lookupPath evaluates a dotted name path whose first name resolves to b;
// bound is false when that name is not bound.
func (f *frame) lookupPath(p string, b *syntax.Binding) (v Value, bound bool) {
	if b == nil || b.Scope == syntax.Unresolved {
		return nil, false
	}
	s := f.slot(b)
	v = s.value()
	if v == unbound {
		return nil, false
	}
	if _, ok := v.(*Absent); ok {
		return v, true // a judgment of it is an error (absentIn)
	}
	parts := strings.Split(p, ".")[1:]
	if len(parts) > 0 && s.out != nil && s.out.Output == parts[0] {
		parts = parts[1:] // the one output of a call is the value itself (27a)
	}
	for _, m := range parts {
		v = member(v, m)
	}
	return v, true
}
