package bind

import (
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/proselang/prose/bind/typed"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
)

// slots binds every declared slot. A name given several times builds a
// list slot in order; a slot given nothing is a problem.
func (b *binder) slots(bs *Settings) map[string]delegation.Value {
	given := map[string][]string{}
	for _, a := range bs.Slots {
		root, _, dotted := strings.Cut(a.Name, ".")
		base, idx := splitElem(root)
		if !b.isSlot(base) {
			b.problem(UnknownSlot, b.path(a.Name), "unknown slot %q%s", b.path(a.Name), b.suggest(base, b.slotNames()))
			continue
		}
		if dotted {
			continue // a setting of root's nested spec (root may be one list element)
		}
		if idx >= 0 {
			b.problem(BadBinding, b.path(root), "--slot %s: list elements are bound in order by repeating --slot %s=...; an index only addresses an element's own settings (%s.NAME=...)", b.path(root), b.path(base), b.path(root))
			continue
		}
		given[root] = append(given[root], a.Value)
	}
	for _, a := range bs.Config {
		if root, _, dotted := strings.Cut(a.Name, "."); dotted {
			if base, _ := splitElem(root); !b.isSlot(base) {
				b.problem(UnknownConfig, b.path(a.Name), "unknown config key %q: %q is not a slot%s", b.path(a.Name), b.path(base), b.suggest(base, b.slotNames()))
			}
		}
	}
	out := map[string]delegation.Value{}
	for _, s := range b.sp.Slots {
		values, ok := given[s.Name]
		if !ok {
			b.problem(UnboundSlot, b.path(s.Name), "slot %q is not bound: add --slot %s=exec:COMMAND (or llm, or a .prose.md path)", b.path(s.Name), b.path(s.Name))
			continue
		}
		if v := b.slotValue(bs, s.Name, values, s.List); v != nil {
			out[s.Name] = v
		}
	}
	return out
}

// slotValue builds one slot's service.Service, or the list of Services of a list
// slot (declared as one, or given more than once). A slot the Delegation
// calls directly (`call advancer`) cannot take several bindings: it would
// fail at its first call, so that is a problem now.
func (b *binder) slotValue(bs *Settings, name string, values []string, list bool) delegation.Value {
	if !list && len(values) > 1 {
		if at, ok := directCall(b.sp, name); ok {
			b.problem(BadBinding, b.path(name), "slot %q is bound %d times, but it is one service, not a list: the Delegation calls it directly (call %s at line %d); bind it once",
				b.path(name), len(values), name, at.Line)
			return nil
		}
	}
	shared := bs.sub(name)
	asList := list || len(values) > 1
	b.strayElems(bs, name, len(values), asList)
	specs := 0
	var services []service.Service
	for i, text := range values {
		sb := &Slot{Spec: b.sp, Slot: b.slot(name), Name: b.path(name), Path: b.path(name), Value: text, Sub: shared, Env: b.env}
		kind, arg, err := Classify(text)
		if err != nil {
			b.problem(BadBinding, b.path(name), "--slot %s: %v", b.path(name), err)
			continue
		}
		if asList {
			// chain.NAME applies to every spec element, chain[i].NAME to
			// element i alone (and wins); programs and models take only
			// their own element's settings, which they refuse.
			sb.Name = listElem(b.path(name), i)
			own := bs.sub(listElem(name, i))
			if kind == KindSpec {
				specs++
				sb.Sub = mergeSub(shared, own)
			} else {
				sb.Sub = own
			}
		}
		sb.Kind, sb.Arg = kind, arg
		s, err := b.env.Service(sb)
		var nested *UsageError
		switch {
		case errors.As(err, &nested):
			// A nested spec's problems already name their full dotted path.
			b.problems = append(b.problems, nested.Problems...)
			continue
		case err != nil:
			b.problem(BadBinding, b.path(name), "--slot %s: %v", b.path(name), err)
			continue
		}
		if !b.env.UncheckedAnswers {
			s = checkAnswers(s, sb.Name, sb.Spec, sb.Slot)
		}
		services = append(services, s)
	}
	if asList && shared != nil && specs == 0 {
		b.problem(BadBinding, b.path(name), "--slot %s: dotted settings (%s.NAME=...) apply to the spec elements of the list, and none of its elements is a spec", b.path(name), b.path(name))
	}
	switch {
	case len(services) != len(values):
		return nil
	case asList:
		return service.List(services...)
	}
	return services[0]
}

func (b *binder) slotNames() []string {
	var out []string
	for _, s := range b.sp.Slots {
		out = append(out, s.Name)
	}
	return out
}

// givenInputs types the --input and --input-json values. src records where
// each came from, for messages.
func (b *binder) givenInputs(bs *Settings, config map[string]delegation.Value) (map[string]delegation.Value, map[string]string) {
	given := map[string]delegation.Value{}
	src := map[string]string{}
	if strings.TrimSpace(bs.InputJSON) != "" {
		v, err := delegation.FromJSON([]byte(bs.InputJSON))
		obj, ok := v.(*delegation.Object)
		switch {
		case err != nil:
			b.problem(BadValue, "", "--input-json: %v", err)
			b.badJSON = true
		case !ok:
			b.problem(BadValue, "", "--input-json: want a JSON object of inputs, got %s", delegation.TypeName(v))
			b.badJSON = true
		default:
			for _, k := range obj.Keys() {
				given[k], _ = obj.Get(k)
				src[k] = "--input-json"
			}
		}
	}
	for _, a := range bs.Inputs {
		switch prev, dup := src[a.Name]; {
		case dup && prev != "--input":
			b.problem(GivenTwice, b.path(a.Name), "input %q given twice (--input and %s)", b.path(a.Name), prev)
		case dup:
			// Repeated: the elements of a list, typed in declaredInputs.
			r, _ := given[a.Name].(repeated)
			if s, ok := given[a.Name].(string); ok {
				r = repeated{s}
			}
			given[a.Name] = append(r, a.Value)
		default:
			given[a.Name] = a.Value // a string: typed in declaredInputs
			src[a.Name] = "--input"
		}
	}
	b.configInputs(given, src, config)
	return given, src
}

// configInputs moves inputs that name config keys into config (the corpus
// lists config keys among the inputs, and users pass them either way).
func (b *binder) configInputs(given map[string]delegation.Value, src map[string]string, config map[string]delegation.Value) {
	for name, v := range given {
		c := b.configEntry(name)
		if c == nil {
			continue
		}
		delete(given, name)
		if b.given[name] {
			b.problem(GivenTwice, b.path(name), "%q is set twice: with --config and with %s", b.path(name), src[name])
			continue
		}
		if text, ok := inputText(v, src[name]); ok {
			t, err := typed.ParseValues(c.Type, text)
			if err != nil {
				b.problem(BadValue, b.path(name), "--input %s: %v", b.path(name), err)
				continue
			}
			v = t
		} else if t, err := typed.Coerce(c.Type, v); err == nil {
			v = t
		}
		config[name] = v
	}
}

// requiredConfig reports config keys that have no default, were not given,
// and whose line in the inputs block does not say they are optional: the
// spec cannot run without them (contrastive-probe's dimension, say).
func (b *binder) requiredConfig(config map[string]delegation.Value) {
	for _, c := range b.sp.Config {
		if c.HasDefault || config[c.Name] != nil {
			continue
		}
		for _, in := range b.sp.Inputs {
			if in.Name == c.Name && !in.Optional && !in.HasDefault {
				b.problem(MissingConfig, b.path(c.Name), "missing required config %q: add --config %s=VALUE", b.path(c.Name), b.path(c.Name))
			}
		}
	}
}

// declaredInputs binds every declared input that is neither a slot nor a
// config key: the given value, else the default, else null when optional;
// a required input with no value is a problem. Given names the spec does
// not declare are problems too (except in lenient mode).
func (b *binder) declaredInputs(given map[string]delegation.Value, src map[string]string) map[string]delegation.Value {
	out := map[string]delegation.Value{}
	declared := map[string]bool{}
	var names []string
	for _, in := range b.sp.Inputs {
		if b.isSlot(in.Name) || b.configEntry(in.Name) != nil {
			continue
		}
		declared[in.Name] = true
		names = append(names, in.Name)
		v, ok := given[in.Name]
		switch {
		case ok && IsRunType(in.Type):
			out[in.Name] = b.runInput(in, v, src[in.Name])
		case ok:
			out[in.Name] = b.typedInput(in.Name, in.Type, v, src[in.Name])
		case in.HasDefault && IsRunType(in.Type):
			if d, err := goValue(in.Default); err == nil {
				out[in.Name] = b.runInput(in, d, "the default of")
			}
		case in.HasDefault:
			out[in.Name] = b.defaultValue(in.Name, in.Type, true, in.Default)
		case in.Optional:
			out[in.Name] = nil
		case b.badJSON:
			// it may be in the --input-json that could not be read
		default:
			b.problem(MissingInput, b.path(in.Name), "missing required input %q: add --input %s=VALUE (or --input-json)", b.path(in.Name), b.path(in.Name))
		}
	}
	// A 0.15 pattern without an inputs block takes the names its slots'
	// requires quote (spec.ImpliedInputs), given as written: those a slot
	// requires without calling them optional (spec.ImpliedRequired) must
	// be given, the others are null when they are not.
	required := b.sp.ImpliedRequired()
	for _, name := range b.sp.ImpliedInputs() {
		if declared[name] {
			continue
		}
		declared[name] = true
		names = append(names, name)
		v, ok := given[name]
		if !ok && !b.badJSON && slices.Contains(required, name) {
			b.problem(MissingInput, b.path(name), "missing required input %q (a slot of %s requires it): add --input %s=VALUE (or --input-json)", b.path(name), b.sp.Name, b.path(name))
		}
		out[name] = v
	}
	if !b.lenient {
		b.unknownInputs(given, declared, names)
	}
	return out
}

func (b *binder) unknownInputs(given map[string]delegation.Value, declared map[string]bool, names []string) {
	var unknown []string
	for name := range given {
		if !declared[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		if b.isSlot(name) {
			b.problem(UnknownInput, b.path(name), "input %q is a slot: bind it with --slot %s=...", b.path(name), b.path(name))
			continue
		}
		b.problem(UnknownInput, b.path(name), "unknown input %q%s", b.path(name), b.suggest(name, append(names, b.configNames()...)))
	}
}

func (b *binder) typedInput(name, typ string, v delegation.Value, src string) delegation.Value {
	var err error
	var out delegation.Value
	if text, ok := inputText(v, src); ok {
		out, err = typed.ParseValues(typ, text)
	} else {
		out, err = typed.Coerce(typ, v)
	}
	if err != nil {
		if b.lenient {
			return v
		}
		b.problem(BadValue, b.path(name), "%s %s: %v", src, b.path(name), err)
	}
	return out
}

// directCall finds the first `call NAME` of the spec's Delegation whose
// target is the bare name (not an element of it).
func directCall(sp *spec.Spec, name string) (diag.Position, bool) {
	if sp.Delegation == nil || sp.Delegation.Program == nil {
		return diag.Position{}, false
	}
	var at diag.Pos
	found := false
	syntax.Walk(sp.Delegation.Program, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && !found {
			if id, ok := c.Target.(*syntax.Ident); ok && id.Name == name {
				at, found = c.Call, true
			}
		}
		return !found
	})
	if !found {
		return diag.Position{}, false
	}
	return sp.File.Position(at), true
}

// splitElem splits "chain[2]" into "chain" and 2; a name without an index
// gives -1.
func splitElem(name string) (string, int) {
	open := strings.IndexByte(name, '[')
	if open < 0 || !strings.HasSuffix(name, "]") {
		return name, -1
	}
	n, err := strconv.Atoi(name[open+1 : len(name)-1])
	if err != nil || n < 0 {
		return name, -1
	}
	return name[:open], n
}

// strayElems reports settings addressed to an element the list does not
// have (chain[3].x with two elements) or to an element of a slot that is
// not a list.
func (b *binder) strayElems(bs *Settings, name string, n int, asList bool) {
	seen := map[string]bool{}
	for _, list := range [][]Assignment{bs.Slots, bs.Config} {
		for _, a := range list {
			root, _, dotted := strings.Cut(a.Name, ".")
			base, idx := splitElem(root)
			if !dotted || base != name || idx < 0 || seen[root] {
				continue
			}
			seen[root] = true
			switch {
			case !asList:
				b.problem(UnknownSlot, b.path(a.Name), "%q: slot %q is not a list; address its settings as %s.NAME", b.path(a.Name), b.path(name), b.path(name))
			case idx >= n:
				b.problem(UnknownSlot, b.path(a.Name), "%q: slot %q has %d elements, numbered from 0", b.path(a.Name), b.path(name), n)
			}
		}
	}
}

// mergeSub is shared with own's settings in place of the shared ones of
// the same slot or config key.
func mergeSub(shared, own *Settings) *Settings {
	if shared == nil {
		return own
	}
	if own == nil {
		return shared
	}
	keep := func(sh, ow []Assignment) []Assignment {
		mine := map[string]bool{}
		for _, a := range ow {
			root, _, _ := strings.Cut(a.Name, ".")
			mine[root] = true
		}
		var out []Assignment
		for _, a := range sh {
			if root, _, _ := strings.Cut(a.Name, "."); !mine[root] {
				out = append(out, a)
			}
		}
		return append(out, ow...)
	}
	return &Settings{Slots: keep(shared.Slots, own.Slots), Config: keep(shared.Config, own.Config)}
}

// runInput binds an input typed run or run[] (runinput.go), its warnings
// placed at the input's declaration.
func (b *binder) runInput(in *spec.Input, v delegation.Value, src string) delegation.Value {
	text, fromText := inputText(v, src)
	out, warnings, err := b.env.RunInput(in.Type, v, text, fromText)
	if err != nil {
		b.problem(BadValue, b.path(in.Name), "%s %s: %v", src, b.path(in.Name), err)
		return nil
	}
	for _, w := range warnings {
		b.warnings.Warnf(b.sp.File, in.Pos, CodeRunInput, "input %s: %s", b.path(in.Name), w)
	}
	return out
}
