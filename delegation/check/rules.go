package check

import (
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
)

// The stable codes of the checks. They never change meaning once
// released; Rules describes each.
const (
	CodeUndefinedName     = "check/undefined-name"
	CodeCallTarget        = "check/call-target"
	CodeUnknownArg        = "check/unknown-arg"
	CodeMissingArg        = "check/missing-arg"
	CodeDuplicateKey      = "check/duplicate-key"
	CodeRedeclared        = "check/redeclared"
	CodeConstAssign       = "check/const-assign"
	CodeInputAssign       = "check/input-assign"
	CodeLoopVarAssign     = "check/loop-var-assign"
	CodeParallelAssign    = "check/parallel-assign"
	CodeParallelMod       = "check/parallel-mod"
	CodeUnboundedLoop     = "check/unbounded-loop"
	CodeLoopCount         = "check/loop-count"
	CodeBranchOutsideLoop = "check/branch-outside-loop"
	CodeUndeclaredOutput  = "check/undeclared-output"
	CodeOutputNotReturned = "check/output-not-returned"
	CodeUnusedConfig      = "check/unused-config"
	CodeUnusedInput       = "check/unused-input"
	CodePlaceholder       = "check/placeholder-string"
	CodeSaysPolarity      = "check/says-polarity"
	CodeConditionNoNames  = "check/condition-no-names"
	CodeRetries           = "check/retries"
	CodeBackoffNoRetries  = "check/backoff-without-retries"
	CodeBackoffKey        = "check/backoff-key"
	CodeTimeout           = "check/timeout"
	CodeOnFailShape       = "check/on-fail-shape"
	CodeClauseArg         = "check/clause-as-arg"
	CodeLoopInvariant     = "check/loop-invariant"
	CodeNoWinner          = "check/no-winner"
	CodeLoopVarOverwrite  = "check/loop-var-overwrite"
	// CodeNullInText: an optional input without a default joined into
	// text by a program that never tests it ("for null").
	CodeNullInText = "check/null-in-text"
	// CodeReturnShape: an Execution's return cannot give the object of
	// outputs its node declares (Decls.ReturnRule).
	CodeReturnShape = "check/return-shape"
	// CodeSpacedBrace: braces with spaces around a bound name in a
	// string (`{ topic }`), which are text, not an interpolation.
	CodeSpacedBrace = "check/spaced-brace"
	// CodeExprBrace: braces around an expression in a string (`{do
	// f()}`, `{n + 1}`, `{xs[0]}`), which are text, not its value.
	CodeExprBrace = "check/expr-brace"
	// CodeFallbackShape: an on_fail fallback whose shape differs from the
	// callee's declared outputs or the fields its slot's ensures names.
	CodeFallbackShape = "check/fallback-shape"
	// CodeTypeMismatch: a value whose type the checker knows given where
	// another type is declared (an argument, a returned output, a field
	// of a fallback).
	CodeTypeMismatch = "check/type-mismatch"
	// CodeUnknownMember: a member that the value's declared shape cannot
	// have. Its code is older than the checker's shapes (the Contract
	// Markdown checks of package lint gave it first, and list it) and is
	// kept as it was.
	CodeUnknownMember = "lint/unknown-member"

	// Named blocks and do (block.go).
	CodeUndefinedBlock = "check/undefined-block"
	CodeBlockArgs      = "check/block-args"
	CodeBlockName      = "check/block-name"
	CodeBlockParam     = "check/block-param"
	CodeBlockNoValue   = "check/block-no-value"
	CodeBlockNullPath  = "check/block-null-path"
	CodeBlockAssign    = "check/block-assign"
	CodeUnusedBlock    = "check/unused-block"

	// CodeCollectNull: an iteration of a collecting body that gives
	// null with no value written for it (collect.go).
	CodeCollectNull = "check/collect-null"

	// CodeMissingReturn: an Execution that returns on some paths only
	// (check.go, someReturn).
	CodeMissingReturn = "check/missing-return"
)

// Rule describes one check: its stable code, the severity of its
// findings, and a one-line description (used for SARIF rule metadata).
type Rule struct {
	Code     string
	Severity diag.Severity
	Short    string
}

// Rules lists every check, in code order. The slice is new on each call.
func Rules() []Rule {
	return []Rule{
		{CodeBackoffKey, diag.Error, "Unknown key in a backoff object"},
		{CodeBackoffNoRetries, diag.Error, "backoff given without retries"},
		{CodeBlockArgs, diag.Error, "do NAME(...) gives another number of arguments than the block has parameters"},
		{CodeBlockNoValue, diag.Error, "A do: block or a named block whose value is used gives no value on any path (it is always null)"},
		{CodeBlockNullPath, diag.Warning, "A named block whose value is used may end without a return or a value on some path (its value is then null)"},
		{CodeBlockAssign, diag.Error, "A block's parameter assigned, or a top-level name assigned from a named block"},
		{CodeBlockName, diag.Error, "Block defined twice, or named like a callee, ## node, slot, input, config key or variable"},
		{CodeBlockParam, diag.Error, "Block names a parameter twice"},
		{CodeBranchOutsideLoop, diag.Error, "continue or break outside a loop, or leaving a parallel body or a block"},
		{CodeCollectNull, diag.Warning, "An iteration of a collecting loop or a pipeline stage ended by continue, or taking a path with no value, gives null to the list"},
		{CodeMissingReturn, diag.Warning, "An Execution whose node declares outputs returns on some paths only: a run on another fails at its end"},
		{CodeChoice, diag.Error, "choice with two options of one label or a blank label (an error), one option or an empty option (a warning)"},
		{CodeCallTarget, diag.Error, "Call target is not a slot, an input, or a loop variable over a list-valued slot"},
		{CodeClauseArg, diag.Warning, "Argument named like a call clause (retries: 3 passes an argument)"},
		{CodeConditionNoNames, diag.Warning, "Natural-language condition mentions no bound name"},
		{CodeDuplicateKey, diag.Warning, "Key given twice in an object or argument list"},
		{CodeFallbackShape, diag.Error, "on_fail fallback whose shape differs from the callee's declared outputs or the fields its slot ensures"},
		{CodeLoopVarOverwrite, diag.Error, "Loop or catch variable named like an input, config key or slot that the program reads after the loop (it reads the last element)"},
		{CodeNoWinner, diag.Warning, "Members read of a parallel first loop's value that nothing tests for null (no iteration won)"},
		{CodeLoopInvariant, diag.Warning, "loop while/until whose condition reads nothing its body changes, and which nothing else leaves"},
		{CodeLoopCount, diag.Error, "Repeat count or loop max is not a non-negative integer, config key, input or member path"},
		{CodeMissingArg, diag.Warning, "Call does not pass an argument the slot requires"},
		{CodeOnFailShape, diag.Warning, "on_fail fallback contradicts what the slot ensures"},
		{CodeOpenLoop, diag.Error, "loop (max: N) without a condition whose body has no break or return to end it"},
		{CodeOutputNotReturned, diag.Warning, "Declared output never returned"},
		{CodeNullInText, diag.Warning, "Optional input without a default joined into text, never tested: null is written as \"null\""},
		{CodeParallelAssign, diag.Error, "Outer name assigned inside a parallel body"},
		{CodeParallelMod, diag.Error, "parallel (...) modifier that is no join, count or on-fail policy, or a count without \"any\", below 1 or above the branches"},
		{CodePipeNoValue, diag.Warning, "Pipeline stage whose body gives no value for any item"},
		{CodePipeReturn, diag.Warning, "return in a pipeline stage's body, which ends only the item, before the body's last statement"},
		{CodePlaceholder, diag.Warning, "String literal describes a computed value instead of computing it"},
		{CodeRedeclared, diag.Warning, "let of a name already bound (an assignment)"},
		{CodeConstAssign, diag.Error, "A name bound by const bound or assigned again"},
		{CodeInputAssign, diag.Error, "Declared input, config key or slot assigned"},
		{CodeLoopVarAssign, diag.Error, "Loop or catch variable assigned inside its body"},
		{CodeRetries, diag.Error, "retries is not a non-negative integer"},
		{CodeReturnShape, diag.Error, "Execution returns a value that cannot hold the two or more outputs its node declares"},
		{CodeSpacedBrace, diag.Warning, "Braces with spaces around a bound name in a string are text, not an interpolation"},
		{CodeExprBrace, diag.Warning, "Braces around a block run, a call or an expression of a bound name in a string are text, not its value"},
		{CodeSession, diag.Error, "Agent defined twice, session of an undefined agent, or an agent property prose cannot honour (persist:, skills:)"},
		{CodeSaysPolarity, diag.Warning, "Polarity of a says predicate cannot be told"},
		{CodeTimeout, diag.Error, "timeout is not a positive duration or number of seconds"},
		{CodeTypeMismatch, diag.Error, "Value of another type than the one declared for the argument, output or field it stands for"},
		{CodeUnboundedLoop, diag.Error, "loop while/until without (max: N)"},
		{CodeUndeclaredOutput, diag.Warning, "Returned key is not a declared output"},
		{CodeUndefinedBlock, diag.Error, "do NAME(...) of a block the program does not define"},
		{CodeUndefinedName, diag.Error, "Undefined name"},
		{CodeUnknownArg, diag.Warning, "Argument key looks like a misspelling of one the slot requires"},
		{CodeUnusedBlock, diag.Warning, "Named block that no do runs"},
		{CodeUnusedConfig, diag.Warning, "Config key declared but never used"},
		{CodeUnusedInput, diag.Warning, "Input declared but never used"},
	}
}

// suggest returns the bound name closest to name, or "".
func (c *checker) suggest(name string) string {
	names := make([]string, 0, len(c.names))
	for n := range c.names {
		names = append(names, n)
	}
	return closest(name, names)
}

// suggestFrom formats "; did you mean 'x'?" when a candidate is close.
func (c *checker) suggestFrom(name string, candidates []string) string {
	if s := closest(name, candidates); s != "" {
		return "; did you mean " + quote(s) + "?"
	}
	return ""
}

// closest returns the candidate within an edit distance of about a third
// of name's length (at least 1), preferring the smallest distance and then
// the alphabetically first, or "" when none is close.
func closest(name string, candidates []string) string {
	return didyoumean.Matcher{}.Closest(name, candidates)
}
