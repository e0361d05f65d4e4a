package spec

import (
	"fmt"
	"strings"

	"github.com/yuin/goldmark/ast"
	"gopkg.in/yaml.v3"

	"github.com/proselang/prose/diag"
)

// patternInstances reads the ```yaml block of a ### Patterns section: a
// list of {name, pattern, with: {slot: target}, config: {key: value}}.
// A with: value that is a mapping is a nested pattern declaration, read
// as an instance of its own (InstanceSlot.Nested, Target empty).
func (l *loader) patternInstances(sec *section) {
	var fence *ast.FencedCodeBlock
	for _, b := range sec.blocks {
		if fc, ok := b.(*ast.FencedCodeBlock); ok {
			if info := l.fenceInfo(fc); info == "yaml" || info == "yml" || info == "" {
				fence = fc
				break
			}
		}
	}
	if fence == nil {
		l.errorf(int(sec.Pos), CodePatternsSyntax, "the Patterns section has no ```yaml block declaring its pattern instances")
		return
	}
	lines, code := l.codeLines(fence)
	if len(lines) == 0 {
		return
	}
	at := func(n *yaml.Node) diag.Pos {
		if n.Line-1 < len(lines) && n.Line >= 1 {
			return lines[n.Line-1].Off + diag.Pos(max(n.Column-1, 0))
		}
		return lines[0].Off
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(code), &doc); err != nil {
		l.errorf(int(lines[0].Off), CodePatternsSyntax, "the Patterns block is not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		return
	}
	if len(doc.Content) == 0 {
		return
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		l.errorf(int(at(list)), CodePatternsSyntax, "the Patterns block must be a YAML list of instances (- name: ..., pattern: ...)")
		return
	}
	for _, item := range list.Content {
		if p := l.patternInstance(item, at); p != nil {
			if first := l.s.Instance(p.Name); first != nil {
				l.errorf(int(p.Pos), CodePatternsSyntax, "pattern instance %q is declared twice (first on line %d)", p.Name, l.f.Position(first.Pos).Line)
				continue
			}
			l.s.Patterns = append(l.s.Patterns, p)
		}
	}
}

func (l *loader) patternInstance(item *yaml.Node, at func(*yaml.Node) diag.Pos) *PatternInstance {
	if item.Kind != yaml.MappingNode {
		l.errorf(int(at(item)), CodePatternsSyntax, "a pattern instance is a mapping with name: and pattern: keys")
		return nil
	}
	p := &PatternInstance{Pos: at(item)}
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i], item.Content[i+1]
		switch k.Value {
		case "name":
			p.Name, p.Pos = v.Value, at(v)
		case "pattern":
			p.Pattern = v.Value
		case "with":
			l.instanceWith(p, v, at)
		case "config":
			l.instanceConfig(p, v, at)
		default:
			l.errorf(int(at(k)), CodePatternsSyntax, "unknown key %q in a pattern instance (want name, pattern, with, config)", k.Value)
		}
	}
	if p.Name == "" || p.Pattern == "" {
		l.errorf(int(p.Pos), CodePatternsSyntax, "a pattern instance needs both name: and pattern:")
		return nil
	}
	return p
}

func (l *loader) instanceWith(p *PatternInstance, v *yaml.Node, at func(*yaml.Node) diag.Pos) {
	if v.Kind != yaml.MappingNode {
		l.errorf(int(at(v)), CodePatternsSyntax, "with: maps each slot of the pattern to a node or function (slot: name)")
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, t := v.Content[i], v.Content[i+1]
		w := &InstanceSlot{Slot: k.Value, Pos: at(t)}
		switch t.Kind {
		case yaml.ScalarNode:
			w.Target = t.Value
		case yaml.MappingNode:
			w.Nested = l.patternInstance(t, at)
		}
		p.With = append(p.With, w)
	}
}

func (l *loader) instanceConfig(p *PatternInstance, v *yaml.Node, at func(*yaml.Node) diag.Pos) {
	if v.Kind != yaml.MappingNode {
		l.errorf(int(at(v)), CodePatternsSyntax, "config: is a mapping of the pattern's config keys")
		return
	}
	p.Config, p.ConfigPos = map[string]any{}, map[string]diag.Pos{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		var x any
		if err := val.Decode(&x); err != nil {
			l.errorf(int(at(val)), CodePatternsSyntax, "config %s: %v", k.Value, err)
			continue
		}
		p.Config[k.Value], p.ConfigPos[k.Value] = normalizeYAML(x), at(k)
	}
}

// normalizeYAML turns yaml.v3's ints into int64 and its maps into
// map[string]any, the value types the rest of the loader uses.
func normalizeYAML(x any) any {
	switch v := x.(type) {
	case int:
		return int64(v)
	case []any:
		for i := range v {
			v[i] = normalizeYAML(v[i])
		}
		return v
	case map[string]any:
		for k := range v {
			v[k] = normalizeYAML(v[k])
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = normalizeYAML(e)
		}
		return m
	}
	return x
}
