// Package spec loads OpenProse pattern specs (*.prose.md files) into typed
// values.
//
// Load reads a file and Parse parses bytes; both return a *Spec and the
// diagnostics found, sorted, every one positioned in the .md file. The
// Markdown structure is read with goldmark, the front matter with yaml.v3.
// A Spec holds the front matter (name, kind, version), title and summary,
// every section, the slots, config, inputs ("Pattern instance receives:"),
// outputs, invariants, shape, notes, and the Delegation: its prose, its
// ```prose code lines with their .md offsets, and the parsed program.
// Spec.Decls gives the declarations the Delegation checker needs, and
// Spec.JSON the document `prose show` prints.
//
// Contract Markdown (OpenProse 0.15) files, functions, responsibilities,
// gateways, tests and 0.15 patterns (by version, or for a pattern with no
// version by its own forms: generation.go), are read by the rules written in
// contract.go: `##` inline nodes (Spec.Nodes), contract items as inputs,
// Errors, Strategies, Continuity, Goal, the ### Patterns instances and the
// ### Execution program (Spec.Execution).
//
// A `####` facet under a Contract Markdown ### Maintains is an output named
// like it (described by the text under it), one under ### Requires an
// input; the section's bullets before the first facet are read too, and
// lists under a facet describe the facet (facets.go).
//
// A 0.15 config item `- \`max_rounds\`: 3` (no `(type, default: X)`) takes a
// literal after the colon as its default, and its type (valueAsDefault in
// config.go). A 0.15 pattern without a "Pattern instance receives:" block
// reads its Requires (or Parameters) contract items as inputs, as a
// function does; one with the block reads such items written beside it
// too (inputs.go, besideBlock). A default whose commas split the flags
// ("(optional, default a,b)") is an error giving it as JSON. The text of
// a slot item, `- \`reviewer\`: returns ...`, is the slot's contract
// (Slot.itemContract).
//
// ### Environment items name host variables (Spec.Environment): a render is
// refused before the run when one is unset or empty. ### Runtime is kept as
// documentation: its `model` hint names a host's model (sonnet, opus) that
// the configured server need not know, so a node's model is chosen with
// --slot NAME=llm:MODEL instead.
//
// Main types: Spec, Section, Slot, ConfigEntry, Input, Output, Shape,
// Delegate, Delegation, ErrorDecl, PatternInstance, InstanceSlot. Entry
// points: Load, LoadFS, Read, Parse, (*Spec).Decls, (*Spec).JSON.
//
// # Reading rules
//
// Sections are the `##`/`###` headings after the `#` title, matched
// case-insensitively: Description, Metadata, Slots, Config, Invariants,
// Shape, Requires (or Parameters), Ensures (or Returns, Maintains),
// Delegation, Execution, Errors, Notes. Other headings are kept as unknown
// sections. Config defaults are decoded by the declared type; `none` means
// no default; a Python literal such as {'model': 'opus'} is decoded as
// YAML-flow and reported. The inputs block is read from raw lines
// (`name: type -- comment`, `(optional, default X)` in the comment,
// continuation lines indented deeper). Outputs are the "`name`: text"
// bullets of Ensures/Returns/Maintains, else the keys of the Delegation's
// last top-level `return {...}` (Output.Inferred). A slot is a list when the
// inputs type it as an array or the Delegation runs `for x in SLOT`.
//
// Declared types are string, integer, number, boolean, object, any,
// duration and null, as `T[]` for a list and `A | B` for either. The
// spellings people write for them mean them: int and long are integer,
// float and double number, bool boolean, str and text string, dict and map
// object, list and array any[]; the loader stores the canonical name. Any
// other word in a type's place is an unknown type, an error naming the type
// it is close to (a word far from every type, `(atomic)`, is prose). A
// duration (500ms, 30s, 2m, or a number of seconds) default that is not one
// is an error: every use of it would fail. Read reads a spec from a pipe
// (StdinName).
//
// An entry with no declared type takes the type of its default: 3 is an
// integer, 0.5 a number, true a boolean, "x" a string, 2s a duration, a
// list any[], an object object (TypeInferred), so a value of another type
// is refused before a run. A Parameters or Requires item reads its default
// from its description in the forms upstream writes ("Defaults to
// `true`", "default `3`", "default: fast", "(default 3)"), or from a
// description that is a literal alone (`- \`rounds\`: 3`); such an input
// is optional.
//
// # Diagnostic codes
//
// Errors:
//
//	spec/too-large           the file exceeds MaxSize (4 MiB)
//	spec/empty               the file is empty
//	spec/not-utf8            the file is not valid UTF-8
//	spec/no-front-matter     the file does not start with a --- front matter block
//	spec/front-matter        the front matter is unterminated, not YAML, or not a mapping
//	spec/front-matter-key    name or kind is missing or not a string
//	spec/unknown-kind        kind is none of pattern, function, responsibility, gateway, test
//	spec/retired-kind        kind is service or system, which 0.15 retired
//	spec/missing-section     a section the kind requires is absent (a pattern needs Slots and Delegation)
//	spec/slot-syntax         a Slots bullet is not "`name`" with optional (primary)
//	spec/config-syntax       a Config bullet is not "`name` (type, default: X): description", or its type is unknown
//	spec/duplicate-slot      a slot is declared twice
//	spec/duplicate-config    a config key is declared twice
//	spec/duplicate-input     an input is declared twice in the inputs block
//	spec/gateway-requires    a gateway has ### Requires (or ### Parameters): a gateway's input arrives as events, so nothing wires it
//	spec/misspelt-section    a heading that is a slip for a section a run reads (### Excution, or #### Execution where the node has none), which would be documentation
//	spec/duplicate-output    an output is declared twice under Returns (or Ensures), a field twice under Maintains
//	spec/output-syntax       an output item's type is no type (`count` (integr)), named with the type it is close to
//	spec/input-syntax        a line of the inputs block, at the entries' indentation, is not "name: type -- comment", or its type is unknown
//	spec/shape-undeclared    Shape delegates names a slot that is not declared
//	spec/delegation-fence    the Delegation has no ```prose code block (or only one with another language)
//	spec/unterminated-fence  the Delegation's code fence is never closed
//	spec/internal            the Delegation parser failed unexpectedly (a bug: please report it)
//	spec/too-deep            a line nests indentation, quotes or list markers more than 256 characters deep
//	spec/patterns-syntax     a ### Patterns block is not a YAML list of {name, pattern, with, config}
//	spec/bad-default         a default of a config key or input that does not fit its declared type (the run refuses it)
//	spec/bad-duration        a duration-typed config default that is not a duration (no timeout could use it)
//	spec/unsupported-prosescript  a ProseScript form prose does not run yet (resume; a session or an agent in a pattern's Delegation), named with what to write instead (prosescript.go)
//	spec/use-path            a use whose path is empty, unquoted, or of a form prose does not resolve (another git host, co/..., a pinned version), saying what to write (use.go)
//	spec/use-alias           a use alias that is not a name (add as NAME), is declared twice, or is a slot, input, ## node or pattern instance of the file
//	spec/use-place           a use after a statement or inside a block, or in a pattern's Delegation
//
// Warnings:
//
//	spec/unknown-section     a section the loader does not know (kept as documentation)
//	spec/duplicate-section   a known section appears twice (the first is read)
//	spec/no-title            no `#` title heading
//	spec/python-default      a config default written as a Python literal
//	spec/config-word         a 0.15 config key whose text is one bare word (- `mode`: fast): its description, so it has no default
//	spec/unread-type         a parenthesis after an input or output that starts with a
//	                          type but holds more than a type form: the item is untyped
//	                          ("(number, 0 to 1)"); "list of T" is read as T[]
//	spec/bad-version         the front matter version is a list or a mapping, not a scalar like 0.2.0
//	spec/dropped-key         a front matter key whose value YAML cannot read (aliases expanded too far) is ignored
//	spec/type-mismatch       a key typed differently in Config and in the inputs block
//	spec/shape-missing       a declared slot that Shape delegates does not mention
//	spec/prosescript-fence   the code fence says prosescript rather than prose
//	spec/empty-delegation    the Delegation's code block has no code
//	spec/extra-fence         a second ```prose block in the Delegation or the
//	                         Execution (only the first runs)
//	spec/duplicate-node      two inline ## nodes of one file share a name
//
// The Delegation parser adds its own codes (syntax/...) to the same list.
package spec

// Diagnostic codes reported by the loader. They are stable.
const (
	CodeTooLarge          = "spec/too-large"
	CodeEmpty             = "spec/empty"
	CodeNotUTF8           = "spec/not-utf8"
	CodeNoFrontMatter     = "spec/no-front-matter"
	CodeFrontMatter       = "spec/front-matter"
	CodeFrontMatterKey    = "spec/front-matter-key"
	CodeUnknownKind       = "spec/unknown-kind"
	CodeRetiredKind       = "spec/retired-kind"
	CodeMissingSection    = "spec/missing-section"
	CodeSlotSyntax        = "spec/slot-syntax"
	CodeConfigSyntax      = "spec/config-syntax"
	CodeDuplicateSlot     = "spec/duplicate-slot"
	CodeDuplicateConfig   = "spec/duplicate-config"
	CodeDuplicateInput    = "spec/duplicate-input"
	CodeDuplicateOutput   = "spec/duplicate-output"
	CodeMisspeltSection   = "spec/misspelt-section"
	CodeOutputSyntax      = "spec/output-syntax"
	CodeInputSyntax       = "spec/input-syntax"
	CodeShapeUndeclared   = "spec/shape-undeclared"
	CodeDelegationFence   = "spec/delegation-fence"
	CodeUnterminatedFence = "spec/unterminated-fence"
	CodeInternal          = "spec/internal"
	CodeTooDeep           = "spec/too-deep"
	CodeBadDuration       = "spec/bad-duration"
	CodeUnsupportedScript = "spec/unsupported-prosescript"
	CodeUsePath           = "spec/use-path"  // use.go
	CodeUseAlias          = "spec/use-alias" // use.go
	CodeUsePlace          = "spec/use-place" // use.go
	CodeGatewayRequires   = "spec/gateway-requires"

	CodeUnknownSection   = "spec/unknown-section"
	CodeDuplicateSection = "spec/duplicate-section"
	CodeNoTitle          = "spec/no-title"
	CodePythonDefault    = "spec/python-default"
	// CodeConfigWord: a 0.15 config key whose whole text is one bare word
	// (`- \`mode\`: fast`), read as its description, so the key has no
	// default.
	CodeConfigWord      = "spec/config-word"
	CodeBadDefault      = "spec/bad-default"
	CodeUnreadType      = "spec/unread-type"
	CodeBadVersion      = "spec/bad-version"
	CodeDroppedKey      = "spec/dropped-key"
	CodeTypeMismatch    = "spec/type-mismatch"
	CodeShapeMissing    = "spec/shape-missing"
	CodeProsescript     = "spec/prosescript-fence"
	CodeEmptyDelegation = "spec/empty-delegation"
	CodeExtraFence      = "spec/extra-fence"

	CodePatternsSyntax = "spec/patterns-syntax"
	CodeDuplicateNode  = "spec/duplicate-node"
)
