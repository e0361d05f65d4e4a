package spec

import (
	"strings"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// resolve runs the checks that need the whole spec: slot list-ness,
// config/input types, Shape against Slots, inferred outputs.
//
// A front-matter name that differs from the file's stem is not a finding:
// a user copies a library pattern under another file name, and OpenProse
// names index.prose.md roots and tests freely. Calls find a file by its
// name or its stem. The library holds its own files to name == stem in
// its tests.
func (l *loader) resolve() {
	l.listSlots()
	l.checkTypes()
	l.checkShape()
	if len(l.s.Outputs) == 0 && l.s.Kind == KindPattern || len(l.s.Outputs) == 0 && !l.s.Contract {
		l.inferOutputs()
	}
}

// listSlots marks slots typed as arrays by the inputs block or iterated by
// a `for` in the Delegation.
func (l *loader) listSlots() {
	for _, in := range l.s.Inputs {
		if strings.HasSuffix(in.Type, "[]") {
			if s := l.slot(in.Name); s != nil {
				s.List = true
			}
		}
	}
	for _, name := range l.forSources() {
		if s := l.slot(name); s != nil {
			s.List = true
		}
	}
}

// checkTypes warns where Config and the inputs block type a key
// differently (integer vs number).
func (l *loader) checkTypes() {
	for _, in := range l.s.Inputs {
		for _, c := range l.s.Config {
			if c.Name == in.Name && c.Type != "" && in.Type != "" && !c.TypeInferred && !in.TypeInferred && !strings.EqualFold(c.Type, in.Type) {
				l.warnf(int(in.Pos), CodeTypeMismatch, "%q is %s in Config (line %d) but %s in the inputs block",
					in.Name, c.Type, l.f.Position(c.Pos).Line, in.Type)
			}
		}
	}
}

// forSources lists the identifiers `for` loops iterate over.
func (l *loader) forSources() []string {
	d := l.s.Delegation
	if d == nil {
		return nil
	}
	var out []string
	if d.Program != nil {
		for _, f := range d.Program.Loops() {
			if id, ok := f.X.(*syntax.Ident); ok {
				out = append(out, id.Name)
			}
		}
		if !l.syntaxErrors {
			return out
		}
	}
	// No program, or a partial one: read the loops from the text too.
	for _, ln := range d.Lines {
		if x := forSourceText(ln.Text); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// forSourceText reads X from a line `[let v =] [parallel] for a[, i] in X:`
// when X is a bare identifier.
func forSourceText(line string) string {
	t := strings.TrimSpace(line)
	if i := strings.Index(t, "for "); i < 0 || i > 0 && t[i-1] != ' ' {
		return ""
	} else {
		t = t[i+4:]
	}
	_, x, ok := strings.Cut(t, " in ")
	if !ok {
		return ""
	}
	x = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(x), ":"))
	if !isIdent(x) {
		return ""
	}
	return x
}

// inferOutputs takes the keys of the Delegation's last top-level
// `return {...}` as the outputs.
func (l *loader) inferOutputs() {
	d := l.s.Delegation
	if d == nil {
		return
	}
	if d.Program != nil {
		var ret *syntax.ReturnStmt
		for _, st := range d.Program.Body {
			if r, ok := st.(*syntax.ReturnStmt); ok {
				ret = r
			}
		}
		if ret != nil {
			if obj, ok := ret.Value.(*syntax.ObjectLit); ok {
				for _, f := range obj.Fields {
					l.s.Outputs = append(l.s.Outputs, &Output{Name: f.Key, Pos: f.KeyPos, Inferred: true})
				}
			}
			return
		}
	}
	// No program, or one whose final return was lost to a syntax error.
	l.inferOutputsText(d.Lines)
}

// inferOutputsText is inferOutputs without a parsed program: the keys at
// the first indentation inside the last unindented `return {` line.
func (l *loader) inferOutputsText(lines []syntax.Line) {
	start := -1
	for i, ln := range lines {
		if strings.HasPrefix(ln.Text, "return {") || strings.HasPrefix(ln.Text, "return{") {
			start = i
		}
	}
	if start < 0 {
		return
	}
	var outs []*Output
	first := lines[start]
	if brace := strings.IndexByte(first.Text, '{'); strings.Contains(first.Text[brace:], "}") {
		inner := first.Text[brace+1 : strings.LastIndexByte(first.Text, '}')]
		for _, part := range splitTop(inner) {
			if k := strings.TrimSpace(strings.SplitN(part, ":", 2)[0]); isIdent(k) {
				outs = append(outs, &Output{Name: k, Pos: first.Off + diag.Pos(brace+1+strings.Index(inner, k)), Inferred: true})
			}
		}
		l.s.Outputs = outs
		return
	}
	keyIndent := -1
	for _, ln := range lines[start+1:] {
		t := strings.TrimSpace(ln.Text)
		if strings.HasPrefix(ln.Text, "}") {
			break
		}
		if t == "" || keyIndent >= 0 && indentOf(ln.Text) != keyIndent {
			continue
		}
		k, _, ok := strings.Cut(t, ":")
		if !ok || !isIdent(strings.TrimSpace(k)) {
			continue
		}
		keyIndent = indentOf(ln.Text)
		outs = append(outs, &Output{Name: strings.TrimSpace(k), Pos: ln.Off + diag.Pos(len(ln.Text)-len(strings.TrimLeft(ln.Text, " \t"))), Inferred: true})
	}
	l.s.Outputs = outs
}
