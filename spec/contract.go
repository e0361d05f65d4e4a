package spec

import (
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
)

// Contract Markdown (OpenProse 0.15) support.
//
// A file is read by the Contract Markdown rules when its kind is one the
// format introduced (function, responsibility, gateway, test), or when it
// is a pattern whose front matter version is 0.15 or later in the 0.x
// line (the project's own library numbers its patterns 1.x and keeps the
// earlier rules). Under these rules:
//
//   - a `##` heading opens an inline node that owns the `###` sections up
//     to the next `##` (unless it names a known section and no `###`
//     section came before it: a file written all in `##` sections);
//   - the canonical 0.15 sections are known, an unknown section is plain
//     documentation (the lint layer suggests the canonical name it is
//     close to);
//   - a function's Parameters and a responsibility's Requires are contract
//     items `- \`name\`: text` or `- name: text`, read as inputs;
//   - front matter that names the file stands for the title, and the name
//     need not match the file name.

// contractKinds are the kinds Contract Markdown introduced or reshaped.
var contractKinds = map[Kind]bool{KindFunction: true, KindResponsibility: true, KindGateway: true, KindTest: true}

// contractKeys are the canonical 0.15 sections beyond the earlier ones.
var contractKeys = map[string]string{
	"goal":        "goal",
	"continuity":  "continuity",
	"strategies":  "strategies",
	"environment": "environment",
	"runtime":     "runtime",
	"skills":      "skills",
	"tools":       "tools",
	"fixtures":    "fixtures",
	"expects":     "expects",
	"expects not": "expects not",
	"schedule":    "schedule",
	"receives":    "receives",
	"emits":       "emits",
	"payload":     "payload",
	"patterns":    "patterns",
}

// isContract reports whether a front matter's kind and version select the
// Contract Markdown rules.
func isContract(kind Kind, version string) bool {
	if contractKinds[kind] {
		return true
	}
	major, rest, ok := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	if !ok || major != "0" {
		return false
	}
	minor, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(minor)
	return err == nil && n >= 15
}

// contractKey looks a heading up among the 0.15 sections, case-insensitively.
func contractKey(heading string) (string, bool) {
	var buf [24]byte
	if f, ok := foldHeading(buf[:], heading); ok {
		k, ok := contractKeys[string(f)]
		return k, ok
	}
	k, ok := contractKeys[strings.ToLower(strings.Join(strings.Fields(heading), " "))]
	return k, ok
}

// ErrorDecl is one declared error of a `### Errors` section.
type ErrorDecl struct {
	Name        string
	Pos         diag.Pos
	Description string
}

// PatternInstance is one entry of a `### Patterns` YAML list: a named
// instance of a pattern with its slots bound to nodes.
type PatternInstance struct {
	Name    string
	Pos     diag.Pos // the entry's name value
	Pattern string   // the pattern as written ("worker-critic", "std/patterns/refine")
	// With binds the pattern's slots, in the order written.
	With   []*InstanceSlot
	Config map[string]any
	// ConfigPos holds the position of each config key.
	ConfigPos map[string]diag.Pos
}

// InstanceSlot is one `slot: target` line under a pattern instance's with:.
type InstanceSlot struct {
	Slot   string
	Target string // a node, function or std path; "" for a nested declaration
	Pos    diag.Pos
	// Nested is the pattern instance declared in place as the slot's
	// value (nil for a Target).
	Nested *PatternInstance
}

// Callee is the target of one slot of the instance, or "".
func (p *PatternInstance) Callee(slot string) string {
	for _, w := range p.With {
		if w.Slot == slot {
			return w.Target
		}
	}
	return ""
}

// NestedInstance is the pattern instance declared in place as the value
// of slot, or nil.
func (p *PatternInstance) NestedInstance(slot string) *PatternInstance {
	for _, w := range p.With {
		if w.Slot == slot {
			return w.Nested
		}
	}
	return nil
}

// Node returns the inline node called name, or nil.
func (s *Spec) Node(name string) *Spec {
	if s.nodeIndex != nil && len(s.Nodes) == s.nodeCount {
		return s.nodeIndex[name]
	}
	for _, n := range s.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// Instance returns the pattern instance called name, or nil.
func (s *Spec) Instance(name string) *PatternInstance {
	for _, p := range s.Patterns {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Root is the file's own node: s itself, or the spec an inline node
// belongs to.
func (s *Spec) Root() *Spec {
	for s.Parent != nil {
		s = s.Parent
	}
	return s
}

// Body is the program a run of the spec executes: the Delegation of a
// pattern, the Execution of a function or responsibility; nil when it has
// none that parsed.
func (s *Spec) Body() *Delegation {
	if s.Delegation != nil && s.Delegation.Program != nil {
		return s.Delegation
	}
	if s.Execution != nil && s.Execution.Program != nil {
		return s.Execution
	}
	return nil
}

// Renders reports whether a run of the spec is a render: a function or a
// responsibility without a runnable Execution, answered by one model
// request given its contract.
func (s *Spec) Renders() bool {
	switch s.Kind {
	case KindFunction, KindResponsibility:
		return s.Execution == nil || s.Execution.Program == nil
	}
	return false
}

// Error returns the declared error called name, or nil.
func (s *Spec) Error(name string) *ErrorDecl {
	for _, e := range s.Errors {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// nodeKind infers the kind of an inline node from its sections: Parameters
// or Returns make a function, Requires, Maintains, Continuity or Goal a
// responsibility, Slots or Delegation a pattern; otherwise the file's own
// kind when that is a function or responsibility, else function.
func nodeKind(n *Spec, parentKind Kind) Kind {
	has := map[string]bool{}
	for _, sec := range n.Sections {
		has[strings.ToLower(sec.Heading)] = true
	}
	switch {
	case has["parameters"] || has["returns"]:
		return KindFunction
	case has["requires"] || has["maintains"] || has["continuity"] || has["goal"]:
		return KindResponsibility
	case has["slots"] || has["delegation"]:
		return KindPattern
	case parentKind == KindResponsibility:
		return parentKind
	}
	return KindFunction
}

// isNodeHeading reports whether h opens an inline node: a `##` heading of
// a Contract Markdown file, unless it names a known section in a file
// whose sections so far are `##` ones too.
func (l *loader) isNodeHeading(h *ast.Heading, secLevel int) bool {
	if !l.s.Contract || h.Level != 2 || h.Lines().Len() == 0 {
		return false
	}
	heading := l.joinLines(h, " ")
	_, known := sectionKey(heading)
	if !known {
		_, known = contractKey(heading)
	}
	return !known || secLevel == 3
}

// newNode starts the loader of the inline node h opens.
func (l *loader) newNode(h *ast.Heading) *loader {
	pos := l.headingPos(h)
	name := strings.TrimSpace(strings.Trim(l.joinLines(h, " "), "`"))
	n := &Spec{File: l.f, Name: name, Title: name, Parent: l.s, Pos: diag.Pos(pos), Contract: true, Kind: l.s.Kind, Version: l.s.Version}
	nl := &loader{f: l.f, src: l.src, text: l.text, s: n, fmEnd: l.fmEnd, root: l, kindPos: diag.Pos(pos), namePos: diag.Pos(pos)}
	l.heads = append(l.heads, pos)
	l.nodes = append(l.nodes, nl)
	if l.nodeNames == nil {
		l.nodeNames = map[string]*Spec{}
	}
	first := l.nodeNames[name] // l.s.Node(name), without a scan per node
	if first == nil {
		l.nodeNames[name] = n
	}
	if first != nil {
		l.warnf(pos, CodeDuplicateNode, "node %q is declared twice in this file (first on line %d); calls reach the first", name, l.f.Position(first.Pos).Line)
	}
	l.s.Nodes = append(l.s.Nodes, n)
	return nl
}

// canonicalSections are the headings nearSection suggests.
var canonicalSections = []string{
	"Description", "Goal", "Requires", "Maintains", "Parameters", "Returns", "Continuity", "Errors",
	"Invariants", "Strategies", "Environment", "Runtime", "Skills", "Tools", "Shape", "Execution",
	"Fixtures", "Expects", "Expects Not", "Slots", "Config", "Delegation", "Schedule", "Receives",
	"Emits", "Payload", "Patterns", "Metadata", "Notes",
}

// nearSection returns the canonical section a heading is a likely slip
// for ("Slot" for "Slots", "Paramters"), or "".
func nearSection(heading string) string {
	h := strings.ToLower(strings.TrimSpace(heading))
	if len(h) < 4 {
		return ""
	}
	for i, c := range canonicalSections {
		lc := lowerSections[i]
		if len(lc) == len(h)+1 && lc[len(h)] == 's' && lc[:len(h)] == h ||
			strings.HasSuffix(lc, "ies") && len(h) == len(lc)-2 && h[len(h)-1] == 'y' && h[:len(h)-1] == lc[:len(lc)-3] {
			return c // a singular of a plural section name
		}
	}
	return sectionMatcher.Closest(h, canonicalSections)
}

// sectionMatcher finds a misspelt section: one slip in a short name, two
// in a name of seven letters or more, ignoring case.
var sectionMatcher = didyoumean.Matcher{
	Fold: strings.ToLower,
	Limit: func(_, section string) int {
		if len(section) >= 7 {
			return 2
		}
		return 1
	},
}

// lowerSections are canonicalSections lowered.
var lowerSections = func() []string {
	out := make([]string, len(canonicalSections))
	for i, c := range canonicalSections {
		out[i] = strings.ToLower(c)
	}
	return out
}()

// contractSections reads the 0.15 sections: Goal, Continuity, Strategies,
// Errors, Patterns and Execution (the Requires/Parameters items are read
// with the other sections).
func (l *loader) contractSections() {
	if !l.s.Contract {
		return
	}
	seen := map[string]bool{}
	for _, sec := range l.sections {
		if seen[sec.Key] {
			continue // reported by readSections
		}
		seen[sec.Key] = true
		switch sec.Key {
		case "goal":
			l.s.Goal = strings.TrimSpace(sec.Body)
		case "continuity":
			l.s.Continuity = l.bulletTexts(sec)
		case "strategies":
			l.s.Strategies = l.bulletTexts(sec)
		case "environment":
			for _, li := range items(sec) {
				if t, _, ok := l.itemText(li); ok {
					if name, _, _, ok := keyed(t); ok {
						l.s.Environment = append(l.s.Environment, name)
					} else if name := strings.Trim(t, "`"); isIdent(name) {
						l.s.Environment = append(l.s.Environment, name)
					}
				}
			}
		case "requires":
			if l.s.Kind == KindGateway {
				l.gatewayRequires(sec)
			}
		case "errors":
			l.errorDecls(sec)
		case "patterns":
			l.patternInstances(sec)
		}
	}
}

// gatewayRequires reports the ### Requires (or ### Parameters) of a
// gateway. Decided, as upstream's Contract Markdown has it: a gateway has
// no ### Requires, since its input arrives from outside the graph as
// events. So the world graph does not wire its items (package graph), and
// since they were not read silently either (its render would be given no
// truth it names, and no change of one would wake it, while the author
// meant both), they are an error naming the two ways to write what was
// meant.
func (l *loader) gatewayRequires(sec *section) {
	l.errorf(int(sec.Pos), CodeGatewayRequires, "### %s does not apply to a gateway, and prose does not wire it: a gateway's input arrives from outside as events (### Receives), so its render would be given no truth the items name, and no change of one would wake it; read the gateway and those truths in the ### Requires of a responsibility, or make this node kind: responsibility", sec.Heading)
}

// errorDecls reads `- \`name\`: text` bullets of Errors.
func (l *loader) errorDecls(sec *section) {
	for _, li := range items(sec) {
		t, pos, ok := l.itemText(li)
		if !ok {
			continue
		}
		name, desc, _, ok := keyed(t)
		if !ok || l.s.Error(name) != nil {
			continue
		}
		l.s.Errors = append(l.s.Errors, &ErrorDecl{Name: name, Pos: diag.Pos(pos + strings.Index(t, name)), Description: desc})
	}
}

// contractInputs reads the contract items of Parameters or Requires:
// `- \`name\`: text` or `- name: text`. A text starting with the type
// `run` or `run[]` followed by a dash gives the input that type. A
// `####` facet-need of Requires is an input too (facets.go).
func (l *loader) contractInputs(sec *section) {
	head, facets := l.facets(sec)
	defer func() {
		for _, f := range facets {
			if l.input(f.name) == nil {
				l.s.Inputs = append(l.s.Inputs, &Input{Name: f.name, Pos: diag.Pos(f.pos), Description: f.desc})
			}
		}
	}()
	for _, li := range headItems(head) {
		t, pos, ok := l.itemText(li)
		if !ok {
			continue
		}
		l.contractInput(t, pos)
	}
}

// contractInput reads one contract item t of Parameters or Requires, at
// offset pos, as an input.
func (l *loader) contractInput(t string, pos int) {
	it, ok := readContractItem(t)
	if !ok || !strings.HasPrefix(t, "`") && strings.ToLower(it.name) != it.name {
		if paren, at, unread := unreadType(t); !ok && unread {
			name, _, _ := strings.Cut(t[1:], "`")
			l.warnf(pos+at, CodeUnreadType, "input %q: %s is not read as a type, as it holds more than a type and its flags (optional, default: X): %s is untyped, so nothing checks its values; %s",
				name, paren, name, unreadTypeFix(paren))
		}
		l.proseInput(t, pos)
		return
	}
	if it.badType != "" {
		l.errorf(pos+it.typeAt, CodeInputSyntax, "input %q: %s", it.name, unknownTypeMessage(it.badType, it.suggest))
	}
	var typed *Input
	if typ, comment, ok := cutTypeDash(it.desc); ok && it.typ == "" && isTypeName(strings.TrimSpace(typ)) {
		// `- \`topic\`: string -- what to write about`, the inputs
		// block's form, its comment's (optional, default X) read; also
		// with a dash, as upstream writes `- \`subject\`: run — ...`
		if canon, part, _ := canonicalType(strings.TrimSpace(typ)); part == "" {
			typed = &Input{Type: canon}
			typed.comment(strings.TrimSpace(comment))
		}
	}
	in := &Input{Name: it.name, Pos: diag.Pos(pos + it.at), Description: it.desc, Type: it.typ,
		Optional: it.optional, HasDefault: it.hasDefault, DefaultRaw: it.defaultRaw}
	if typed != nil {
		in.Type, in.Description, in.Optional, in.HasDefault, in.DefaultRaw = typed.Type, typed.Description, typed.Optional, typed.HasDefault, typed.DefaultRaw
		if typed.splitDefault != "" {
			l.errorf(int(in.Pos), CodeBadDefault, "input %q: the commas of its default split the flags, so its default would be %s alone: write the default as JSON, (%s)", in.Name, clip(in.DefaultRaw), typed.splitDefault)
			in.HasDefault, in.DefaultRaw = false, ""
		}
	}
	l.itemDefault(in)
	for _, typ := range [...]string{"run[]", "run"} {
		if rest, ok := strings.CutPrefix(in.Description, typ+" "); ok && in.Type == "" {
			if r := strings.TrimLeft(rest, " "); strings.HasPrefix(r, "—") || strings.HasPrefix(r, "--") || strings.HasPrefix(r, "-") {
				in.Type, in.Description = typ, strings.TrimSpace(strings.TrimLeft(r, "—-– "))
			}
			break
		}
	}
	low := strings.ToLower(in.Description)
	in.Optional = in.Optional || strings.HasPrefix(low, "optional") || strings.Contains(low, "(optional") || strings.Contains(low, ", optional")
	l.addInput(in)
}

// cutTypeDash splits an item's description at the first " -- ", " — "
// or " – ": what is before it may be the item's type (`number[] — the
// scores`), as upstream writes a run-typed item.
func cutTypeDash(desc string) (before, after string, found bool) {
	at, n := -1, 0
	for _, sep := range [...]string{" -- ", " — ", " – "} {
		if i := strings.Index(desc, sep); i >= 0 && (at < 0 || i < at) {
			at, n = i, len(sep)
		}
	}
	if at < 0 {
		return desc, "", false
	}
	return desc[:at], desc[at+n:], true
}

// itemDefault decodes the default of a contract item: one written in its
// flags (`(integer, default: 3)`), else one its description states
// ("Defaults to `true`", "default: fast", "(default 3)"), else a
// description that is a literal alone (`- \`rounds\`: 3`). An item with
// no declared type takes the type its default implies (inferType).
// "none" states no default.
func (l *loader) itemDefault(in *Input) {
	if !in.HasDefault {
		if raw, ok := defaultInText(in.Description); ok {
			in.HasDefault, in.DefaultRaw = true, raw
		} else if lit := strings.TrimSpace(in.Description); isLiteral(lit) {
			in.HasDefault, in.DefaultRaw = true, lit
		}
		if in.HasDefault && isNone(in.DefaultRaw) {
			in.HasDefault, in.DefaultRaw = false, ""
		}
	}
	if !in.HasDefault {
		return
	}
	in.Optional = true
	var ok bool
	in.Default, ok = decodeValue(in.Type, in.DefaultRaw)
	if !ok && in.Type != "" {
		// decided: as for a config key's, the run refuses such a default
		// rather than give the input the text (1/2 for a number)
		l.errorf(int(in.Pos), CodeBadDefault, "default %s of input %q is not a valid %s, so a run that does not give it stops: write %s", clip(in.DefaultRaw), in.Name, in.Type, TypeArticle(in.Type))
	}
	if t := inferType(in.Default, in.DefaultRaw); in.Type == "" && t != "" {
		in.Type, in.TypeInferred = t, true
	}
}

// addInput adds in, unless an input of its name is declared already.
func (l *loader) addInput(in *Input) {
	if first := l.input(in.Name); first != nil {
		l.errorf(int(in.Pos), CodeDuplicateInput, "input %q is declared twice (first on line %d)", in.Name, l.f.Position(first.Pos).Line)
		return
	}
	l.s.Inputs = append(l.s.Inputs, in)
}

// proseInput reads an item of Parameters or Requires written as a
// sentence (upstream: "- the current `ContractSourceLedger` (atomic) from
// **Contract Source Files**"). Decided: the first backticked identifier of
// the sentence is the input's name, and the sentence its description
// (Input.FromSentence); a sentence with no such name is kept whole in
// Spec.Needs, which a render states to the model, since dropping it would
// leave the node rendered with nothing to say what it works from.
func (l *loader) proseInput(t string, pos int) {
	for rest, off := t, 0; ; {
		i := strings.IndexByte(rest, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], '`')
		if j < 0 {
			break
		}
		name := rest[i+1 : i+1+j]
		if isIdent(strings.ReplaceAll(name, "-", "_")) && l.input(name) == nil {
			l.s.Inputs = append(l.s.Inputs, &Input{Name: name, Pos: diag.Pos(pos + off + i + 1), Description: t, FromSentence: true})
			return
		}
		off += i + j + 2
		rest = rest[i+j+2:]
	}
	if t = strings.TrimSpace(t); t != "" && !isNoneProse(t) {
		l.s.Needs = append(l.s.Needs, t)
	}
}

func (l *loader) input(name string) *Input {
	for _, in := range l.s.Inputs {
		if in.Name == name {
			return in
		}
	}
	return nil
}
