package spec

import (
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
)

// lineAt returns the line of t starting at off (without its newline) and the
// offset of the next line.
func lineAt(t string, off int) (line string, next int) {
	i := strings.IndexByte(t[off:], '\n')
	if i < 0 {
		return t[off:], len(t)
	}
	return t[off : off+i], off + i + 1
}

// frontMatter finds the --- block at the top of the file and decodes it.
// l.fmEnd becomes the offset just past its closing line.
func (l *loader) frontMatter() {
	t := l.text
	start := 0
	if strings.HasPrefix(t, "\ufeff") {
		start = len("\ufeff")
	}
	first, next := lineAt(t, start)
	if strings.TrimRight(first, " \t\r") != "---" {
		if cr := strings.IndexByte(first, '\r'); cr >= 0 && cr < len(first)-1 {
			// "---\rname: x\r...": no line feed ends the first line.
			l.errorf(start, CodeNoFrontMatter, "no front matter found: the file's lines end with a carriage return alone (CR, as on classic Mac OS); save it with LF (or CRLF) line endings")
			return
		}
		l.errorf(start, CodeNoFrontMatter, "no front matter: a spec starts with a --- line, then name: and kind: keys, then ---")
		return
	}
	for off := next; off < len(t); {
		ln, nx := lineAt(t, off)
		if tr := strings.TrimRight(ln, " \t\r"); tr == "---" || tr == "..." {
			l.fmEnd = nx
			l.decodeFrontMatter(start, next, off)
			return
		}
		off = nx
	}
	l.errorf(start, CodeFrontMatter, "front matter is not closed: no --- line ends the block opened here")
}

// decodeFrontMatter decodes the YAML between from and to; open is the
// offset of the opening --- line.
func (l *loader) decodeFrontMatter(open, from, to int) {
	if l.simpleFrontMatter(from, to) {
		l.requireFrontKeys(open)
		return
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(l.src[from:to], &doc); err != nil {
		p, msg := l.yamlErrorPos(err, from, to)
		l.errorf(p, CodeFrontMatter, "front matter is not valid YAML: %s", msg)
		return
	}
	l.s.Front = map[string]any{}
	if len(doc.Content) == 0 {
		l.requireFrontKeys(open)
		return
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		l.errorf(l.yamlPos(m, from, to), CodeFrontMatter, "front matter must be a YAML mapping of keys (name:, kind:, ...)")
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if _, dup := l.s.Front[k.Value]; dup {
			l.errorf(l.yamlPos(k, from, to), CodeFrontMatter, "front matter key %q appears twice", k.Value)
			continue
		}
		l.frontKey(k, m.Content[i+1], from, to)
	}
	l.requireFrontKeys(open)
}

func (l *loader) frontKey(k, v *yaml.Node, from, to int) {
	var val any
	p := l.yamlPos(v, from, to)
	if err := v.Decode(&val); err == nil {
		l.s.Front[k.Value] = normalize(val)
	} else {
		// yaml.v3 refuses values that expand aliases too far (a "billion
		// laughs" document); the key is left out, and the spec says so.
		l.warnf(p, CodeDroppedKey, "front matter key %q is ignored: its value cannot be read (%s)", k.Value, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	switch k.Value {
	case "name", "kind":
		if v.Kind != yaml.ScalarNode || v.Tag != "!!str" || strings.TrimSpace(v.Value) == "" {
			l.errorf(p, CodeFrontMatterKey, "front matter %s must be a non-empty string", k.Value)
			return
		}
		if k.Value == "name" {
			l.s.Name, l.namePos = v.Value, diag.Pos(p)
		} else {
			l.s.Kind, l.kindPos = Kind(v.Value), diag.Pos(p)
		}
	case "version":
		if v.Kind == yaml.ScalarNode {
			l.s.Version = v.Value
		} else {
			l.warnf(p, CodeBadVersion, "front matter version must be a scalar such as 0.2.0, not a list or a mapping; it is ignored")
		}
	}
}

func (l *loader) requireFrontKeys(open int) {
	if _, ok := l.s.Front["name"]; !ok {
		l.errorf(open, CodeFrontMatterKey, "front matter has no name: key")
	}
	if _, ok := l.s.Front["kind"]; !ok {
		if k, by := kindBySections(l.text[l.fmEnd:]); k != "" {
			l.errorf(open, CodeFrontMatterKey, "front matter has no kind: key, and the file is read as a pattern; its %s are a %s's: add kind: %s", by, k, k)
		} else {
			l.errorf(open, CodeFrontMatterKey, "front matter has no kind: key (kind: pattern)")
		}
	} else if l.s.Kind != "" {
		l.checkKind()
	}
}

// kinds are the kinds prose reads; retiredKinds the kinds 0.15 retired,
// with what replaces them.
var (
	kinds        = []Kind{KindPattern, KindFunction, KindResponsibility, KindGateway, KindTest}
	retiredKinds = map[string]string{
		"service": "kind: service was renamed in 0.15: write kind: function (Parameters -> Returns)",
		"system":  "kind: system was removed in 0.15: call functions from ### Execution, or split it into responsibilities wired by Requires/Maintains",
	}
)

// checkKind reports a kind prose does not know (a misspelling, a capital
// letter), with the kind meant, and a retired kind with what replaces
// it: either would otherwise load as a spec with nothing to run.
func (l *loader) checkKind() {
	if slices.Contains(kinds, l.s.Kind) {
		return
	}
	k := string(l.s.Kind)
	if msg, ok := retiredKinds[strings.ToLower(k)]; ok {
		l.errorf(int(l.kindPos), CodeRetiredKind, "%s", msg)
		return
	}
	names := make([]string, len(kinds))
	for i, c := range kinds {
		names[i] = string(c)
	}
	best := didyoumean.Matcher{Fold: strings.ToLower, Limit: didyoumean.Within(len(k) / 2)}.Closest(k, names)
	hint := "the kinds are " + strings.Join(names, ", ")
	if best != "" {
		hint = "did you mean kind: " + best + "?"
	}
	l.errorf(int(l.kindPos), CodeUnknownKind, "unknown kind %q: %s", k, hint)
}

// yamlPos converts a node's 1-based line/column within the front matter
// (which starts at offset from) to a file offset before to.
func (l *loader) yamlPos(n *yaml.Node, from, to int) int {
	return l.fmOffset(n.Line, n.Column, from, to)
}

func (l *loader) fmOffset(line, col, from, to int) int {
	if line < 1 {
		return from
	}
	first := l.f.Position(diag.Pos(from)).Line
	p := int(l.f.LineStart(first + line - 1))
	if p < 0 || p > to {
		return from
	}
	return min(p+max(col-1, 0), to)
}

// yamlErrorPos finds "line N:" in a yaml.v3 error and returns its offset and
// the message without the "yaml: line N:" prefix.
func (l *loader) yamlErrorPos(err error, from, to int) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	rest, ok := strings.CutPrefix(msg, "line ")
	if !ok {
		return from, msg
	}
	num, tail, ok := strings.Cut(rest, ":")
	n, convErr := strconv.Atoi(num)
	if !ok || convErr != nil {
		return from, msg
	}
	return l.fmOffset(n, 1, from, to), strings.TrimSpace(tail)
}

// simpleFrontMatter decodes the common front matter made only of
// `key: word` lines (name: ratchet, kind: pattern, version: 0.15.0) without
// yaml.v3, which costs as much as the rest of the loader. It accepts only
// values that YAML reads as plain strings: a letter first, or a dotted
// version with at least two dots, and no character YAML gives a meaning
// to. It reports false, having changed nothing, for anything else, which
// yaml.v3 then decodes.
func (l *loader) simpleFrontMatter(from, to int) bool {
	type kv struct {
		key, val string
		pos      int
	}
	var kvs [8]kv
	n := 0
	for off := from; off < to; {
		ln, next := lineAt(l.text[:to], off)
		ln = strings.TrimRight(ln, " \t\r")
		key, val, ok := strings.Cut(ln, ": ")
		if !ok || n == len(kvs) || !isIdent(strings.ReplaceAll(key, "-", "_")) {
			return false
		}
		trimmed := strings.TrimLeft(val, " ")
		if !isPlainWord(trimmed) {
			return false
		}
		for _, prev := range kvs[:n] {
			if prev.key == key {
				return false // yaml.v3 path reports the repeat
			}
		}
		kvs[n] = kv{key, trimmed, off + len(key) + 2 + len(val) - len(trimmed)}
		n++
		off = next
	}
	l.s.Front = make(map[string]any, n)
	for _, e := range kvs[:n] {
		l.s.Front[e.key] = e.val
		switch e.key {
		case "name":
			l.s.Name, l.namePos = e.val, diag.Pos(e.pos)
		case "kind":
			l.s.Kind, l.kindPos = Kind(e.val), diag.Pos(e.pos)
		case "version":
			l.s.Version = e.val
		}
	}
	return true
}

// unnumeric reports whether w holds a letter that no YAML number or
// timestamp has (an id such as 067NC4KG01RG50R40M30E20918): not a hex
// digit, nor one of the letters of 0x, 0o, 0b, exponents, inf, nan and
// times (i n o p t x z).
func unnumeric(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i] | 0x20 // lower case, for letters
		if 'g' <= c && c <= 'z' && !strings.ContainsRune("inoptxz", rune(c)) {
			return true
		}
	}
	return false
}

// isPlainWord reports whether YAML reads w as a plain string and nothing
// else: letters, digits, and - _ . / inside, starting with a letter that
// does not begin a YAML 1.1 or 1.2 boolean or null, or with ./ or ../ (a
// relative path), or a version number with two dots or more, or digits
// and letters no number has.
func isPlainWord(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !isIdentByte(c) && c != '-' && c != '.' && c != '/' {
			return false
		}
	}
	if strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") {
		return true // a relative path (a test's subject); no YAML value starts so
	}
	c := w[0]
	if '0' <= c && c <= '9' {
		return strings.Count(w, ".") >= 2 && strings.Trim(w, "0123456789.") == "" || unnumeric(w)
	}
	if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return false
	}
	switch strings.ToLower(w) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return !strings.HasPrefix(strings.ToLower(w), ".inf") && !strings.HasPrefix(strings.ToLower(w), ".nan")
}

// kindBySections is the kind whose sections the body of a file without
// a kind: key has, and which of them say so, for the message: a
// ### Receives is a gateway's, a ### Requires or ### Maintains a
// responsibility's, a ### Parameters or ### Returns a function's; "" when
// none is there (or a ### Slots says pattern).
func kindBySections(body string) (kind Kind, by string) {
	has := map[string]bool{}
	for line := range strings.SplitSeq(body, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "###") || strings.HasPrefix(t, "####") {
			continue
		}
		has[strings.ToLower(strings.TrimSpace(strings.TrimLeft(t, "#")))] = true
	}
	named := func(secs ...string) string {
		var out []string
		for _, s := range secs {
			if has[strings.ToLower(s)] {
				out = append(out, "### "+s)
			}
		}
		return strings.Join(out, " and ")
	}
	switch {
	case has["slots"]:
		return "", ""
	case has["receives"] || !has["requires"] && has["maintains"] && strings.Contains(strings.ToLower(body), "external-driven"):
		return KindGateway, named("Receives", "Maintains", "Continuity")
	case has["requires"] || has["maintains"]:
		return KindResponsibility, named("Requires", "Maintains")
	case has["parameters"] || has["returns"]:
		return KindFunction, named("Parameters", "Returns")
	}
	return "", ""
}
