package spec

import (
	"regexp"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"

	"github.com/proselang/prose/claim/form"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// Reading ### Maintains (OpenProse 0.15).
//
// A responsibility's or gateway's ### Maintains declares one truth: a JSON
// object. Decided:
//
//   - its contract items (`- \`name\`: text`, also `- \`name\` — text` and
//     `- \`a\` / \`b\` — text`) are the truth's fields, each an Output;
//   - a `#### name` heading is a facet, a named part of the same truth:
//     the member `name` of the object, an Output marked Facet (so a
//     render answers it and a test can judge it, but an Execution need not
//     return it: a facet may be absent from the truth, its value null);
//   - bullets that start with `postcondition`, `freshness`, `material`,
//     `immaterial` or `each ... has`/`carries` are not fields: they are the
//     canonicalization spec and the postconditions, kept in Spec.Truth;
//   - a postcondition is such a bullet, a sentence starting
//     "Postcondition:" (bold or not), or an item of the list that follows a
//     paragraph that speaks of postconditions and ends with a colon, or
//     a bullet that is a backticked name with, after it and no separator,
//     a claim in a form prose decides (`total` is at least 0: bareClaim);
//   - the immaterial fields are the backticked names of an `immaterial`
//     bullet, of a prose sentence that calls them immaterial, and the
//     fields whose own description starts "an immaterial ..." or
//     says they are immaterial; under a facet they are that facet's.
//
// Lists under a facet describe that facet, not more fields. A facet-need
// `####` under ### Requires is an input named like it.

// Truth is what a ### Maintains declares beyond its fields: the facets,
// the canonicalization spec and the postconditions.
type Truth struct {
	Pos diag.Pos // the Maintains heading
	// Facets are the `####` parts, in order.
	Facets []*Facet
	// Immaterial names the fields excluded from every fingerprint.
	Immaterial []string
	// Postconditions are the conditions a new truth must satisfy before
	// it is committed.
	Postconditions []Claim
	// Freshness, Material and Each hold the texts of the `freshness:`,
	// `material:` and `each X has:` bullets, as written.
	Freshness []string
	Material  []string
	Each      []string
	// Names are the backticked world-model names of the prose (``The
	// `CountSummary` world-model``), which a subscriber may require.
	Names []string
}

// Facet is one `#### name` part of a maintained truth.
type Facet struct {
	Name        string
	Pos         diag.Pos
	Description string
	// Immaterial names the fields of this facet excluded from its
	// fingerprint.
	Immaterial []string
}

// Claim is one postcondition, with the position of its text.
type Claim struct {
	Text string
	Pos  diag.Pos
}

// Facet returns the facet called name, or nil.
func (t *Truth) Facet(name string) *Facet {
	if t == nil {
		return nil
	}
	for _, f := range t.Facets {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// A facet is a `#### name` sub-heading inside a Contract Markdown
// ### Maintains (a named part of the maintained truth) or ### Requires (a
// need for such a part). Its blocks are the paragraphs and lists under it.
type facet struct {
	name, desc string
	pos        int
	blocks     []ast.Node
}

// facetName reports whether a heading's text names a facet: one word of
// letters, digits, `_`, `-`, `:` and `.` that starts with a letter
// (`funding`, `product-launches`, `email:nl1`).
func facetName(s string) bool {
	if s == "" || !('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isIdentByte(c) && c != '-' && c != ':' && c != '.' {
			return false
		}
	}
	return true
}

// facets splits sec into the blocks before its first `####` facet
// heading and its facets. Only Contract Markdown Maintains and Requires
// have facets; for any other section head is every block.
func (l *loader) facets(sec *section) (head []ast.Node, fs []facet) {
	if !l.s.Contract || !headingIs(sec.Heading, "maintains") && !headingIs(sec.Heading, "requires") {
		return sec.blocks, nil
	}
	cur := -1
	for _, b := range sec.blocks {
		if hd, ok := b.(*ast.Heading); ok && hd.Level == sec.level+1 {
			name := strings.Trim(l.joinLines(hd, " "), "`")
			if facetName(name) {
				start := hd.Lines().At(0).Start
				fs = append(fs, facet{name: name, pos: start + strings.Index(l.text[start:], name)})
				cur = len(fs) - 1
				continue
			}
		}
		if cur < 0 {
			head = append(head, b)
			continue
		}
		fs[cur].blocks = append(fs[cur].blocks, b)
		if p, ok := b.(*ast.Paragraph); ok {
			fs[cur].desc = strings.TrimSpace(fs[cur].desc + " " + l.joinLines(p, " "))
		}
	}
	return head, fs
}

// headItems returns the top-level list items among blocks.
func headItems(blocks []ast.Node) []*ast.ListItem {
	var out []*ast.ListItem
	for _, b := range blocks {
		if list, ok := b.(*ast.List); ok {
			out = appendItems(out, list)
		}
	}
	return out
}

// isMaintains reports whether sec is a Contract Markdown ### Maintains.
func (l *loader) isMaintains(sec *section) bool {
	if !l.s.Contract {
		return false
	}
	var buf [24]byte
	if f, ok := foldHeading(buf[:], sec.Heading); ok {
		return string(f) == "maintains"
	}
	return strings.EqualFold(strings.Join(strings.Fields(sec.Heading), " "), "maintains")
}

// maintains reads a Contract Markdown ### Maintains: its fields and
// facets as Outputs, the rest into Spec.Truth.
func (l *loader) maintains(sec *section) {
	head, facets := l.facets(sec)
	t := &Truth{Pos: sec.Pos}
	l.s.Truth = t
	r := truthReader{l: l, t: t}
	for _, b := range head {
		r.block(b, nil, true)
	}
	for _, f := range facets {
		fc := &Facet{Name: f.name, Pos: diag.Pos(f.pos), Description: f.desc}
		t.Facets = append(t.Facets, fc)
		r.listIsClaims = false
		for _, b := range f.blocks {
			r.block(b, fc, false)
		}
	}
	for _, f := range t.Facets {
		if l.output(f.Name) == nil {
			l.s.Outputs = append(l.s.Outputs, &Output{Name: f.Name, Pos: f.Pos, Description: f.Description, Facet: true})
		}
	}
}

// truthReader walks the blocks of a Maintains.
type truthReader struct {
	l *loader
	t *Truth
	// listIsClaims is set by a paragraph that introduces postconditions
	// ("... these postconditions before signing:"), for the list after it.
	listIsClaims bool
}

// block reads one block of the Maintains head (fields allowed) or of the
// facet fc.
func (r *truthReader) block(b ast.Node, fc *Facet, fields bool) {
	switch b := b.(type) {
	case *ast.Paragraph:
		text := r.l.joinLines(b, " ")
		low := strings.ToLower(text)
		r.prose(text, low, b.Lines().At(0).Start, fc)
		r.listIsClaims = strings.Contains(low, "postcondition") && strings.HasSuffix(strings.TrimRight(text, "* "), ":")
	case *ast.List:
		claims := r.listIsClaims
		r.listIsClaims = false
		for _, li := range appendItems(nil, b) {
			text, pos, ok := r.l.itemText(li)
			if !ok {
				continue
			}
			if claims {
				r.t.Postconditions = append(r.t.Postconditions, Claim{Text: text, Pos: diag.Pos(pos)})
				continue
			}
			if r.canonical(text, pos, fc) || !fields {
				continue
			}
			if bareClaim(text) {
				r.t.Postconditions = append(r.t.Postconditions, Claim{Text: text, Pos: diag.Pos(pos)})
				continue
			}
			r.field(text, pos)
		}
	}
}

// canonical reads a bullet of the canonicalization spec or a
// postcondition; it reports false for any other bullet.
func (r *truthReader) canonical(text string, pos int, fc *Facet) bool {
	bare := strings.TrimLeft(text, "*_ ")
	low := strings.ToLower(bare)
	word := low
	if i := strings.IndexAny(low, " :*"); i >= 0 {
		word = low[:i]
	}
	rest := func() string {
		if i := strings.IndexByte(bare, ':'); i >= 0 {
			return strings.TrimSpace(strings.TrimLeft(bare[i+1:], "* "))
		}
		return bare
	}
	switch word {
	case "postcondition", "postconditions":
		r.t.Postconditions = append(r.t.Postconditions, Claim{Text: rest(), Pos: diag.Pos(pos + strings.Index(text, rest()))})
	case "freshness":
		r.t.Freshness = append(r.t.Freshness, rest())
	case "material":
		r.t.Material = append(r.t.Material, rest())
	case "immaterial":
		r.immaterial(backticked(bare), fc)
	case "each":
		if !eachHas().MatchString(low) {
			return false
		}
		r.t.Each = append(r.t.Each, bare)
	default:
		return false
	}
	return true
}

// bareClaim reports whether a bullet is a postcondition written without
// the word: a backticked name with a claim in a form prose decides after
// it and no separator between (`total` is at least 0, `kind` is one of
// "a", "b"). Decided: it is a postcondition, not a field. Read as a
// field, a misspelt name (`totl` is at least 0) became a field of its
// own with the claim as its description: the claim was checked by
// nothing and the field appeared in silence. As a postcondition it is
// checked where the value is made, and one naming no declared field is
// reported (graph/postcondition, lint/postcondition-slip). A field
// item keeps its separator (`total`: at least 0, `total` — ...).
func bareClaim(text string) bool {
	if !strings.HasPrefix(text, "`") {
		return false
	}
	end := strings.IndexByte(text[1:], '`')
	if end <= 0 || !isIdent(strings.ReplaceAll(strings.ReplaceAll(text[1:1+end], "-", "_"), ".", "_")) {
		return false
	}
	rest := strings.TrimSuffix(strings.TrimSpace(text[2+end:]), ".")
	if rest == "" || strings.ContainsAny(rest, ";") || strings.Contains(rest, " iff ") {
		return false
	}
	for _, v := range []delegation.Value{"text", int64(1), delegation.NewList("a")} {
		if _, ok := form.Decide(rest, v); ok {
			return true
		}
	}
	return false
}

// eachHas matches "each account has:", "each signal carries:".
var eachHas = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^each [\w-]+( [\w-]+)? (has|carries|holds)\b`) })

// field reads a field item: `name`: text, `name` — text, `a` / `b` — text.
// A typed item, `name` (integer): text, is read as Returns reads it; a
// name given twice is an error at the second.
func (r *truthReader) field(text string, pos int) {
	names, desc := fieldItem(text)
	typ, optional := "", false
	if names == nil {
		it, ok := readContractItem(text)
		if !ok {
			return
		}
		if it.badType != "" {
			r.l.errorf(pos+it.typeAt, CodeOutputSyntax, "field %q: %s", it.name, unknownTypeMessage(it.badType, it.suggest))
		}
		names, desc, typ, optional = []string{it.name}, it.desc, it.typ, it.optional
	}
	for _, name := range names {
		at := pos + strings.Index(text, name)
		if first := r.l.output(name); first != nil {
			if !first.Facet {
				r.l.errorf(at, CodeDuplicateOutput, "field %q is declared twice (first on line %d); rename one or remove it", name, r.l.f.Position(first.Pos).Line)
			}
			continue
		}
		r.l.s.Outputs = append(r.l.s.Outputs, &Output{Name: name, Pos: diag.Pos(at), Description: desc, Type: typ, Optional: optional})
		if immaterialDesc(desc) {
			r.immaterial([]string{name}, nil)
		}
	}
}

// fieldItem splits a field item into its names and description; names is
// nil when text is not one.
func fieldItem(text string) (names []string, desc string) {
	if name, d, _, ok := keyed(text); ok {
		if strings.HasPrefix(text, "`") || strings.ToLower(name) == name {
			return []string{name}, d
		}
		return nil, ""
	}
	t := text
	for strings.HasPrefix(t, "`") {
		end := strings.IndexByte(t[1:], '`')
		if end < 0 {
			return nil, ""
		}
		name := t[1 : 1+end]
		if !isIdent(strings.ReplaceAll(name, "-", "_")) {
			return nil, ""
		}
		names = append(names, name)
		t = strings.TrimSpace(t[2+end:])
		if rest, ok := strings.CutPrefix(t, "/"); ok {
			t = strings.TrimSpace(rest)
			continue
		}
		if rest, ok := strings.CutPrefix(t, ","); ok {
			t = strings.TrimSpace(rest)
			continue
		}
		break
	}
	for _, sep := range [...]string{"—", "–", "--", "-", ":"} {
		if rest, ok := strings.CutPrefix(t, sep); ok && len(names) > 0 {
			return names, strings.TrimSpace(rest)
		}
	}
	return nil, ""
}

// immaterialDesc reports whether a field's description calls it
// immaterial ("an immaterial monotone marker", "immaterial: ...", "when
// it was polled (immaterial)", "poll time — immaterial", "poll time.
// Immaterial.", "the request id, excluded from the fingerprint"). Only the description's start, a "... is immaterial" or
// its last clause count: a field called material by a word about
// another would keep its subscribers from waking, where one left
// material only wakes them once too often.
func immaterialDesc(desc string) bool {
	low := strings.ToLower(desc)
	for _, p := range [...]string{"immaterial", "an immaterial", "a immaterial", "(immaterial"} {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	if strings.Contains(low, "is immaterial") || strings.Contains(low, "are immaterial") {
		return true
	}
	last := strings.TrimRight(low, ".*_ )")
	if strings.HasSuffix(last, ", excluded from the fingerprint") {
		return true
	}
	if i := strings.LastIndexAny(last, "(;.—–"); i >= 0 {
		last = last[i:]
	}
	last = strings.TrimSpace(strings.TrimLeft(last, "(;.—–*_ "))
	return last == "immaterial" || strings.HasPrefix(last, "immaterial:") || strings.HasPrefix(last, "immaterial (") ||
		strings.HasPrefix(last, "excluded from the fingerprint")
}

func (r *truthReader) immaterial(names []string, fc *Facet) {
	for _, n := range names {
		if fc != nil {
			if !contains(fc.Immaterial, n) {
				fc.Immaterial = append(fc.Immaterial, n)
			}
			continue
		}
		if !contains(r.t.Immaterial, n) {
			r.t.Immaterial = append(r.t.Immaterial, n)
		}
	}
}

// leadName finds the name a Maintains paragraph opens with when it
// names the truth ("The `CounterEventLedger` — the standing truth ...",
// "The canonical `PriceLedger`."), as upstream writes it without the word
// world-model. Decided: a name of a capital letter, so an opening about
// one field ("The `total` is ...") is not read as one.
var leadName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^\\s*(?:The|A|An)\\s+(?:canonical\\s+|standing\\s+)?`([A-Z][A-Za-z0-9_-]*)`")
})

// claimStart finds "Postcondition:" (bold or not) in prose.
var claimStart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\*{0,2}postconditions?:\*{0,2}:?\s*`) })

// prose reads a paragraph: its postcondition sentences, the backticked
// names it calls immaterial, and the world-model names it declares. low
// is strings.ToLower(text): most paragraphs name none of the words looked
// for, and are passed over without running a pattern (lowering maps rune
// by rune, so a sentence's words are in low when they are in the
// sentence). claimStart's case folding also matches the long s (U+017F,
// which lowering keeps), the only letter outside ASCII that folds to one
// of "postcondition"'s, so low is searched for that spelling too.
func (r *truthReader) prose(text, low string, pos int, fc *Facet) {
	if fc == nil {
		if m := leadName().FindStringSubmatch(text); m != nil && !contains(r.t.Names, m[1]) && r.l.output(m[1]) == nil {
			r.t.Names = append(r.t.Names, m[1])
		}
	}
	var locs [][]int
	if strings.Contains(low, "postcondition") || strings.Contains(low, "po\u017ftcondition") {
		locs = claimStart().FindAllStringIndex(text, -1)
	}
	for i, loc := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		claim := strings.TrimSpace(text[loc[1]:end])
		if claim != "" && claim != "*" {
			r.t.Postconditions = append(r.t.Postconditions, Claim{Text: claim, Pos: diag.Pos(pos + loc[1])})
		}
	}
	if !strings.Contains(low, "immaterial") && (fc != nil || !strings.Contains(low, "world-model")) {
		return
	}
	for _, s := range sentences(text) {
		low := strings.ToLower(s)
		if strings.Contains(low, "immaterial") && !strings.Contains(low, "postcondition") {
			at := indexFold(s, "immaterial") // an index into s, as one into low need not be
			if strings.Trim(s[:at], "*_ \t") == "" {
				// "Immaterial (excluded from the fingerprint): `fetched_at`,
				// request ids": the names follow the word.
				r.immaterial(backticked(s[at:]), fc)
			} else {
				r.immaterial(backticked(s[:at]), fc)
			}
		}
		if fc == nil && strings.Contains(low, "world-model") {
			for _, n := range backticked(s) {
				if isIdent(n) && !contains(r.t.Names, n) && r.l.output(n) == nil {
					r.t.Names = append(r.t.Names, n)
				}
			}
		}
	}
}

// sentences splits prose at ". ", "; " and "—": where the pattern
// [.;]\s+|— matches (\s is the pattern's ASCII space: tab, newline, form
// feed, carriage return, space), as its Split does, without running it.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); {
		switch {
		case (text[i] == '.' || text[i] == ';') && i+1 < len(text) && isPatternSpace(text[i+1]):
			j := i + 1
			for j < len(text) && isPatternSpace(text[j]) {
				j++
			}
			out = append(out, text[start:i])
			start, i = j, j
		case strings.HasPrefix(text[i:], "—"):
			out = append(out, text[start:i])
			i += len("—")
			start = i
		default:
			i++
		}
	}
	return append(out, text[start:])
}

func isPatternSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// backticked returns the identifiers written in backticks in s.
func backticked(s string) []string {
	var out []string
	i := 0
	for p := range strings.SplitSeq(s, "`") {
		if i%2 == 1 && isIdent(strings.ReplaceAll(p, "-", "_")) {
			out = append(out, p)
		}
		i++
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// PriorNames lists the names of its own truth that the Execution of a
// responsibility or gateway reads without binding them: its Maintains
// fields and facets, which stand for the prior published truth's members
// (null on a cold start). They are optional inputs of a run (a world
// model drain passes the prior truth's members); nil for other specs.
func (s *Spec) PriorNames() []string {
	if !s.Kind.IsNode() || s.Truth == nil || s.Execution == nil || s.Execution.Program == nil {
		return nil
	}
	own := map[string]bool{}
	for _, o := range s.Outputs {
		if !o.Inferred && s.input(o.Name) == nil {
			own[o.Name] = true
		}
	}
	for _, st := range s.Execution.Program.Body {
		if let, ok := st.(*syntax.LetStmt); ok && let.Name != nil {
			delete(own, let.Name.Name)
		}
	}
	out := []string{}
	syntax.Walk(s.Execution.Program, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && own[id.Name] {
			out = append(out, id.Name)
			delete(own, id.Name)
		}
		return true
	})
	return out
}

func (s *Spec) input(name string) *Input {
	for _, in := range s.Inputs {
		if in.Name == name {
			return in
		}
	}
	return nil
}
