package spec

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/proselang/prose/diag"
)

// config reads `- \`name\` (type, default: X): description` bullets.
// "None. ..." prose is not an entry.
func (l *loader) config(sec *section) {
	seen := map[string]*ConfigEntry{}
	for _, li := range items(sec) {
		t, pos, ok := l.itemText(li)
		if !ok || isNoneProse(t) {
			continue
		}
		c, msg := parseConfigLine(t)
		if c == nil {
			l.errorf(pos, CodeConfigSyntax, "config bullet %s; want \"`name` (type, default: X): description\"", msg)
			// Keep a readable name, so that its uses in the Delegation
			// are not reported as undefined on top of this error.
			if c = nameOnlyConfig(t); c == nil {
				continue
			}
		} else if canon, part, suggest := canonicalType(c.Type); part != "" && WordsType(c.Type) == "" {
			l.errorf(pos, CodeConfigSyntax, "config key %q: %s", c.Name, unknownTypeMessage(part, suggest))
		} else {
			c.Type = canon
			if l.s.Contract {
				valueAsDefault(c)
				if c.Type == "" && c.DefaultRaw == "" && isBareWord(c.Description) {
					l.warnf(pos, CodeConfigWord, "config key %q has no default: the word %s after it is read as its description, and the key is null unless --config sets it; to make it the default write - `%s`: %q (or `%s` (string, default: %s))",
						c.Name, c.Description, c.Name, c.Description, c.Name, c.Description)
				}
			}
			l.configDefault(c, pos)
			if t := inferType(c.Default, c.DefaultRaw); c.Type == "" && c.HasDefault && t != "" {
				c.Type, c.TypeInferred = t, true
			}
		}
		c.Pos = diag.Pos(pos + 1)
		if first, dup := seen[c.Name]; dup {
			l.errorf(int(c.Pos), CodeDuplicateConfig, "config key %q is declared twice (first on line %d)", c.Name, l.f.Position(first.Pos).Line)
			continue
		}
		seen[c.Name] = c
		l.s.Config = append(l.s.Config, c)
	}
}

// nameOnlyConfig is the entry of a malformed config bullet whose name, in
// backticks or as its first word, is still an identifier (its type,
// default and description are unknown), or nil.
func nameOnlyConfig(t string) *ConfigEntry {
	var name string
	if rest, ok := strings.CutPrefix(t, "`"); ok {
		name, _, _ = strings.Cut(rest, "`")
	} else if end := strings.IndexAny(t, " \t(:"); end > 0 {
		if after := strings.TrimLeft(t[end:], " \t"); strings.HasPrefix(after, "(") || strings.HasPrefix(after, ":") {
			name = t[:end] // "max_steps (integer, default: 5)", not "Nothing to set"
		}
	}
	if name == "" || !isIdent(strings.ReplaceAll(name, "-", "_")) {
		return nil
	}
	return &ConfigEntry{Name: name}
}

// parseConfigLine parses one config bullet's text. On failure it returns
// nil and what is wrong.
func parseConfigLine(t string) (*ConfigEntry, string) {
	if !strings.HasPrefix(t, "`") {
		return nil, "does not start with a `name` in backticks"
	}
	end := strings.IndexByte(t[1:], '`')
	if end < 0 {
		return nil, "has an unclosed backtick"
	}
	c := &ConfigEntry{Name: t[1 : 1+end]}
	if !isIdent(strings.ReplaceAll(c.Name, "-", "_")) {
		return nil, "names " + quote(c.Name) + ", which is not an identifier"
	}
	rest := strings.TrimSpace(t[2+end:])
	if strings.HasPrefix(rest, "(") {
		close := matchParen(rest)
		if close < 0 {
			return nil, "has an unclosed ( after " + quote(c.Name)
		}
		if msg := c.typeAndDefault(rest[1:close]); msg != "" {
			return nil, msg
		}
		rest = strings.TrimSpace(rest[close+1:])
	}
	if rest != "" {
		d, ok := strings.CutPrefix(rest, ":")
		if !ok {
			return nil, "has text after " + quote(c.Name) + " that is neither (type, default: X) nor : description"
		}
		c.Description = strings.TrimSpace(d)
	}
	return c, ""
}

// typeAndDefault reads "type, default: X" (either part may be absent).
func (c *ConfigEntry) typeAndDefault(inner string) string {
	typ, def, hasComma := strings.Cut(inner, ",")
	typ = strings.TrimSpace(typ)
	if d, ok := cutDefault(typ); ok { // "(default: 5)" with no type
		typ, def, hasComma = "", d, true
	} else if hasComma {
		d, ok := cutDefault(strings.TrimSpace(def))
		if !ok {
			return "has " + quote(strings.TrimSpace(def)) + " where default: X belongs"
		}
		def = d
	}
	if g, ok := genericType(typ); ok {
		typ = g
	}
	if w := WordsType(typ); w != "" {
		typ = w
	} else if typ != "" && !isTypeName(typ) {
		return "has type " + quote(typ) + ", which is not a type name"
	}
	c.Type = typ
	if hasComma {
		c.DefaultRaw = strings.TrimSpace(def)
	}
	return ""
}

// cutDefault strips "default:" (or "default =", "default") from s.
func cutDefault(s string) (string, bool) {
	if len(s) < 7 || !strings.EqualFold(s[:7], "default") {
		return "", false
	}
	rest := strings.TrimLeft(s[7:], " ")
	if r, ok := strings.CutPrefix(rest, ":"); ok {
		return strings.TrimSpace(r), true
	}
	if r, ok := strings.CutPrefix(rest, "="); ok {
		return strings.TrimSpace(r), true
	}
	return strings.TrimSpace(rest), rest != s[7:] || rest == ""
}

// configDefault decodes a config default by its type, reporting Python
// literals and defaults that do not fit.
func (l *loader) configDefault(c *ConfigEntry, pos int) {
	if isNone(c.DefaultRaw) {
		return
	}
	v, ok := decodeValue(c.Type, c.DefaultRaw)
	c.HasDefault, c.Default = true, v
	if isPythonLiteral(c.DefaultRaw) {
		hint := ""
		if ok {
			hint = "; as JSON: " + jsonText(v)
		}
		l.warnf(pos, CodePythonDefault, "default of %q is a Python literal %s%s", c.Name, clip(c.DefaultRaw), hint)
	} else if !ok && strings.EqualFold(strings.TrimSpace(c.Type), "duration") {
		// Every use of a duration (timeout, backoff) would fail on it, at
		// the first call that reaches it: an error here, before any run.
		l.errorf(pos, CodeBadDuration, "default %s of %q is not a duration: write one such as 500ms, 30s or 2m (or a number of seconds)", quote(c.DefaultRaw), c.Name)
	} else if !ok {
		l.errorf(pos, CodeBadDefault, "default %s of %q is not a valid %s, so a run that does not set it stops: write %s", clip(c.DefaultRaw), c.Name, c.Type, TypeArticle(c.Type))
	}
}

// isTypeName accepts "integer", "string[]", "object", "string | null".
func isTypeName(t string) bool {
	for part := range strings.SplitSeq(t, "|") {
		part = strings.TrimSpace(part)
		for strings.HasSuffix(part, "[]") {
			part = part[:len(part)-2]
		}
		if !isIdent(part) {
			return false
		}
	}
	return true
}

// matchParen returns the index of the ')' closing the '(' at s[0], skipping
// brackets, braces and quoted text; -1 when unclosed.
func matchParen(s string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' && (i == 0 || !isIdentByte(s[i-1])):
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 {
				if c != ')' {
					continue
				}
				return i
			}
		}
	}
	return -1
}

func quote(s string) string { return "\"" + clip(s) + "\"" }

// valueAsDefault reads a 0.15 config item written `- \`name\`: VALUE`
// (upstream's own form, `- \`max_rounds\`: 3`) as the key's default when
// it states no (type, default: X): VALUE is a number, true, false, a
// "quoted string", a duration or a JSON list or object, alone or followed
// by a dash and a description (`3 — rounds at most`). Otherwise a type word
// leading the text ("integer, default 2" in backticks) is the key's type, and a
// default the text states in the forms a Parameters item may (defaultInText)
// is its default; the key has none else.
func valueAsDefault(c *ConfigEntry) {
	if c.Type != "" || c.DefaultRaw != "" || c.Description == "" {
		return
	}
	text, desc := c.Description, ""
	for _, sep := range []string{" — ", " -- ", " – ", " - "} {
		if v, d, ok := strings.Cut(text, sep); ok {
			text, desc = strings.TrimSpace(v), strings.TrimSpace(d)
			break
		}
	}
	if isLiteral(text) {
		c.DefaultRaw, c.Description = text, desc
		return
	}
	// `- \`max_rounds\`: integer, default \`2\``: a type word first, and a
	// default stated in the text as Parameters items state one.
	if first, _, ok := strings.Cut(c.Description, ","); ok && isTypeName(strings.TrimSpace(first)) {
		if canon, part, _ := canonicalType(strings.TrimSpace(first)); part == "" {
			c.Type = canon
		}
	}
	if raw, ok := defaultInText(c.Description); ok && !isNone(raw) {
		c.DefaultRaw = raw
	}
}

// isBareWord reports whether a config key's whole text is one plain
// word (`- \`mode\`: fast`), as a default is written after a name
// (`- \`max_rounds\`: 3`), and not one that says the key has none.
func isBareWord(s string) bool {
	if !isIdent(strings.ReplaceAll(s, "-", "_")) {
		return false
	}
	switch strings.ToLower(s) {
	case "optional", "required", "none", "null", "nil", "unset", "empty", "tbd", "todo":
		return false
	}
	return true
}

// isLiteral reports whether s is a number, a boolean, a quoted string or a
// JSON list or object.
func isLiteral(s string) bool {
	switch {
	case s == "true" || s == "false":
		return true
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		return json.Valid([]byte(s))
	case strings.HasPrefix(s, "[") || strings.HasPrefix(s, "{"):
		return json.Valid([]byte(s))
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil || isDurationLiteral(s)
}
