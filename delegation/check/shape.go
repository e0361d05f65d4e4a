package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
)

// Shapes. The checker knows the shape of a value wherever the spec
// declares it or the program writes it: a callee's declared outputs and
// their types, the fields a slot's ensures names, the declared types of
// inputs and config, literals, and what flows from them through let,
// re-assignment, if/else and try/catch joins. A name assigned inside a
// loop body has no known shape in or after the loop (an iteration may see
// the value a later statement gave); branches that give a name different
// shapes leave it unknown, null joining any shape. Where the shape is
// unknown nothing is reported.
//
// With shapes the checker reports (shape_check.go): a member a value
// cannot have (lint/unknown-member, with the name meant), a return that
// lacks a declared output or gives one the return rule drops
// (check/return-shape), a fallback whose shape differs from the callee's
// (check/fallback-shape), and a value of another type than the one
// declared, or a comparison of values that never compare
// (check/type-mismatch).

// kind is the coarse type of a value.
type kind uint8

const (
	kUnknown kind = iota
	kNull
	kText
	kInteger
	kNumber
	kBool
	kList
	kObject
)

func (k kind) String() string {
	return [...]string{"a value", "null", "text", "an integer", "a number", "a boolean", "a list", "an object"}[k]
}

// typeKind is the kind a declared type names ("" and types it does not
// know are unknown).
func typeKind(t string) kind {
	if literalUnion(t) != nil {
		return kText
	}
	t = strings.ToLower(strings.TrimSpace(t))
	t = strings.TrimSuffix(t, "?")
	switch {
	case t == "":
		return kUnknown
	case strings.HasSuffix(t, "[]"), strings.HasPrefix(t, "list"), strings.HasPrefix(t, "array"):
		return kList
	}
	switch t {
	case "string", "str", "text":
		return kText
	case "integer", "int":
		return kInteger
	case "number", "float", "numeric":
		return kNumber
	case "boolean", "bool":
		return kBool
	case "object", "dict", "map", "record":
		return kObject
	}
	return kUnknown
}

// literalUnion is the strings a type of quoted words only allows
// (`"accept" | "reject"`), or nil for any other type.
func literalUnion(t string) []string {
	var out []string
	for p := range strings.SplitSeq(t, "|") {
		p = strings.TrimSpace(p)
		if len(p) < 2 || !(p[0] == '"' && p[len(p)-1] == '"' || p[0] == '\'' && p[len(p)-1] == '\'') || strings.ContainsAny(p[1:len(p)-1], "\"'\\") {
			return nil
		}
		out = append(out, p[1:len(p)-1])
	}
	return out
}

// typeName is the type word of a kind, as a type is declared.
func (k kind) typeName() string {
	return [...]string{"", "null", "string", "integer", "number", "boolean", "list", "object"}[k]
}

// fits reports whether a value of kind got may stand where want is
// declared: unknown and null fit anything, an integer is a number.
func fits(got, want kind) bool {
	return got == kUnknown || want == kUnknown || got == kNull || got == want || got == kInteger && want == kNumber
}

// valueShape is what the checker knows of a value. A nil *valueShape is
// an unknown value.
type valueShape struct {
	kind kind
	// fields are an object's known keys, each with its declared type.
	fields []Name
	// closed: the object holds exactly fields (a callee's outputs, a
	// literal); otherwise (a slot's ensures) only a member that
	// misspells a field is reported.
	closed bool
	// output is set when the value is the one output of a callee: v.OUT
	// reads the value itself.
	output string
	// from says what gave the value, for messages: "add-one returns",
	// "slot reviewer ensures".
	from string
	// callee names the callee or slot whose answer the value is.
	callee string
	// oneOf, for text of a declared type of quoted words (`"accept" |
	// "reject"`), holds those words: text the value never is.
	oneOf []string
	// elem, for a list, is the shape of every item where it is known (a
	// declared T[], a map stage's values, a literal's items): what a
	// reduce over the list starts from (stageValue).
	elem *valueShape
}

func (s *valueShape) field(name string) (Name, bool) {
	for _, f := range s.fields {
		if f.Name == name {
			return f, true
		}
	}
	return Name{}, false
}

func (s *valueShape) fieldNames() []string {
	out := make([]string, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.Name
	}
	return out
}

var (
	shapeNull    = &valueShape{kind: kNull}
	shapeTextV   = &valueShape{kind: kText}
	shapeInteger = &valueShape{kind: kInteger}
	shapeNumberV = &valueShape{kind: kNumber}
	shapeBoolV   = &valueShape{kind: kBool}
	shapeListV   = &valueShape{kind: kList}
	shapeObjectV = &valueShape{kind: kObject}
)

// kindShape is a shape of kind k with nothing more known.
func kindShape(k kind) *valueShape {
	switch k {
	case kNull:
		return shapeNull
	case kText:
		return shapeTextV
	case kInteger:
		return shapeInteger
	case kNumber:
		return shapeNumberV
	case kBool:
		return shapeBoolV
	case kList:
		return shapeListV
	case kObject:
		return shapeObjectV
	}
	return nil
}

// join is the shape of a value that is a on one path and b on another.
func join(a, b *valueShape) *valueShape {
	switch {
	case a == b:
		return a
	case a == nil || b == nil:
		return nil
	case a.kind == kNull:
		return b
	case b.kind == kNull:
		return a
	case a.kind != b.kind || a.output != b.output || a.closed != b.closed:
		return nil
	case a.kind == kObject && !sameFields(a.fields, b.fields):
		return nil
	case a.kind == kList && a.elem != b.elem:
		l := *a
		l.elem = join(a.elem, b.elem)
		return &l
	}
	return a
}

// unmarked is s without the mark of a one-output callee's value: a
// list's item or a stage's value is read as a value, never as a name
// bound to a call (v.OUT is v only for a name, rule 27a). Nil for a
// shape that then says nothing.
func unmarked(s *valueShape) *valueShape {
	if s == nil || s.output == "" {
		return s
	}
	u := *s
	u.output = ""
	if u.kind == kUnknown {
		return nil
	}
	return &u
}

// listOf is the shape of a list whose every item has shape elem.
func listOf(elem *valueShape) *valueShape {
	if elem == nil {
		return shapeListV
	}
	return &valueShape{kind: kList, elem: elem}
}

// sameFields reports whether two objects have the same keys, of the same
// types, in the same order.
func sameFields(a, b []Name) bool {
	return slices.EqualFunc(a, b, func(x, y Name) bool { return x.Name == y.Name && x.Type == y.Type })
}

// bshape is the shape of what binding b holds: its own, or for an input
// or config key the kind of its declared type.
func (c *checker) bshape(b *binding) *valueShape {
	if b == nil || b.forgot {
		return nil
	}
	if b.shape != nil || b.kind == kindLocal || b.kind == kindLoopVar {
		return b.shape
	}
	if words := literalUnion(b.typ); words != nil {
		return &valueShape{kind: kText, oneOf: words, from: "declared so"}
	}
	k := typeKind(b.typ)
	if k == kList {
		// integer[]: a list of integers
		t := strings.TrimSuffix(strings.TrimSpace(b.typ), "?")
		if e, ok := strings.CutSuffix(t, "[]"); ok && literalUnion(e) == nil {
			return listOf(kindShape(typeKind(e)))
		}
	}
	return kindShape(k)
}

// itemsShape is the shape every item of a list literal has, nil when
// one is unknown or they differ (or there is none).
func (c *checker) itemsShape(x *syntax.ListLit) *valueShape {
	var s *valueShape
	for i, e := range x.Elems {
		es := unmarked(c.shapeOf(e))
		if es == nil || es.kind == kUnknown {
			return nil
		}
		if i == 0 {
			s = es
		} else if s = join(s, es); s == nil {
			return nil
		}
	}
	return s
}

// callee is the declared callee named name, or nil.
func (c *checker) callee(name string) *Callee {
	for i := range c.d.Callees {
		if c.d.Callees[i].Name == name {
			return &c.d.Callees[i]
		}
	}
	return nil
}

// shapeOf is the shape of the value of e where it stands (nil: unknown).
// It reports nothing.
func (c *checker) shapeOf(e syntax.Expr) *valueShape {
	switch x := e.(type) {
	case *syntax.NullLit:
		return shapeNull
	case *syntax.StringLit:
		return shapeTextV
	case *syntax.NumberLit:
		if x.IsInt {
			return shapeInteger
		}
		return shapeNumberV
	case *syntax.BoolLit, *syntax.IsExpr:
		return shapeBoolV
	case *syntax.ListLit:
		return listOf(c.itemsShape(x))
	case *syntax.ForExpr:
		if !x.First { // parallel first gives the winner's value
			return shapeListV
		}
	case *syntax.PipeExpr:
		switch x.Op {
		case syntax.PipeReduce:
			return c.stageShapes[x]
		case syntax.PipeFilter:
			if in := c.shapeOf(x.Input()); in != nil && in.kind == kList {
				return listOf(in.elem) // some of the same items
			}
			return shapeListV
		}
		return listOf(c.stageShapes[x])
	case *syntax.RepeatExpr:
		if !x.First {
			return shapeListV
		}
	case *syntax.ObjectLit:
		s := &valueShape{kind: kObject, closed: true}
		for _, f := range x.Fields {
			if _, dup := s.field(f.Key); !dup {
				var t string
				if fs := c.shapeOf(f.Value); fs != nil {
					t = fs.kind.typeName()
				}
				s.fields = append(s.fields, Name{Name: f.Key, Type: t})
			}
		}
		return s
	case *syntax.Ident:
		return c.bshape(c.names[x.Name])
	case *syntax.MemberExpr:
		return memberShape(c.shapeOf(x.X), x.Name)
	case *syntax.UnaryExpr:
		if x.Op == syntax.NOT {
			return shapeBoolV
		}
	case *syntax.BinaryExpr:
		return c.binaryShape(x)
	case *syntax.CallExpr:
		return c.callShape(x)
	case *syntax.DoExpr:
		return c.doShapes[x]
	}
	return nil
}

func (c *checker) binaryShape(x *syntax.BinaryExpr) *valueShape {
	switch x.Op {
	case syntax.EQ, syntax.NE, syntax.LT, syntax.LE, syntax.GT, syntax.GE, syntax.MEETS, syntax.AND, syntax.OR:
		return shapeBoolV
	case syntax.PLUS:
		l, r := c.shapeOf(x.X), c.shapeOf(x.Y)
		switch {
		case l != nil && l.kind == kText || r != nil && r.kind == kText:
			return shapeTextV // text joined with the text form of the other
		case l == nil || r == nil:
			return nil
		case l.kind == kInteger && r.kind == kInteger:
			return shapeInteger
		case (l.kind == kInteger || l.kind == kNumber) && (r.kind == kInteger || r.kind == kNumber):
			return shapeNumberV
		case l.kind == kList && r.kind == kList:
			return shapeListV
		}
	}
	return nil
}

// memberShape is the shape of X.name where X has shape s.
func memberShape(s *valueShape, name string) *valueShape {
	if s == nil {
		return nil
	}
	if s.output != "" && name == s.output {
		return s
	}
	if name == "length" && (s.kind == kText || s.kind == kList || s.kind == kObject) {
		if _, own := s.field("length"); !own {
			return shapeInteger
		}
	}
	if s.kind == kNull {
		return shapeNull
	}
	if s.kind == kObject {
		if f, ok := s.field(name); ok {
			if len(f.Members) > 0 {
				return &valueShape{kind: kObject, closed: !f.Open, fields: f.Members, from: f.From}
			}
			if words := literalUnion(f.Type); words != nil {
				from := s.from
				if f.From != "" {
					from = f.From
				}
				return &valueShape{kind: kText, oneOf: words, from: from}
			}
			return kindShape(typeKind(f.Type))
		}
	}
	return nil
}

// callShape is the shape of a call's value: a declared callee's outputs
// (the output itself when it has one), or the fields its ensures names
// for a slot.
func (c *checker) callShape(x *syntax.CallExpr) *valueShape {
	if x.Session != nil {
		return shapeTextV // a session's answer is text (session.go)
	}
	id, ok := x.Target.(*syntax.Ident)
	if !ok {
		return nil
	}
	if node, ok := worldReadNode(x); ok {
		return c.readShape(node)
	}
	if b := c.names[id.Name]; b == nil || b.kind != kindSlot {
		return nil // a loop variable or local of that name shadows it
	}
	if ce := c.callee(id.Name); ce != nil {
		return calleeShape(ce)
	}
	if s := c.slots[id.Name]; s != nil {
		return c.slotShape(s)
	}
	return nil
}

// worldReadNode is the node a read_world_model("NODE") call names, as
// written; ok is false for any other expression.
func worldReadNode(x *syntax.CallExpr) (node string, ok bool) {
	id, isIdent := x.Target.(*syntax.Ident)
	if !isIdent || id.Name != syntax.WorldRead || len(x.Args) != 1 || x.Args[0].Key != "node" {
		return "", false
	}
	s, isString := x.Args[0].Value.(*syntax.StringLit)
	if !isString || len(s.Parts) > 0 {
		return "", false
	}
	return s.Value, true
}

// readShape is the shape of read_world_model(node): an object of the
// members Decls.Reads gives it, nil when they are not known.
func (c *checker) readShape(node string) *valueShape {
	for _, r := range c.d.Reads {
		if r.Node == node && len(r.Members) > 0 {
			return &valueShape{kind: kObject, closed: !r.Open, fields: r.Members, from: r.From}
		}
	}
	return nil
}

// slotShape is the shape of the answer of slot s: an object of the
// fields its ensures names (nil when it names none), read once per Check.
func (c *checker) slotShape(s *Slot) *valueShape {
	for _, e := range c.ensured {
		if e.slot == s {
			return e.shape
		}
	}
	var sh *valueShape
	if f := ensuresFields(s.Ensures); len(f) > 0 {
		sh = &valueShape{kind: kObject, fields: f, from: "slot " + s.Name + " ensures", callee: s.Name}
	}
	c.ensured = append(c.ensured, slotFields{s, sh})
	return sh
}

// slotFields is a slot and the shape of its answer.
type slotFields struct {
	slot  *Slot
	shape *valueShape
}

// calleeShape is the shape of the value of a call of ce: its one output,
// or the object of its outputs. A callee that declares none, or that
// has facets (a truth may hold more), gives an unknown value.
func calleeShape(ce *Callee) *valueShape {
	if len(ce.Outputs) == 0 {
		return nil
	}
	if len(ce.Outputs) == 1 && !ce.Whole {
		o := ce.Outputs[0]
		return &valueShape{kind: typeKind(o.Type), output: o.Name, from: ce.Name + " returns", callee: ce.Name, oneOf: literalUnion(o.Type)}
	}
	s := &valueShape{kind: kObject, closed: true, fields: ce.Outputs, from: ce.Name + " returns", callee: ce.Name}
	for _, o := range ce.Outputs {
		if o.Part {
			s.closed = false
		}
	}
	return s
}

// ensuresFields reads the fields a slot's ensures names clearly: an
// object written in braces (`{approved: boolean, notes: string}`, `{a,
// b}`), or names in code spans followed by their type in parentheses
// ("returns `approved` (boolean) and `notes` (string)"). Anything else
// names no fields.
//
// The text is read as the run reads it (shape.Fields, which checks each
// answer against it): braces as runBraces reads them, else only their
// names (a misspelt member is still reported, no type is believed); a
// span followed by a type the run checks (knownType) is a field, any
// other span a mention, passed over, and so is a backtick left open; a
// name given twice makes the text prose. Lint so never reads a field of
// a type the run does not check.
func ensuresFields(text string) []Name {
	if !strings.ContainsAny(text, "{`") {
		return nil
	}
	if fs, ok := runBraces(text); ok {
		return fs
	}
	if i := strings.IndexByte(text, '{'); i >= 0 {
		if j := strings.IndexByte(text[i:], '}'); j > 0 {
			if fs := braceFields(text[i+1 : i+j]); fs != nil {
				// Braces the run does not read as a declaration (no
				// type it checks, quoted names, more than one pair):
				// their names, for a misspelt member, but no type.
				for k := range fs {
					fs[k].Type = ""
				}
				return fs
			}
		}
	}
	var out []Name
	for rest := text; ; {
		i := strings.IndexByte(rest, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], '`')
		if j < 0 {
			break
		}
		name, after := rest[i+1:i+1+j], strings.TrimLeft(rest[i+2+j:], " ")
		rest = rest[i+2+j:]
		if !isFieldName(name) || !strings.HasPrefix(after, "(") {
			continue
		}
		end := strings.IndexByte(after, ')')
		if end < 0 {
			continue
		}
		if t := strings.TrimSpace(after[1:end]); knownType(t) {
			for _, f := range out {
				if f.Name == name {
					return nil
				}
			}
			out = append(out, Name{Name: name, Type: t})
		}
	}
	return out
}

// knownType reports whether t is a type the run checks an answer's field
// against (shape.Known, over the type names of package spec: a name, an
// alias of one that is no list, T[] of either, a quoted word, or a union
// of them). The table is spec's, which this package cannot import; a test
// holds the two to one answer.
func knownType(t string) bool {
	parts := strings.Split(t, "|")
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if literalUnion(p) != nil {
			continue
		}
		for strings.HasSuffix(p, "[]") {
			p = strings.TrimSuffix(p, "[]")
		}
		switch strings.ToLower(p) {
		case "string", "integer", "number", "boolean", "object", "any", "duration", "null",
			"int", "long", "float", "double", "bool", "str", "text", "map", "dict":
		default:
			return false
		}
	}
	return true
}

// runBraces reads the one pair of braces of text as the run does
// (shape.Fields): entries `name` or `name: type`, every type one it
// checks (knownType), at least one typed, no name twice. ok is false
// when the run declares nothing by them.
func runBraces(text string) (_ []Name, ok bool) {
	if strings.Count(text, "{") != 1 || strings.Count(text, "}") != 1 {
		return nil, false
	}
	open, end := strings.IndexByte(text, '{'), strings.IndexByte(text, '}')
	if end < open {
		return nil, false
	}
	var out []Name
	typed := false
	for entry := range strings.SplitSeq(text[open+1:end], ",") {
		name, typ, hasType := strings.Cut(entry, ":")
		name, typ = strings.TrimSpace(name), strings.TrimSpace(typ)
		if !FieldName(name) || hasType && !knownType(typ) {
			return nil, false
		}
		for _, f := range out {
			if f.Name == name {
				return nil, false
			}
		}
		typed = typed || hasType
		out = append(out, Name{Name: name, Type: typ})
	}
	return out, typed
}

// FieldName reports whether s is a field name as the run reads one: an
// ASCII letter or _ first, then letters, digits, _ and -. Package shape
// reads the names of `{a: T}` shapes by the same rule.
func FieldName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '-'):
		default:
			return false
		}
	}
	return true
}

// braceFields reads `a: type, b: type` or `a, b`; nil when any part is
// not a field name (then the braces are prose, not an object).
func braceFields(s string) []Name {
	n := 0
	for part := range splitFields(s) {
		name, _, _ := strings.Cut(part, ":")
		if !isFieldName(strings.Trim(strings.TrimSpace(name), `"'`)) {
			return nil
		}
		n++
	}
	out := make([]Name, 0, n)
	for part := range splitFields(s) {
		name, t, _ := strings.Cut(part, ":")
		t = strings.TrimSpace(t)
		if typeKind(t) == kUnknown {
			t = ""
		}
		out = append(out, Name{Name: strings.Trim(strings.TrimSpace(name), `"'`), Type: t})
	}
	return out
}

// splitFields yields the non-blank parts of s between commas, semicolons
// and newlines.
func splitFields(s string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for s != "" {
			i := strings.IndexAny(s, ",;\n")
			part := s
			if i >= 0 {
				part, s = s[:i], s[i+1:]
			} else {
				s = ""
			}
			if strings.TrimSpace(part) != "" && !yield(part) {
				return
			}
		}
	}
}

func isFieldName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

// describeShape says what a value of shape s is, for messages.
func describeShape(s *valueShape) string {
	if s.kind == kObject && s.closed && len(s.fields) > 0 {
		return fmt.Sprintf("an object of %s", strings.Join(s.fieldNames(), ", "))
	}
	return s.kind.String()
}

// setShape records that name now holds a value of shape s: a new binding
// (so that a branch's change is undone with the branch), unless the name
// is outside the parallel body being checked (an error reported apart).
func (c *checker) setShape(name string, s *valueShape) {
	b := c.names[name]
	if b == nil || b.level < c.level || b.shape == s {
		return
	}
	nb := *b
	nb.shape, nb.forgot = s, s == nil && b.kind != kindLocal && b.kind != kindLoopVar
	c.set(name, c.newBinding(nb))
}

// forgetAssigned forgets the shape of every bound name that body assigns
// (or re-lets): in a loop, an iteration may see the value a later
// statement of the previous one gave.
func (c *checker) forgetAssigned(body []syntax.Stmt) {
	for _, st := range body {
		syntax.Walk(st, func(n syntax.Node) bool {
			var id *syntax.Ident
			switch s := n.(type) {
			case *syntax.AssignStmt:
				id, _ = s.LHS.(*syntax.Ident)
			case *syntax.LetStmt:
				id = s.Name
			}
			if id != nil {
				if b := c.names[id.Name]; b != nil && b.level == c.level && c.bshape(b) != nil {
					nb := *b
					nb.shape, nb.forgot = nil, true
					c.set(id.Name, c.newBinding(nb))
				}
			}
			return true
		})
	}
}
