package spec

import "github.com/proselang/prose/diag"

// Rule describes one diagnostic code of the loader, for tools that list
// rules apart from findings (SARIF).
type Rule struct {
	Code     string
	Severity diag.Severity
	Short    string
}

// Rules lists every code the loader reports, errors first, as the package
// documentation does. The slice is new on each call.
func Rules() []Rule {
	e, w := diag.Error, diag.Warning
	return []Rule{
		{CodeTooLarge, e, "File larger than 4 MiB"},
		{CodeEmpty, e, "Empty file"},
		{CodeNotUTF8, e, "File is not valid UTF-8"},
		{CodeNoFrontMatter, e, "No --- front matter block at the top"},
		{CodeFrontMatter, e, "Front matter unterminated, not YAML, or not a mapping"},
		{CodeFrontMatterKey, e, "Front matter name or kind missing or not a string"},
		{CodeUnknownKind, e, "Front matter kind is none that prose knows"},
		{CodeRetiredKind, e, "Front matter kind retired in 0.15"},
		{CodeMissingSection, e, "Section required by the kind is absent"},
		{CodeSlotSyntax, e, "Malformed Slots bullet"},
		{CodeConfigSyntax, e, "Malformed Config bullet"},
		{CodeDuplicateSlot, e, "Slot declared twice"},
		{CodeDuplicateConfig, e, "Config key declared twice"},
		{CodeDuplicateInput, e, "Input declared twice"},
		{CodeMisspeltSection, e, "Heading that is a slip for a section a run reads (### Excution, or #### Execution where the node has none)"},
		{CodeDuplicateOutput, e, "Output declared twice under Returns or Ensures, or a field twice under Maintains"},
		{CodeOutputSyntax, e, "Output item whose type is no type, named with the type it is close to"},
		{CodeInputSyntax, e, "Malformed line in the inputs block"},
		{CodeShapeUndeclared, e, "Shape delegates a slot that is not declared"},
		{CodeDelegationFence, e, "Delegation has no ```prose code block"},
		{CodeUnterminatedFence, e, "Delegation code fence never closed"},
		{CodeInternal, e, "Internal error of the Delegation parser"},
		{CodeTooDeep, e, "Markdown nested too deep"},
		{CodePatternsSyntax, e, "Malformed ### Patterns declaration"},
		{CodeBadDefault, e, "Default of a config key or input that does not fit its declared type (the run refuses it)"},
		{CodeBadDuration, e, "Duration config default is not a duration"},
		{CodeUnsupportedScript, e, "ProseScript form prose does not run yet"},
		{CodeUsePath, e, "use whose path is empty or of a form prose does not resolve (another git host, co/..., a pinned version)"},
		{CodeUseAlias, e, "use alias that is not a name, is declared twice, or is also a slot, input, node or pattern instance"},
		{CodeUsePlace, e, "use after a statement, inside a block, or in a pattern's Delegation"},
		{CodeUnknownSection, w, "Unknown section (kept as documentation)"},
		{CodeDuplicateSection, w, "Known section repeated (the first is read)"},
		{CodeNoTitle, w, "No # title heading"},
		{CodePythonDefault, w, "Config default written as a Python literal"},
		{CodeConfigWord, w, "Config key whose text is one bare word, read as its description: it has no default"},
		{CodeUnreadType, w, "Parenthesis after an input or output that starts with a type but is not read as one: the item is untyped"},
		{CodeBadVersion, w, "Front matter version is not a scalar"},
		{CodeDroppedKey, w, "Front matter key ignored: its value cannot be read"},
		{CodeTypeMismatch, w, "Key typed differently in Config and in the inputs block"},
		{CodeShapeMissing, w, "Declared slot not listed under Shape delegates"},
		{CodeProsescript, w, "Code fence says prosescript rather than prose"},
		{CodeEmptyDelegation, w, "Delegation code block is empty"},
		{CodeExtraFence, w, "Second ```prose block in the Delegation or the Execution (not run)"},
		{CodeDuplicateNode, w, "Two inline nodes share a name"},
		{CodeGatewayRequires, e, "Gateway with ### Requires: its input arrives as events, and nothing wires the items"},
	}
}
