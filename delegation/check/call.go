package check

import (
	"slices"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// call checks `call TARGET` with its arguments and clauses.
func (c *checker) call(e *syntax.CallExpr) {
	if e.Session != nil {
		c.session(e)
		return
	}
	slot := c.callTarget(e.Target)
	c.fields(e.Args, "argument")
	if slot != nil && slot.Args != nil {
		c.argKeys(e, slot)
	}
	c.clauseArgs(e, slot)
	c.retries(e)
	if e.Timeout != nil {
		c.timeout(e.Timeout)
	}
	ce := c.calleeOf(e)
	if ce != nil {
		c.argTypes(e, ce)
	} else if slot != nil && slot.Requires != "" {
		c.slotArgTypes(e, slot)
	}
	if e.OnFail != nil && e.OnFail.Use != nil {
		c.expr(e.OnFail.Use, false)
		switch {
		case ce != nil:
			c.fallbackFits(e.OnFail.Use, ce)
		case slot != nil && !c.slotFallback(e.OnFail.Use, slot):
			c.fallbackShape(e.OnFail.Use, slot)
		}
	}
}

// calleeOf is the declared callee a call names, or nil.
func (c *checker) calleeOf(e *syntax.CallExpr) *Callee {
	id, ok := e.Target.(*syntax.Ident)
	if !ok {
		return nil
	}
	if b := c.names[id.Name]; b == nil || b.kind != kindSlot {
		return nil
	}
	return c.callee(id.Name)
}

// clauseArgs reports arguments named like a clause (`retries: 3`), which
// pass a value to the service instead of setting the clause, unless the
// slot requires an argument of that name.
func (c *checker) clauseArgs(e *syntax.CallExpr, slot *Slot) {
	for _, f := range e.Args {
		switch f.Key {
		case "retries", "timeout", "backoff", "on_fail":
			if slot != nil && slices.Contains(slot.Args, f.Key) {
				continue
			}
			c.diags.Warnf(c.f, f.KeyPos, CodeClauseArg,
				"argument %s is passed to the service, it does not set the clause: write the clause without ':' (%s)", quote(f.Key), clauseExample[f.Key])
		}
	}
}

var clauseExample = map[string]string{
	"retries": "retries 3",
	"timeout": "timeout 30s",
	"backoff": "backoff {initial: 200ms}",
	"on_fail": "on_fail use VALUE",
}

// callTarget checks that the target names a service: a slot, a loop
// variable over a list-valued slot or input, an input, or an element of a
// list slot (`candidates[0]`). It returns the slot when one is known.
func (c *checker) callTarget(t syntax.Expr) *Slot {
	switch x := t.(type) {
	case *syntax.Ident:
		b := c.lookup(x.Name)
		if b == nil {
			c.undefinedTarget(x)
			return nil
		}
		switch {
		case b.kind == kindSlot && c.slots[x.Name] != nil && c.slots[x.Name].List:
			c.diags.Errorf(c.f, x.NamePos, CodeCallTarget,
				"call target %s is a list-valued slot: call one element (`for s in %s:` then `call s`, or `call %s[0]`)",
				quote(x.Name), x.Name, x.Name)
			return c.slots[x.Name]
		case b.kind == kindSlot:
			return c.slots[x.Name]
		case b.kind == kindInput:
			return nil
		case b.service:
			return c.slots[b.slot]
		}
		c.diags.Errorf(c.f, x.NamePos, CodeCallTarget,
			"call target %s is a %s, not a slot, an input, or a loop variable over a list-valued slot",
			quote(x.Name), describe(b))
		return nil
	case *syntax.IndexExpr:
		c.expr(x.Index, false)
		if id, ok := x.X.(*syntax.Ident); ok {
			b := c.lookup(id.Name)
			switch {
			case b == nil:
				c.undefinedTarget(id)
				return nil
			case b.kind == kindSlot:
				return c.slots[id.Name]
			case b.kind == kindInput:
				return nil
			}
		}
	}
	c.expr(t, false)
	c.diags.Errorf(c.f, t.Pos(), CodeCallTarget,
		"call target must name a slot, an input, or a loop variable over a list-valued slot")
	return nil
}

// undefinedTarget reports an unknown call target, suggesting a slot first.
func (c *checker) undefinedTarget(id *syntax.Ident) {
	names := make([]string, 0, len(c.slots))
	for n := range c.slots {
		names = append(names, n)
	}
	msg := "call target " + quote(id.Name) + " is not a declared slot"
	if s := closest(id.Name, names); s != "" {
		msg += "; did you mean " + quote(s) + "?"
	} else if s := c.suggest(id.Name); s != "" {
		msg += "; did you mean " + quote(s) + "?"
	}
	c.diags.Errorf(c.f, id.NamePos, CodeUndefinedName, "%s", msg)
}

func describe(b *binding) string {
	switch b.kind {
	case kindConfig:
		return "config key"
	case kindLoopVar:
		return "loop variable over a value that is not a list-valued slot"
	}
	return "variable"
}

// argKeys checks the argument keys of a call to a slot whose requires
// names its keys precisely. A requires list names what the slot needs, not
// all it may receive: calls routinely add context (a prompt, a model, a
// prior answer), so an extra key is reported only when it looks like a
// misspelling of a required one, and a required key the call does not pass
// is reported as missing.
func (c *checker) argKeys(e *syntax.CallExpr, s *Slot) {
	given := make(map[string]bool, len(e.Args))
	for _, f := range e.Args {
		given[f.Key] = true
	}
	misspelt := map[string]bool{}
	for _, f := range e.Args {
		if slices.Contains(s.Args, f.Key) {
			continue
		}
		if sug := closest(f.Key, s.Args); sug != "" && !given[sug] {
			misspelt[sug] = true
			if c.knownKey(f) {
				// The call passes a name the spec knows (an input, a
				// config key, `task_brief: task_brief`): the misspelling
				// is in the slot's requires, so point there.
				c.diags.Warnf(c.f, c.requiresPos(s, sug), CodeUnknownArg,
					"slot %s requires %s, which looks like a misspelling of %s, the argument its calls pass: fix the requires line (requires: ... %s ...)", quote(s.Name), quote(sug), quote(f.Key), f.Key)
				continue
			}
			c.diags.Warnf(c.f, f.KeyPos, CodeUnknownArg,
				"argument %s is not among what slot %s requires; did you mean %s?", quote(f.Key), quote(s.Name), quote(sug))
		}
	}
	for _, a := range s.Args {
		if !given[a] && !misspelt[a] {
			c.diags.Warnf(c.f, e.Call, CodeMissingArg,
				"call to slot %s does not pass %s, which the slot requires", quote(s.Name), quote(a))
		}
	}
}

// knownKey reports whether an argument key is a name the spec itself uses:
// a declared input or config key, or the name of the variable passed
// (`task_brief: task_brief`).
func (c *checker) knownKey(f *syntax.Field) bool {
	for _, n := range c.d.Inputs {
		if n.Name == f.Key {
			return true
		}
	}
	for _, n := range c.d.Config {
		if n.Name == f.Key {
			return true
		}
	}
	id, ok := f.Value.(*syntax.Ident)
	return ok && id.Name == f.Key && c.names[f.Key] != nil
}

// requiresPos finds key in the requires line of slot s's bullet, in the
// .md source after the slot's name; the slot's name when it is not found
// (the source holds only the code, as in some tests).
func (c *checker) requiresPos(s *Slot, key string) diag.Pos {
	src := string(c.f.Source())
	from := int(s.Pos)
	if from < 0 || from >= len(src) {
		return s.Pos
	}
	rest := src[from:]
	for _, stop := range []string{"\n- ", "\n* ", "\n#"} { // the next slot or section
		if end := strings.Index(rest, stop); end >= 0 {
			rest = rest[:end]
		}
	}
	r := strings.Index(rest, "requires")
	if r < 0 {
		return s.Pos
	}
	for i := r; i+len(key) <= len(rest); {
		k := strings.Index(rest[i:], key)
		if k < 0 {
			break
		}
		at := i + k
		before := at == 0 || !isIdentByte(rest[at-1])
		after := at+len(key) == len(rest) || !isIdentByte(rest[at+len(key)])
		if before && after {
			return diag.Pos(from + at)
		}
		i = at + 1
	}
	return diag.Pos(from + r)
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// modifiers checks a ProseScript call's `retry:` as upstream validates
// it: a positive integer (`retry: 0` retries nothing: an error, where
// the clause `retries 0` is allowed). A `backoff:` that names no
// strategy stays an argument of the call (spec, prosescript.go), which
// the callee's inputs judge.
func (c *checker) modifiers(e *syntax.CallExpr) {
	for _, m := range e.Modifiers {
		if n, ok := m.Value.(*syntax.NumberLit); ok && m.Key == "retry" && n.IsInt && n.Int == 0 {
			c.diags.Errorf(c.f, m.Value.Pos(), CodeRetries,
				"retry: must be a positive integer: retry: 0 retries nothing (remove it for no retry)")
		}
	}
}

// retries checks `retries N` and that `backoff` comes with retries.
func (c *checker) retries(e *syntax.CallExpr) {
	c.modifiers(e)
	if e.Retries != nil {
		c.expr(e.Retries, false)
		if bad := badCount(e.Retries); bad != "" {
			c.diags.Errorf(c.f, e.Retries.Pos(), CodeRetries,
				"retries must be a non-negative integer, not %s", bad)
		}
	}
	if e.Backoff == nil {
		return
	}
	if e.Retries == nil {
		c.diags.Errorf(c.f, e.Backoff.Pos(), CodeBackoffNoRetries,
			"backoff without retries never applies: add retries N")
	}
	for _, f := range e.Backoff.Fields {
		switch f.Key {
		case "initial", "max", "multiplier", "jitter":
		default:
			msg := "unknown backoff key " + quote(f.Key) + " (known: initial, max, multiplier, jitter)"
			c.diags.Errorf(c.f, f.KeyPos, CodeBackoffKey, "%s", msg)
		}
	}
	c.fields(e.Backoff.Fields, "backoff key")
}

// badCount describes a literal that cannot be a non-negative integer, or
// returns "" (names and paths are checked at run time).
func badCount(e syntax.Expr) string {
	switch x := e.(type) {
	case *syntax.NumberLit:
		if !x.IsInt {
			return "the number " + x.Raw
		}
		if x.Int < 0 {
			return x.Raw
		}
	case *syntax.UnaryExpr:
		if n, ok := x.X.(*syntax.NumberLit); ok && x.Op == syntax.MINUS {
			return "-" + n.Raw
		}
	case *syntax.StringLit:
		return "a string"
	case *syntax.BoolLit:
		return "a boolean"
	case *syntax.NullLit:
		return "null"
	case *syntax.ListLit:
		return "a list"
	case *syntax.ObjectLit:
		return "an object"
	case *syntax.DurationLit:
		return "a duration"
	}
	return ""
}

// timeout checks `timeout D`: a positive duration or number of seconds.
func (c *checker) timeout(e syntax.Expr) {
	c.expr(e, false)
	bad := ""
	switch x := e.(type) {
	case *syntax.NumberLit:
		if x.Float <= 0 && x.Int <= 0 {
			bad = x.Raw
		}
	case *syntax.DurationLit:
		if x.Value <= 0 {
			bad = x.Raw
		}
	case *syntax.UnaryExpr:
		bad = "a negative value"
	default:
		if s := badCount(e); s != "" {
			bad = s
		}
	}
	if bad != "" {
		c.diags.Errorf(c.f, e.Pos(), CodeTimeout,
			"timeout must be a positive duration such as 30s or a number of seconds, not %s", bad)
	}
}
