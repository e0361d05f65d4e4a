package spec

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// ProseScript, as OpenProse 0.15 writes it, and the Delegation language.
//
// A Contract Markdown Execution or 0.15 Delegation is parsed by the
// Delegation parser. Two things bridge the dialects:
//
//   - The call modifiers `retry: N` and `backoff: none|linear|exponential`
//     written among a call's arguments are the call's `retries N` and
//     `backoff {...}` clauses, never arguments passed to the callee
//     (exponential: 1s doubling, linear: 1s each time, none: no delay).
//     Under the earlier rules they stay arguments, as they always were.
//   - The ProseScript statement prose does not run yet (`resume`) draws
//     one clear error naming the form and what to write instead, in
//     place of the parser's generic one. (`do:` blocks and named
//     `block`s run: the Delegation parser reads them,
//     delegation/semantics.md, Blocks; so do pipelines, `| map:`,
//     `| pmap:`, `| filter:`, `| reduce(acc, item):`, rules 9b-9e;
//     sessions and agents, rules 29b-29d; `choice`, rules 40-43; and the
//     open `loop (max: N):`, rule 7b.)
//   - `use` declarations at the top of an Execution are read before the
//     parser runs and make call targets (use.go).

// callModifiers turns `retry:` and `backoff:` arguments of every call of
// prog into the call's clauses.
func callModifiers(prog *syntax.Program) {
	for _, c := range prog.Calls() {
		kept := c.Args[:0]
		for _, a := range c.Args {
			switch {
			case a.Key == "retry" && c.Retries == nil:
				c.Retries = a.Value
				c.Modifiers = append(c.Modifiers, a)
				continue
			case a.Key == "backoff" && c.Backoff == nil:
				if name, ok := strategyName(a.Value); ok {
					c.Backoff = backoffObject(name, a.KeyPos)
					c.Modifiers = append(c.Modifiers, a)
					continue
				}
			}
			kept = append(kept, a)
		}
		c.Args = kept
	}
}

// strategyName is the backoff strategy x names: a bare word or a string.
func strategyName(x syntax.Expr) (string, bool) {
	var s string
	switch v := x.(type) {
	case *syntax.Ident:
		s = v.Name
	case *syntax.StringLit:
		s = v.Value
	default:
		return "", false
	}
	switch s {
	case "none", "linear", "exponential":
		return s, true
	}
	return "", false
}

// backoffObject is the backoff clause of a strategy; nil for none.
func backoffObject(name string, at diag.Pos) *syntax.ObjectLit {
	mult := int64(2)
	switch name {
	case "none":
		return nil
	case "linear":
		mult = 1
	}
	return &syntax.ObjectLit{Lbrace: at, Rbrace: at, Fields: []*syntax.Field{
		{KeyPos: at, Key: "initial", Value: &syntax.DurationLit{ValuePos: at, Raw: "1s", Value: time.Second}},
		{KeyPos: at, Key: "multiplier", Value: &syntax.NumberLit{ValuePos: at, Raw: strconv.FormatInt(mult, 10), IsInt: true, Int: mult, Float: float64(mult)}},
	}}
}

// unsupported are the ProseScript forms prose does not run yet, matched
// against the code line a syntax error is on, with what to write instead.
// The patterns are compiled when a syntax error first asks, not as
// every prose command starts.
var unsupported = sync.OnceValue(func() []unsupportedForm {
	return []unsupportedForm{
		{regexp.MustCompile(`^(let\s+[\w-]+\s*=\s*)?resume\b`), "resume", "it continues an agent's memory, which prose does not keep across sessions or runs; spawn a fresh session: AGENT and pass what it must know with context:"},
	}
})

// unsupportedForm is a ProseScript form prose does not run: the pattern of
// its line, its name and what to write instead.
type unsupportedForm struct {
	re   *regexp.Regexp
	form string
	fix  string
}

// explainUnsupported replaces each syntax error on a line written in a
// ProseScript form prose does not run with one error naming the form.
func explainUnsupported(f *diag.File, lines []syntax.Line, diags diag.List) diag.List {
	out := diags[:0]
	done := map[int]bool{}
	for _, d := range diags {
		if d.Severity != diag.Error || !strings.HasPrefix(d.Code, "syntax/") {
			out = append(out, d)
			continue
		}
		i := codeLineAt(lines, d.Offset)
		if i < 0 {
			out = append(out, d)
			continue
		}
		text := strings.TrimSpace(lines[i].Text)
		matched := false
		for _, u := range unsupported() {
			if !u.re.MatchString(text) {
				continue
			}
			matched = true
			if !done[i] {
				done[i] = true
				at := int(lines[i].Off) + len(lines[i].Text) - len(strings.TrimLeft(lines[i].Text, " \t"))
				var one diag.List
				one.Errorf(f, diag.Pos(at), CodeUnsupportedScript, "prose does not run ProseScript %s yet: %s", u.form, u.fix)
				out = append(out, one...)
			}
			break
		}
		if !matched {
			out = append(out, d)
		}
	}
	return out
}

// codeLineAt is the index of the code line holding offset off, or -1.
func codeLineAt(lines []syntax.Line, off int) int {
	for i, ln := range lines {
		if int(ln.Off) <= off && off <= int(ln.Off)+len(ln.Text) {
			return i
		}
	}
	return -1
}
