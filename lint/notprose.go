package lint

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// Executions that are not ProseScript (decided).
//
// Upstream hands a responsibility's or gateway's ### Execution to a model
// as text, and its files use function-call idioms that are not
// ProseScript (`read_subscription("renewal-risk", "risk")`, `filter X
// where C`, `call X with {...}`). Such an Execution never stops a
// project: the syntax errors of the Execution of a world-model node are
// one warning (CodeExecutionNotProse) at the first of them, naming the
// idiom and the ProseScript to write instead, and saying how the node is
// rendered: by whatever a --slot binds it to (a program or a model, which
// runs whatever its Execution says), else by the model, given the
// Execution as instructions. A function's Execution stays an error: a
// function is called, and what it does must be exact.

// CodeExecutionNotProse is the warning for a world-model node whose
// ### Execution does not parse as ProseScript.
const CodeExecutionNotProse = "lint/execution-not-prosescript"

// ExecutionNotProse reports whether s is a responsibility or a gateway
// whose ### Execution has code with a syntax error among diags (the
// loader's findings).
func ExecutionNotProse(s *spec.Spec, diags diag.List) bool {
	if s == nil || !s.Contract || !s.Kind.IsNode() || s.Execution == nil || len(s.Execution.Lines) == 0 {
		return false
	}
	for _, d := range diags {
		if d.Severity == diag.Error && inExecution(s, d) {
			return true
		}
	}
	return false
}

// inExecution reports whether d lies on a line of s's Execution code.
func inExecution(s *spec.Spec, d diag.Diagnostic) bool {
	ex := s.Execution
	if d.File != s.File.Name || !strings.HasPrefix(d.Code, "syntax/") {
		return false
	}
	first := s.File.Position(ex.Lines[0].Off).Line
	last := s.File.Position(ex.Lines[len(ex.Lines)-1].Off).Line
	return first <= d.Line && d.Line <= last
}

// NotProse replaces the syntax errors of s's Execution, when s is a
// world-model node whose Execution is not ProseScript, by one warning at
// the first of them; other diagnostics are kept as they are.
func NotProse(s *spec.Spec, diags diag.List) diag.List {
	if !ExecutionNotProse(s, diags) {
		return diags
	}
	var out diag.List
	var first *diag.Diagnostic
	for i := range diags {
		d := diags[i]
		if d.Severity == diag.Error && inExecution(s, d) {
			if first == nil {
				first = &diags[i]
			}
			continue
		}
		out = append(out, d)
	}
	if first == nil {
		return diags
	}
	w := *first
	w.Severity, w.Code = diag.Warning, CodeExecutionNotProse
	w.Message = fmt.Sprintf("the Execution of %s is not ProseScript (%s): %s is rendered by what --slot %s=... binds it to, else by the model, given its Execution as instructions",
		s.Name, idiomAdvice(s, first.Message), s.Name, s.Name)
	return append(out, w)
}

// idiomAdvice names the idioms of upstream's the Execution's code uses
// and the ProseScript to write instead of each, or, when it uses none of
// them, the parser's message.
func idiomAdvice(s *spec.Spec, msg string) string {
	code := s.Execution.Code
	var out []string
	if strings.Contains(code, "read_subscription(") {
		out = append(out, "`read_subscription(NODE, FACET)` is upstream's; in ProseScript the Requires item's name is its value: name the item that subscribes to that facet")
	}
	if strings.Contains(code, "filter ") && strings.Contains(code, " where ") {
		out = append(out, "`filter X where C` is upstream's; in ProseScript keep the items in a loop: `let kept = []`, `for x in X:`, `if C:`, `append x to kept`")
	}
	if strings.Contains(code, " with {") {
		out = append(out, "`call X with {...}` is upstream's; in ProseScript a call's arguments go below it, one `key: value` line each")
	}
	if len(out) == 0 {
		return msg
	}
	return strings.Join(out, "; ")
}
