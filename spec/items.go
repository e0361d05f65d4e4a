package spec

import "strings"

// contractItem is one item of Parameters, Requires or Returns as people
// write them:
//
//   - `name`: text
//   - name: text
//   - `name` (integer): text          the type form Config uses
//   - `name` (string[], optional): text
//   - `name` (integer, default: 3): text
//
// A parenthesis after the name is read as a type only when it starts with
// a known type (`(atomic)` is not one); otherwise the item is not of this
// form and contractItem reports false.
type contractItem struct {
	name, typ, desc string
	at              int // offset of the name in the item's text
	optional        bool
	hasDefault      bool
	defaultRaw      string
}

func readContractItem(t string) (contractItem, bool) {
	if name, desc, _, ok := keyed(t); ok {
		return contractItem{name: name, desc: desc, at: strings.Index(t, name)}, true
	}
	rest, ok := strings.CutPrefix(t, "`")
	if !ok {
		return contractItem{}, false
	}
	end := strings.IndexByte(rest, '`')
	if end < 0 || !isIdent(strings.ReplaceAll(rest[:end], "-", "_")) {
		return contractItem{}, false
	}
	it := contractItem{name: rest[:end], at: 1}
	after := strings.TrimLeft(rest[end+1:], " \t")
	if !strings.HasPrefix(after, "(") {
		return contractItem{}, false
	}
	close := matchParen(after)
	if close < 0 || !it.flags(after[1:close]) {
		return contractItem{}, false
	}
	tail := strings.TrimSpace(after[close+1:])
	if tail != "" {
		d, ok := strings.CutPrefix(tail, ":")
		if !ok {
			d, ok = cutDash(tail)
		}
		if !ok {
			return contractItem{}, false
		}
		tail = strings.TrimSpace(d)
	}
	it.desc = tail
	return it, true
}

// flags reads "type[, optional][, default: X]"; false when the first part
// is no known type.
func (it *contractItem) flags(inner string) bool {
	parts := splitTop(inner)
	typ := strings.TrimSpace(parts[0])
	if typ == "" || !isTypeName(typ) {
		return false
	}
	if part, _ := unknownType(typ); part != "" {
		return false
	}
	it.typ = typ
	for _, p := range parts[1:] {
		p = strings.TrimSpace(p)
		switch {
		case strings.EqualFold(p, "optional"):
			it.optional = true
		case strings.EqualFold(p, "required"):
		default:
			d, ok := cutDefault(p)
			if !ok {
				return false
			}
			it.optional, it.hasDefault, it.defaultRaw = true, true, d
		}
	}
	return true
}

// cutDash cuts a leading dash or em dash that introduces a description.
func cutDash(s string) (string, bool) {
	for _, d := range [...]string{"—", "–", "--", "-"} {
		if r, ok := strings.CutPrefix(s, d); ok {
			return r, true
		}
	}
	return "", false
}
