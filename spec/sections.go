package spec

import (
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/proselang/prose/diag"
)

// readSections reads every known section; a known section that appears
// twice is read once (the first) and reported.
func (l *loader) readSections() {
	seen := map[string]*section{}
	for _, sec := range l.sections {
		if !sec.Known {
			continue
		}
		if first, dup := seen[sec.Key]; dup && sec.Key != "ensures" {
			l.warnf(int(sec.Pos), CodeDuplicateSection, "section %q repeats %q (line %d); only the first is read",
				sec.Heading, first.Heading, l.f.Position(first.Pos).Line)
			continue
		}
		seen[sec.Key] = sec
		switch sec.Key {
		case "description":
			l.s.Description = strings.TrimSpace(sec.Body)
		case "metadata":
			l.metadata(sec)
		case "slots":
			l.slots(sec)
		case "config":
			l.config(sec)
		case "invariants":
			l.s.Invariants = l.bulletTexts(sec)
		case "shape":
			l.shape(sec)
		case "requires":
			// A 0.15 pattern may write its inputs as contract items
			// (`- \`topic\`: what to write about`), as functions do;
			// one with a "Pattern instance receives:" block keeps it.
			if l.s.Contract && (l.s.Kind != KindPattern || !containsLower(sec.Body, "receives:")) {
				l.contractInputs(sec)
			} else {
				l.inputs(sec)
			}
		case "ensures":
			l.outputs(sec)
		case "notes":
			l.s.Notes = strings.TrimSpace(sec.Body)
		}
	}
	l.requireSections()
}

// requireSections reports the sections the spec's kind needs.
func (l *loader) requireSections() {
	if l.s.Kind != KindPattern {
		return
	}
	has := map[string]bool{}
	for _, sec := range l.sections {
		has[sec.Key] = true
	}
	for _, want := range [...]struct{ key, heading string }{{"slots", "Slots"}, {"delegation", "Delegation"}} {
		if !has[want.key] {
			l.errorf(int(l.kindPos), CodeMissingSection, "a pattern needs a ### %s section", want.heading)
		}
	}
}

// items returns the top-level list items of a section, in order.
func items(sec *section) []*ast.ListItem {
	var out []*ast.ListItem
	for _, b := range sec.blocks {
		if list, ok := b.(*ast.List); ok {
			out = appendItems(out, list)
		}
	}
	return out
}

func appendItems(out []*ast.ListItem, list ast.Node) []*ast.ListItem {
	for c := list.FirstChild(); c != nil; c = c.NextSibling() {
		if li, ok := c.(*ast.ListItem); ok {
			out = append(out, li)
		}
	}
	return out
}

// subItems returns the items of the lists nested directly in li.
func subItems(li *ast.ListItem) []*ast.ListItem {
	var out []*ast.ListItem
	for c := li.FirstChild(); c != nil; c = c.NextSibling() {
		if list, ok := c.(*ast.List); ok {
			out = appendItems(out, list)
		}
	}
	return out
}

// itemText is the raw text of a list item's first paragraph, lines joined
// by a space, and its offset. ok is false for an item with no text.
func (l *loader) itemText(li *ast.ListItem) (text string, pos int, ok bool) {
	c := li.FirstChild()
	if c == nil || c.Kind() == ast.KindList || c.Lines().Len() == 0 {
		return "", 0, false
	}
	switch c.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return l.joinLines(c, " "), c.Lines().At(0).Start, true
	}
	return "", 0, false
}

// bulletTexts is the text of each top-level bullet, or of each paragraph
// when the section has no list.
func (l *loader) bulletTexts(sec *section) []string {
	var out []string
	for _, li := range items(sec) {
		if t, _, ok := l.itemText(li); ok {
			out = append(out, t)
		}
	}
	if out == nil {
		for _, b := range sec.blocks {
			if p, ok := b.(*ast.Paragraph); ok {
				out = append(out, l.joinLines(p, " "))
			}
		}
	}
	return out
}

// keyed splits "`key`: rest" or "key: rest" (key an identifier, hyphens
// allowed). The offset of rest within text is returned too.
func keyed(text string) (key, rest string, restAt int, ok bool) {
	t := text
	quoted := strings.HasPrefix(t, "`")
	if quoted {
		end := strings.IndexByte(t[1:], '`')
		if end < 0 {
			return "", "", 0, false
		}
		key, t = t[1:1+end], t[2+end:]
	} else {
		i := strings.IndexByte(t, ':')
		if i < 0 {
			return "", "", 0, false
		}
		key, t = t[:i], t[i:]
	}
	if !isIdent(strings.ReplaceAll(key, "-", "_")) {
		return "", "", 0, false
	}
	after := strings.TrimLeft(t, " \t")
	if !strings.HasPrefix(after, ":") {
		return "", "", 0, false
	}
	rest = strings.TrimSpace(after[1:])
	return key, rest, len(text) - len(strings.TrimLeft(after[1:], " \t")), true
}

// metadata reads `- \`key\`: value` bullets.
func (l *loader) metadata(sec *section) {
	for _, li := range items(sec) {
		t, _, ok := l.itemText(li)
		if !ok {
			continue
		}
		if k, v, _, ok := keyed(t); ok {
			if l.s.Metadata == nil {
				l.s.Metadata = map[string]string{}
			}
			l.s.Metadata[k] = strings.Trim(v, "`")
		}
	}
	if l.s.Version == "" {
		l.s.Version = l.s.Metadata["version"]
	}
}

// slots reads `- \`name\` (primary)` bullets and their requires/ensures/
// maintains sub-bullets.
func (l *loader) slots(sec *section) {
	seen := map[string]*Slot{}
	for _, li := range items(sec) {
		t, pos, ok := l.itemText(li)
		if !ok {
			continue
		}
		name, rest, ok := slotHead(t)
		if !ok {
			if !isNoneProse(t) {
				l.errorf(pos, CodeSlotSyntax, "slot bullet should be \"`name`\", optionally followed by (primary); got %q", clip(t))
			}
			continue
		}
		slot := &Slot{Name: name, Pos: diag.Pos(pos + strings.Index(t, name)), Primary: strings.Contains(strings.ToLower(rest), "(primary)")}
		slot.itemContract(rest)
		if slot.Ensures != "" {
			slot.EnsuresPos = slot.Pos
		}
		l.slotClauses(slot, li)
		if first, dup := seen[name]; dup {
			l.errorf(int(slot.Pos), CodeDuplicateSlot, "slot %q is declared twice (first on line %d)", name, l.f.Position(first.Pos).Line)
			continue
		}
		seen[name] = slot
		l.s.Slots = append(l.s.Slots, slot)
	}
}

// slotHead splits "`name` rest" (or a bare identifier first word).
func slotHead(t string) (name, rest string, ok bool) {
	if strings.HasPrefix(t, "`") {
		end := strings.IndexByte(t[1:], '`')
		if end < 0 || !isIdent(t[1:1+end]) {
			return "", "", false
		}
		return t[1 : 1+end], t[2+end:], true
	}
	word, rest, _ := strings.Cut(t, " ")
	word = strings.TrimSuffix(word, ":")
	if !isIdent(word) || rest != "" && !strings.HasPrefix(strings.TrimSpace(rest), "(") {
		return "", "", false
	}
	return word, rest, true
}

// itemContract reads the text after a slot's name written as upstream's
// item (a reviewer slot "returns {accepted: boolean, notes: string}"):
// decided, it is what the slot does and gives, its Ensures, unless it
// starts with requires, receives or takes, which make it its Requires.
// The sub-bullets `requires:`/`ensures:` add to either.
func (slot *Slot) itemContract(rest string) {
	rest = strings.TrimSpace(rest)
	if i := indexFold(rest, "(primary)"); i >= 0 {
		rest = strings.TrimSpace(rest[:i] + rest[i+len("(primary)"):])
	}
	text, ok := strings.CutPrefix(rest, ":")
	if !ok {
		text, ok = cutDash(rest)
	}
	if text = strings.TrimSpace(text); !ok || text == "" {
		return
	}
	low := strings.ToLower(text)
	for _, verb := range [...]string{"requires", "receives", "takes"} {
		if strings.HasPrefix(low, verb) {
			slot.Requires = strings.TrimSpace(strings.TrimPrefix(text[len(verb):], ":"))
			return
		}
	}
	if strings.HasPrefix(low, "ensures") {
		text = strings.TrimSpace(strings.TrimPrefix(text[len("ensures"):], ":"))
	}
	slot.Ensures = text
}

func (l *loader) slotClauses(slot *Slot, li *ast.ListItem) {
	for _, sub := range subItems(li) {
		t, pos, ok := l.itemText(sub)
		if !ok {
			continue
		}
		k, v, _, ok := keyed(t)
		if !ok {
			continue
		}
		switch strings.ToLower(k) {
		case "requires":
			slot.Requires = joinClause(slot.Requires, v)
		case "ensures":
			if slot.Ensures == "" {
				slot.EnsuresPos = diag.Pos(pos + strings.Index(t, v))
			}
			slot.Ensures = joinClause(slot.Ensures, v)
		case "maintains":
			slot.Maintains = joinClause(slot.Maintains, v)
		}
	}
}

func joinClause(old, v string) string {
	if old == "" {
		return v
	}
	return old + "; " + v
}

// isNoneProse reports a bullet such as "None. The ... supplies ...".
func isNoneProse(t string) bool {
	w := strings.ToLower(t)
	return w == "none" || strings.HasPrefix(w, "none.") || strings.HasPrefix(w, "none ") || strings.HasPrefix(w, "none,") || strings.HasPrefix(w, "none:")
}

// clip shortens text quoted in a message.
func clip(s string) string {
	if len(s) <= 60 {
		return s
	}
	return s[:57] + "..."
}
