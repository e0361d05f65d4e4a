package spec

import (
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// Spec is a loaded .prose.md file. Every Pos is a byte offset into the .md
// file described by File.
type Spec struct {
	File *diag.File

	Name    string         // front matter `name`
	Kind    Kind           // front matter `kind` (KindPattern, ...)
	Version string         // front matter `version`, or Metadata's version
	Front   map[string]any // every front-matter key, as yaml.v3 decoded it

	Title   string // first `#` heading
	Summary string // first paragraph after the title

	// Description is the raw Markdown of the Description section ("" when
	// absent); Metadata holds the Metadata section's `- \`key\`: value`
	// bullets (nil when absent).
	Description string
	Metadata    map[string]string

	Sections []*Section // in file order, known and unknown

	Slots  []*Slot
	Config []*ConfigEntry
	Inputs []*Input
	// Needs are the items of a Contract Markdown Parameters or Requires
	// written as sentences that name no input: a render states them.
	Needs      []string
	Outputs    []*Output
	Invariants []string
	Shape      *Shape
	Delegation *Delegation // nil when the spec has none
	Notes      string

	// Contract Markdown (OpenProse 0.15); see contract.go.

	// Contract is true when the file is read by the Contract Markdown
	// rules (a function, responsibility, gateway or test, or a 0.15
	// pattern).
	Contract   bool
	Subject    string   // a test's front matter subject
	Goal       string   // a responsibility's Goal section
	Continuity []string // Continuity bullets ("input-driven")
	Strategies []string // Strategies bullets
	// Environment names the host environment variables of ### Environment
	// (`- \`NAME\`: text` items), which a render needs set.
	Environment []string
	Errors      []*ErrorDecl
	Execution   *Delegation // the ### Execution section; Program is nil when it has no ```prose block
	Patterns    []*PatternInstance
	// Truth is what a Contract Markdown ### Maintains declares beyond its
	// fields (facets, immaterial fields, postconditions); nil without one.
	Truth *Truth

	// Nodes are the inline `##` nodes of the file, in order; an inline
	// node is a Spec whose Parent is the file's spec, whose Name is its
	// heading and whose Pos is the heading's position.
	Nodes  []*Spec
	Parent *Spec
	Pos    diag.Pos

	// nodeIndex is the first node of each name, as the loader left Nodes
	// (nodeCount of them), for a file of many nodes: Node looks a name up
	// there rather than scanning Nodes for every call resolved.
	nodeIndex map[string]*Spec
	nodeCount int
}

// Section is one top-level `##`/`###` section.
type Section struct {
	Heading string   // as written, without the #s
	Key     string   // lower-cased canonical name: "slots", "requires" (also for Parameters), "ensures" (also Returns, Maintains)...
	Known   bool     // one of the sections the loader understands
	Pos     diag.Pos // the heading's first byte
	Body    string   // raw Markdown between this heading and the next
	BodyPos diag.Pos
}

// Slot is a declared slot.
type Slot struct {
	Name      string
	Pos       diag.Pos
	Primary   bool
	Requires  string // free text, "" when absent
	Ensures   string
	Maintains string
	// EnsuresPos is where Ensures is written: its first `ensures:`
	// clause, or the slot's item when the item's text is its ensures.
	EnsuresPos diag.Pos
	// List is true when the inputs block types the slot as an array
	// (`candidates: string[]`) or the Delegation iterates over it.
	List bool
}

// ConfigEntry is a declared config key.
type ConfigEntry struct {
	Name        string
	Pos         diag.Pos
	Type        string // "integer", "number", "string", "boolean", "object", "any", "T[]", or "" when unstated
	HasDefault  bool   // false for `default: none` or no default
	Default     any    // decoded default (int64, float64, string, bool, nil, []any, map[string]any) when HasDefault
	DefaultRaw  string // as written
	Description string
	// TypeInferred is true when Type was not declared but read from the
	// default (`- \`max_rounds\`: 3` is an integer).
	TypeInferred bool
}

// Input is one line of the "Pattern instance receives:" block.
type Input struct {
	Name        string
	Pos         diag.Pos
	Type        string // as written: "string", "number", "any[]", "string[]"...
	Optional    bool
	HasDefault  bool
	Default     any // decoded, when HasDefault
	DefaultRaw  string
	Description string
	// FromSentence is true for an input whose name was read from a
	// sentence of Parameters or Requires (its Description).
	FromSentence bool
	// TypeInferred is true when Type was not declared but read from the
	// default (`Defaults to \`true\`` is a boolean).
	TypeInferred bool
	// splitDefault holds the flags with the default written as JSON when
	// the commas of the default as written split it ("(optional, default
	// a,b)"), for the loader to report; "" otherwise.
	splitDefault string
}

// Output is a declared output (`name: text` under Ensures/Returns/Maintains,
// or a key of the Delegation's top-level return when none is declared).
type Output struct {
	Name        string
	Pos         diag.Pos
	Description string
	Type        string // declared as in Parameters (`n` (integer): ...), or ""
	// Optional is true for an output declared `(T, optional)`: it may be
	// null. A typed output that is not optional, and whose type does not
	// name null (`T | null`), must hold a value of its type.
	Optional bool
	Inferred bool // taken from the Delegation's return, not declared
	// Facet is true for a `####` facet of a Maintains: a member of the
	// truth that an Execution need not return (facets.go).
	Facet bool
}

// ValueType is the type o's value must be of: its declared type, with
// null added when it is optional ("" when it declares none).
func (o *Output) ValueType() string {
	if o.Optional && o.Type != "" {
		return o.Type + " | null"
	}
	return o.Type
}

// Shape is the Shape section.
type Shape struct {
	Self       string
	Delegates  []*Delegate
	Prohibited string
	Pos        diag.Pos
}

// Delegate is one `- \`slot\`: role` line under Shape's delegates. A range
// such as `stage_1..stage_N` has Range set and Slot naming the list-valued
// slot it was matched to ("" when none matched).
type Delegate struct {
	Name  string // as written
	Slot  string
	Range bool
	Role  string
	Pos   diag.Pos
}

// Delegation is the Delegation section: its prose and its fenced code.
type Delegation struct {
	Prose    string
	Info     string        // the fence's info string ("prose")
	Code     string        // the code lines joined by "\n"
	Lines    []syntax.Line // each code line with its .md offset
	Pos      diag.Pos      // the section heading
	FencePos diag.Pos      // the opening fence
	Program  *syntax.Program
	// Uses are the dependency declarations at the top of an Execution
	// (use.go).
	Uses []*Use
}
