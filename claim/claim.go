// Package claim decides the claims of test expectations: whether a value
// a run returned satisfies a sentence such as "contains `x`", "has at most
// 3 items", "is_integer_between(0, 100)" or "verdict certifies the
// proposal".
//
// Decide settles the claims the data decides, with no model: the forms
// below, then the Delegation language's own conditions (an expression such
// as `score >= 0.5 and ok`, or a natural-language condition one of package
// judge's deterministic rules reads). Checker adds the model: a claim no
// rule decides is put to a delegation.Judge (the model judge of package
// llm, temperature 0, which caches each distinct question), or reported as
// needing a model (ErrNeedsModel) when there is none.
//
// Main types and entry points: Question, Result, Decide, Checker,
// ErrNeedsModel.
//
// # Forms decided without a model
//
// LIT is a `code span`, a "quoted" or 'quoted' string, or a JSON literal
// (number, true, false, null). N is a number. Words are matched case-
// insensitively; `does not VERB` and `is not` negate a form, and
// `should`, `must` or `shall` before a form's verb say that form
// (`should be 2` is `is 2`, `must not contain` `does not contain`). A count
// of items needs a list or an object, of words, lines or characters
// text, a comparison or range a number: of any other value the claim is
// a Mismatch (decided: neither true nor false, so an Expects Not item
// fails as an Expects item does, and a run's condition is an error; a
// negation does not make it true).
//
//	contains LIT, includes LIT (also "the exact phrase LIT", "the text
//	LIT", ...)       a string contains the text; a list has an element
//	                 equal to LIT (or, for a text LIT, a string element
//	                 containing it); an object has the key
//	equals LIT, is LIT, == LIT, is exactly LIT      deep equality
//	is null, is not null, is present, exists, is absent, is missing,
//	is empty, is not empty, non-empty     presence (empty: "", [], {})
//	has N items, has at least|at most|more than|fewer than|exactly N UNIT,
//	is under|over|at most|at least N UNIT, length is N, length >= N ...
//	                 UNIT: items, elements, entries, keys (a list's or
//	                 object's length), words, characters, lines
//	is at least|at most|greater than|less than|above|below N, >= N, > N,
//	<= N, < N, is between A and B          numeric comparisons
//	is_integer_between(A, B), is_number_between(A, B), is_integer,
//	is_number, is_string, is_list, is_object, is_boolean, is an integer,
//	is a string, ...                       types and inclusive ranges
//	matches /RE/, matches LIT, matches the regular expression LIT
//	                 a string (else the value's JSON) matches the Go regexp
//	starts with LIT, begins with LIT, ends with LIT
//	                 text starts (ends) with the text, case as written;
//	                 any other value is a Mismatch
//	has key LIT, has LIT, has key NAME    an object has a non-null key
//	is one of A, B or C, is not one of A, B    the value equals one of
//	                 them (none of them); each a LIT or a bare word, and
//	                 bare words only two or more ("is one of many" is the
//	                 model's); a list or an object is a Mismatch
//	every item CLAIM, each element CLAIM, all items are ...
//	                 CLAIM holds for each element of a list (vacuously
//	                 for an empty list); decided when every element's is
//
// Anything else ("contains at least five bullet points", "is polite") is
// the model's.
package claim

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/proselang/prose/claim/form"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/judge"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// Question is one claim about one value.
type Question struct {
	// Path names the value, as the test wrote it ("echo", "result[0].step");
	// "" for a claim about the whole result.
	Path  string
	Claim string
	Value delegation.Value
	// Scope holds every output by name, for Delegation conditions that
	// mention other outputs.
	Scope map[string]delegation.Value
	// Pos is where the claim is written, for the messages of a failed
	// judgment (the zero Position when unknown).
	Pos diag.Position
}

// Result is the answer to a Question.
type Result struct {
	Holds bool
	// Rule names what decided: a form ("contains", "count", ...),
	// "condition" for a Delegation condition, "model".
	Rule string
	// Detail is what the rule observed beyond the value itself ("4 words"),
	// or the model's reasoning.
	Detail string
	// Mismatch says the value is of a kind the claim's form cannot read
	// ("a string, not a number"; form.Result.Mismatch): the claim is
	// neither true nor false of it, so an Expects and an Expects Not
	// item fail alike.
	Mismatch string
}

// ErrNeedsModel is wrapped by Checker.Check's error for a claim that only
// a model can judge when none is configured.
var ErrNeedsModel = errors.New("needs a model to judge")

// Decide decides q from the data alone; ok is false when no rule reads the
// claim.
func Decide(ctx context.Context, q Question) (r Result, ok bool) {
	text := normalize(q.Claim)
	if r, ok := form.Decide(text, q.Value); ok {
		return Result{Holds: r.Holds, Rule: r.Rule, Detail: r.Detail, Mismatch: r.Mismatch}, true
	}
	return condition(ctx, q)
}

// FieldClaim splits a Maintains postcondition "`field` CLAIM" (decided by
// Decide with the field's value) into its parts; ok is false for any
// other sentence, and for one that goes on ("; ...", " iff "), which is a
// render's (or a judge's) to police.
func FieldClaim(text string) (field, rest string, ok bool) {
	if !strings.HasPrefix(text, "`") {
		return "", "", false
	}
	end := strings.IndexByte(text[1:], '`')
	if end <= 0 {
		return "", "", false
	}
	field, rest = text[1:1+end], strings.TrimSpace(text[2+end:])
	if rest == "" || strings.ContainsAny(rest, ";") || strings.Contains(rest, " iff ") {
		return "", "", false
	}
	return field, strings.TrimSuffix(rest, "."), true
}

// normalize trims a claim and drops a trailing period.
func normalize(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimSuffix(s, ".")
}

// Checker decides claims, asking Model what the data does not decide.
type Checker struct {
	// Model judges the claims no rule decides; nil: none is configured.
	Model delegation.Judge
}

// Check answers q: Decide, else the model. With no model it returns an
// error wrapping ErrNeedsModel.
func (c *Checker) Check(ctx context.Context, q Question) (Result, error) {
	if r, ok := Decide(ctx, q); ok {
		return r, nil
	}
	if c == nil || c.Model == nil {
		return Result{}, fmt.Errorf("%q %w", describe(q), ErrNeedsModel)
	}
	j := ModelJudgment(q)
	v, err := c.Model.Judge(ctx, j)
	if err != nil {
		if q.Pos.IsValid() {
			return Result{}, err // the judge's error names the position and the claim
		}
		return Result{}, fmt.Errorf("judging %q: %w", describe(q), err)
	}
	return Result{Holds: v.Holds, Rule: "model", Detail: v.Reasoning}, nil
}

// describe is the claim as one sentence: "echo contains the phrase x".
func describe(q Question) string {
	if q.Path == "" {
		return normalize(q.Claim)
	}
	return q.Path + " " + normalize(q.Claim)
}

// ModelJudgment is the judgment a model is asked for q: the claim as one
// sentence about the named value (the whole result's outputs for a claim
// about the whole result). Equal questions give equal judgments, so a
// caching judge asks once.
func ModelJudgment(q Question) *delegation.Judgment {
	text := describe(q)
	vals := delegation.NewObject()
	cond := &syntax.NaturalCond{Text: text, EndPos: diag.Pos(len(text))}
	if q.Path != "" {
		vals.Set(q.Path, q.Value)
		cond.Words = []syntax.Word{{Path: q.Path}}
	} else {
		for _, k := range sortedKeys(q.Scope) {
			vals.Set(k, q.Scope[k])
			cond.Words = append(cond.Words, syntax.Word{Path: k})
		}
	}
	// A claim is no statement of a program: its judgment has no Path.
	return &delegation.Judgment{Cond: cond, Values: vals, Pos: q.Pos}
}

// condition decides the claim as a Delegation condition: "PATH CLAIM" (or
// the bare claim) evaluated with the outputs in scope, an expression
// directly, a natural-language condition by package judge's rules only.
func condition(ctx context.Context, q Question) (Result, bool) {
	text := normalize(q.Claim)
	if q.Path != "" {
		text = q.Path + " " + text
	}
	if strings.ContainsAny(text, "`\n") {
		return Result{}, false
	}
	prog, diags := syntax.ParseString("expect", "if "+text+":\n  return true\nreturn false\n")
	if diags.HasErrors() || prog == nil || len(prog.Body) == 0 {
		return Result{}, false
	}
	ifs, ok := prog.Body[0].(*syntax.IfStmt)
	if !ok {
		return Result{}, false
	}
	scope := map[string]delegation.Value{}
	for k, v := range q.Scope {
		scope[k] = v
	}
	if nc, ok := ifs.Cond.(*syntax.NaturalCond); ok {
		// A natural condition is read only when it is about a bound name:
		// otherwise the judge's rules would answer a question nobody asked.
		if len(nc.Words) == 0 || nc.Words[0].Pos != nc.TextPos || !bound(scope, nc.Words[0].Path) {
			return Result{}, false
		}
	} else if !allBound(ifs.Cond, scope) {
		return Result{}, false
	}
	host := &delegation.Host{Judge: &judge.Deterministic{}, MaxSteps: 1000}
	v, err := delegation.Run(ctx, prog, scope, host)
	if err != nil {
		return Result{}, false
	}
	holds, _ := v.(bool)
	return Result{Holds: holds, Rule: "condition"}, true
}

// bound reports whether the root name of a member path is in scope.
func bound(scope map[string]delegation.Value, path string) bool {
	root := path
	if i := strings.IndexAny(root, ".["); i >= 0 {
		root = root[:i]
	}
	_, ok := scope[root]
	return ok
}

// allBound reports whether every name an expression reads is in scope
// (an unbound name would be a run-time error, not an answer).
func allBound(x syntax.Expr, scope map[string]delegation.Value) bool {
	ok := true
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Ident:
			if _, in := scope[n.Name]; !in {
				ok = false
			}
		case *syntax.MemberExpr:
			syntax.Walk(n.X, func(m syntax.Node) bool {
				if id, is := m.(*syntax.Ident); is {
					if _, in := scope[id.Name]; !in {
						ok = false
					}
				}
				return true
			})
			return false
		}
		return ok
	})
	return ok
}

// sortedKeys is m's keys in order.
func sortedKeys(m map[string]delegation.Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
