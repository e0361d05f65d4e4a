package spec

import (
	"encoding/json"
	"strings"
)

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
	// badType is a word in the type's place that is no type but close to
	// one (`(integr)`), with the type it probably means; typ is then "".
	badType, suggest string
	typeAt           int // offset of badType in the item's text
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
	if it.badType != "" {
		it.typeAt = len(t) - len(after) + 1 + strings.Index(after[1:close], it.badType)
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

// flags reads "type[, optional][, default: X]" (the type may be left
// out); false when the first part is no type and no flag. A first part
// that is one word close to a type name (`integr`, `boolen`) is read as a
// type written wrongly (badType), to be reported, not as prose.
func (it *contractItem) flags(inner string) bool {
	// commas inside <...> (Map<string, int>) do not split the flags
	angle, protected := 0, []byte(inner)
	for i, c := range protected {
		switch {
		case c == '<':
			angle++
		case c == '>' && angle > 0:
			angle--
		case c == ',' && angle > 0:
			protected[i] = 0
		}
	}
	parts := splitTop(string(protected))
	typ := strings.ReplaceAll(strings.TrimSpace(parts[0]), "\x00", ",")
	if g, ok := genericType(typ); ok {
		typ = g
	}
	words := WordsType(typ)
	switch low := strings.ToLower(typ); {
	case low == "optional" || low == "required":
		typ, parts = "", append([]string{""}, parts...)
	case words != "":
		it.typ, typ = words, ""
	case typ == "" || !isTypeName(typ):
		return false
	}
	if typ != "" {
		canon, part, suggest := canonicalType(typ)
		switch {
		case part == "":
			it.typ = canon
		case suggest != "" && !strings.ContainsAny(typ, "|[") && len(parts) >= 1:
			it.badType, it.suggest = part, suggest
		default:
			return false
		}
	}
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

// genericType writes a list type as people write it in other languages
// (list[str], List<int>, array[number]) as T[]; a map type (dict[str,
// int], Map<string, any>) is object.
//
// "list of T" and "array of T" (T may be plural: "list of strings") are
// T[] too.
func genericType(typ string) (string, bool) {
	if words := strings.Fields(typ); len(words) == 3 && strings.EqualFold(words[1], "of") {
		switch strings.ToLower(words[0]) {
		case "list", "array", "set", "sequence":
			inner := strings.ToLower(words[2])
			if _, known := BaseType(inner); !known {
				inner = strings.TrimSuffix(inner, "s")
			}
			if k, known := BaseType(inner); known {
				return k + "[]", true
			}
		}
	}
	open := strings.IndexAny(typ, "[<")
	if open <= 0 || !strings.HasSuffix(typ, "]") && !strings.HasSuffix(typ, ">") || strings.HasSuffix(typ, "[]") {
		return "", false
	}
	base, inner := strings.ToLower(strings.TrimSpace(typ[:open])), strings.TrimSpace(typ[open+1:len(typ)-1])
	switch base {
	case "list", "array", "set", "sequence", "seq", "vec":
		if canon, part, _ := canonicalType(inner); part == "" && !strings.Contains(canon, "|") && canon != "" {
			return canon + "[]", true
		}
	case "dict", "map", "record", "mapping":
		return "object", true
	}
	return "", false
}

// defaultInText reads a default stated in an item's description, in the
// forms upstream writes: "Defaults to `true`", "default `3`", "default:
// fast", "(default 3)", "default is 2s". A backticked value is taken as
// written; an unquoted one must be a literal (a number, true, false, a
// "quoted string", a duration) or a single word that ends the sentence or
// the clause, so "by default the model decides" states none.
func defaultInText(desc string) (string, bool) {
	// lowered byte for byte, so that an offset into low is one into desc
	b := []byte(desc)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	low := string(b)
	for off := 0; ; {
		i := strings.Index(low[off:], "default")
		if i < 0 {
			return "", false
		}
		i += off
		off = i + len("default")
		if i > 0 && isIdentByte(low[i-1]) {
			continue
		}
		paren := strings.HasSuffix(strings.TrimRight(low[:i], " "), "(")
		rest := low[off:]
		rest = strings.TrimPrefix(rest, "s")
		trim := strings.TrimLeft(rest, " ")
		connector := false
		for _, c := range [...]string{"to ", "is ", ":", "="} {
			if r, ok := strings.CutPrefix(trim, c); ok {
				trim, connector = strings.TrimLeft(r, " "), true
				break
			}
		}
		if len(trim) > 0 && isIdentByte(trim[0]) && len(rest) > 0 && rest[0] != ' ' && !connector {
			continue // "defaulted", "defaults_file"
		}
		// trim is lowered; read the value from desc at the same offset.
		val := desc[len(desc)-len(trim):]
		if v, ok := strings.CutPrefix(val, "`"); ok {
			if end := strings.IndexByte(v, '`'); end > 0 {
				return v[:end], true
			}
			continue
		}
		if !connector && !paren {
			// "default 3" states a literal; "by default ..." states none
			if v, ok := leadingValue(val); ok && isLiteral(v) && !lastWordIs(low[:i], "by") {
				return v, true
			}
			continue
		}
		if v, ok := leadingValue(val); ok {
			return v, true
		}
	}
}

// lastWordIs reports whether the last word of s is w.
func lastWordIs(s, w string) bool {
	f := strings.Fields(s)
	return len(f) > 0 && f[len(f)-1] == w
}

// leadingValue is the literal or the clause-ending word s starts with.
func leadingValue(s string) (string, bool) {
	if strings.HasPrefix(s, "\"") {
		if end := strings.IndexByte(s[1:], '"'); end >= 0 {
			return s[:end+2], true
		}
		return "", false
	}
	end := strings.IndexAny(s, " \t,;)")
	if end < 0 {
		end = len(s)
	}
	tok := strings.TrimRight(s[:end], ".")
	if tok == "" {
		return "", false
	}
	if isLiteral(tok) {
		return tok, true
	}
	next := strings.TrimLeft(s[len(tok):], " \t")
	if next == "" || strings.ContainsAny(next[:1], ".,;)") {
		return tok, true
	}
	return "", false
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

// unreadType reports whether the text after an item's name is a
// parenthesis that starts with a type but is no type form the loader
// reads ("(number, 0 to 1)", "(integer >= 0)"): the item is then untyped,
// and paren is that parenthesis, at offset at of t.
func unreadType(t string) (paren string, at int, ok bool) {
	rest, ok := strings.CutPrefix(t, "`")
	if !ok {
		return "", 0, false
	}
	end := strings.IndexByte(rest, '`')
	if end < 0 {
		return "", 0, false
	}
	after := strings.TrimLeft(rest[end+1:], " \t")
	if !strings.HasPrefix(after, "(") {
		return "", 0, false
	}
	close := matchParen(after)
	if close < 0 {
		return "", 0, false
	}
	inner := after[1:close]
	word := inner
	if i := strings.IndexAny(inner, " ,(<>=|:"); i >= 0 {
		word = inner[:i]
	}
	for strings.HasSuffix(word, "[]") {
		word = word[:len(word)-2]
	}
	if _, known := BaseType(word); !known {
		if _, alias := typeAliases[strings.ToLower(word)]; !alias {
			return "", 0, false
		}
	}
	return after[:close+1], len(t) - len(after), true
}

// unreadTypeFix says how to write the parenthesis paren (of an item
// unreadType reports) so that it is read. A default holding commas
// (`(string[], default: a,b)`) split the flags, so its parts after the
// first were no flags: the fix is the default written as JSON, which the
// flags read whole (`(string[], default: ["a", "b"])`).
func unreadTypeFix(paren string) string {
	inner := strings.TrimSuffix(strings.TrimPrefix(paren, "("), ")")
	if fixed, ok := defaultAsJSON(inner, 1); ok {
		return "a comma splits the flags, so the default's commas cut it: write the default as JSON, (" + fixed + ")"
	}
	return "write the type alone in the parenthesis and the rest after the colon"
}

// defaultAsJSON reads flags (inner, from its part from on) whose default
// holds commas ("optional, default a,b"): the parts after the default
// that are no flag are more of it. It gives the flags with the default
// written as a JSON list, and false when no default holds a comma.
func defaultAsJSON(inner string, from int) (string, bool) {
	parts := splitTop(inner)
	for i := from; i < len(parts); i++ {
		d, ok := cutDefault(strings.TrimSpace(parts[i]))
		if !ok || i+1 >= len(parts) {
			continue
		}
		vals, flags := []string{d}, []string{}
		for _, q := range parts[i+1:] {
			q = strings.TrimSpace(q)
			if strings.EqualFold(q, "optional") || strings.EqualFold(q, "required") {
				flags = append(flags, q)
			} else if len(flags) == 0 {
				vals = append(vals, q)
			}
		}
		if len(vals) < 2 {
			continue
		}
		for j, v := range vals {
			if !json.Valid([]byte(v)) {
				b, _ := json.Marshal(strings.Trim(v, "'"))
				vals[j] = string(b)
			}
		}
		head := []string{}
		for _, q := range parts[:i] {
			head = append(head, strings.TrimSpace(q))
		}
		fixed := strings.Join(append(head, "default: ["+strings.Join(vals, ", ")+"]"), ", ")
		if len(flags) > 0 {
			fixed += ", " + strings.Join(flags, ", ")
		}
		return fixed, true
	}
	return "", false
}
