package check

import "github.com/proselang/prose/diag"

// Decls is what a spec declares, as the checker needs it. The loader
// (package spec) builds it; the checker never imports spec.
type Decls struct {
	Slots   []Slot
	Config  []Name
	Inputs  []Name
	Outputs []Name
	// ReturnRule is set for a Contract Markdown node's Execution, whose
	// value is matched to the outputs by the return rule: with two or
	// more outputs it must be an object holding every one (a pattern's
	// Delegation returns what it returns).
	ReturnRule bool
	// Node names the node in messages ("" for the spec).
	Node string
	// Callees are the nodes and files the program calls by name whose
	// declarations are known (Contract Markdown: ## nodes and sibling
	// files), each with its inputs and outputs; their call targets are
	// among Slots too. The checker follows the shapes of their values
	// (shape.go).
	Callees []Callee
	// Nodes are the ## nodes of the file, called or not, by name (Pos
	// their heading): a call of the name reaches one, so a named block
	// must not take it.
	Nodes []Name
	// Reads are the values of read_world_model("NODE") whose members
	// are known, by the NODE written (a world node's Execution: its own
	// prior truth and the truths of the nodes it reads). A read of
	// another NODE, or with no members known, is an unknown value.
	Reads []Read
}

// Read is the value of read_world_model("Node"): an object (or null, on
// a cold start, whose members read null too) of exactly Members, or,
// with Open, of Members and perhaps more, where only a member near one
// of them is reported. From says what gives them, for messages.
type Read struct {
	Node    string
	Members []Name
	Open    bool
	From    string
}

// Callee is a node or file the program calls, with what it declares.
type Callee struct {
	Name    string
	Inputs  []Name
	Outputs []Name // a facet of a truth has Part set
	// Errors are the names of the errors the callee declares (### Errors),
	// which a caught failure of a call of it gives as err.error, when
	// ErrorsKnown: no other name can reach its caller (it runs no program
	// of its own whose calls could fail with theirs).
	Errors      []string
	ErrorsKnown bool
	// Whole is true when the value is the object of the outputs even
	// when there is one (a pattern instance's result, {result: ...}),
	// not the one output itself as a node's is.
	Whole bool
}

// Slot is a declared slot.
type Slot struct {
	Name string
	Pos  diag.Pos
	// List is true for a list-valued slot (candidates, stages...).
	List bool
	// Args lists the argument keys the slot's `requires` names precisely;
	// nil when requires is free text (then no argument key is checked).
	// With Args, a call that does not pass one of them, or passes a key
	// that misspells one, is reported; other extra keys are context and
	// pass.
	Args []string
	// Requires is the slot's requires text: where it types fields
	// (`{count: integer}`, "`count` (integer)"), the arguments of those
	// names are checked against the types, as the run checks them.
	Requires string
	// Ensures is the slot's ensures text, for the on_fail shape check
	// and, where it names fields (`{approved: boolean, notes: string}`,
	// "returns `approved` (boolean)"), the members of the slot's answer.
	Ensures string
}

// Name is a declared config key, input or output.
type Name struct {
	Name string
	Pos  diag.Pos
	Type string // declared type, "" when unknown
	// Optional is true for an input that need not be given.
	Optional bool
	// NullIfOmitted is true for an optional input without a default:
	// null when the caller leaves it out.
	NullIfOmitted bool
	// Inferred is true for an output taken from the Delegation's return
	// rather than declared; the output checks skip inferred outputs.
	Inferred bool
	// Part is true for an output that is a part of a maintained truth (a
	// facet): it may be returned, and need not be.
	Part bool
	// Members, set on an input (or on a member of one), are the members
	// its value holds: an object of exactly these keys (a world node's
	// input that reads a producer's whole truth, or a fan-in keyed by
	// producer), so that reading another one is lint/unknown-member.
	// From says what gives them, for messages.
	Members []Name
	From    string
	// Open, with Members: the value may hold members beyond them (a
	// faceted truth, whose fields may be given inside a facet), so only
	// a member near one of them is reported.
	Open bool
}
