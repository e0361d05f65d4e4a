// Package bind turns the texts a run is given (`--slot`, `--config`,
// `--input`, `--input-json`: Settings) into an Instance of a spec: every
// slot bound to a service (Env says how each kind of binding text becomes
// one), config and inputs typed by their declarations, every problem
// reported at once in a *UsageError before anything runs.
package bind

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/proselang/prose/bind/typed"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// Assignment is one NAME=VALUE setting from the command line.
type Assignment struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Settings are the bindings of a run as the user gave them: `--slot`,
// `--config`, `--input` (in order) and `--input-json`. They hold no
// secrets and serialize to JSON, so a journal can store them and bind the
// same run again.
type Settings struct {
	Slots     []Assignment `json:"slots,omitempty"`
	Config    []Assignment `json:"config,omitempty"`
	Inputs    []Assignment `json:"inputs,omitempty"`
	InputJSON string       `json:"input_json,omitempty"`
	// Absent names the inputs whose values do not exist (Name the input,
	// Value what would give it): a world-model render's inputs whose
	// producers have never published. The run holds delegation.Absent
	// for each, which it may test but not read.
	Absent []Assignment `json:"absent,omitempty"`
}

// ParseAssignments splits NAME=VALUE flag values; flag names the flag in
// messages ("--slot").
func ParseAssignments(flag string, args []string) ([]Assignment, error) {
	var out []Assignment
	for _, a := range args {
		name, value, ok := strings.Cut(a, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, Usagef("%s %q: want NAME=VALUE", flag, a)
		}
		out = append(out, Assignment{Name: name, Value: value})
	}
	return out, nil
}

// sub returns the settings addressed to the nested spec bound to slot
// (`slot.NAME=...`), with the prefix removed; nil when there are none.
func (b *Settings) sub(slot string) *Settings {
	var s Settings
	pick := func(list []Assignment) []Assignment {
		var out []Assignment
		for _, a := range list {
			if rest, ok := strings.CutPrefix(a.Name, slot+"."); ok {
				out = append(out, Assignment{Name: rest, Value: a.Value})
			}
		}
		return out
	}
	s.Slots, s.Config = pick(b.Slots), pick(b.Config)
	if len(s.Slots) == 0 && len(s.Config) == 0 {
		return nil
	}
	return &s
}

// Instance is a spec bound to services, config and inputs: what a run of
// its Delegation needs. It is immutable after Spec; Globals hands each run
// fresh copies of its list and object values.
type Instance struct {
	Spec *spec.Spec
	// Slots maps each slot to a service.Service, or a *delegation.List of Services
	// for a list slot.
	Slots map[string]delegation.Value
	// Config holds every declared config key: the given value, else the
	// default, else null.
	Config map[string]delegation.Value
	// Inputs holds the declared inputs that are neither slots nor config
	// keys (empty when Spec ran with DeferInputs).
	Inputs map[string]delegation.Value
	// Env is the Env the spec was bound in: WithArgs binds a call's
	// arguments in it (messages name them with its Prefix).
	Env *Env
	// Warnings are what binding found that leaves the run as it is (an
	// input typed run bound to a run that failed).
	Warnings diag.List
}

// Lookup finds a config value or input by name path ("limits.max").
func (in *Instance) Lookup(path string) (delegation.Value, bool) {
	parts := strings.Split(path, ".")
	var v delegation.Value
	var ok bool
	for _, m := range []map[string]delegation.Value{in.Config, in.Inputs} {
		if v, ok = m[parts[0]]; ok {
			break
		}
	}
	if !ok {
		return nil, false
	}
	for _, p := range parts[1:] {
		o, isObj := v.(*delegation.Object)
		if !isObj {
			return nil, v == nil
		}
		v, _ = o.Get(p)
	}
	return v, true
}

// Globals returns the names visible at the top of the Delegation: slots,
// config and inputs. Lists and objects are copies.
func (in *Instance) Globals() map[string]delegation.Value {
	g := make(map[string]delegation.Value, len(in.Slots)+len(in.Config)+len(in.Inputs))
	for _, m := range []map[string]delegation.Value{in.Inputs, in.Config} {
		for k, v := range m {
			g[k] = Clone(v)
		}
	}
	for k, v := range in.Slots {
		g[k] = v
	}
	if spec.ConfigObject(in.Spec) {
		// A 0.15 pattern may read its config as config.KEY (the
		// keys are bare names as well).
		cfg := delegation.NewObject()
		keys := make([]string, 0, len(in.Config))
		for k := range in.Config {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			cfg.Set(k, Clone(in.Config[k]))
		}
		g["config"] = cfg
	}
	return g
}

// WithArgs returns the globals of one call of a nested spec: the call's
// named arguments become the spec's inputs, typed leniently by their
// declarations, with defaults applied. A missing required input is an
// error; arguments the spec does not declare are ignored.
func (in *Instance) WithArgs(args *delegation.Object) (map[string]delegation.Value, error) {
	b := &binder{sp: in.Spec, env: in.Env, lenient: true}
	given := map[string]delegation.Value{}
	if args != nil {
		for _, k := range args.Keys() {
			v, _ := args.Get(k)
			given[k] = v
		}
	}
	inputs := b.declaredInputs(given, map[string]string{})
	if err := b.err(); err != nil {
		return nil, err
	}
	g := in.Globals()
	for k, v := range inputs {
		g[k] = v
	}
	return g, nil
}

// Spec checks b against sp and binds it. Every problem found is
// reported at once in a *UsageError (exit 2): unknown names (with a
// did-you-mean), unbound slots, missing required inputs, ill-typed values,
// unusable bindings. No service is started.
func Spec(sp *spec.Spec, b *Settings, env *Env) (*Instance, error) {
	if env == nil {
		env = &Env{}
	}
	if b == nil {
		b = &Settings{}
	}
	bd := &binder{sp: sp, env: env}
	in := &Instance{Spec: sp, Env: env}
	defer func() { in.Warnings = bd.warnings }()
	in.Config = bd.config(b.Config)
	bd.configRanges(in.Config)
	in.Slots = bd.slots(b)
	if !env.DeferInputs {
		given, src := bd.givenInputs(b, in.Config)
		in.Inputs = bd.declaredInputs(given, src)
		bd.requiredConfig(in.Config)
	}
	if err := bd.err(); err != nil {
		return nil, err
	}
	return in, nil
}

// Config types the config settings given for sp (a pattern instance's
// config:, as --config texts) and applies the declared defaults; the
// problems found are in a *UsageError. Dotted keys are left out.
func Config(sp *spec.Spec, given []Assignment, env *Env) (map[string]delegation.Value, error) {
	b := &binder{sp: sp, env: env}
	cfg := b.config(given)
	return cfg, b.err()
}

// binder collects problems while binding one spec.
type binder struct {
	sp       *spec.Spec
	env      *Env
	lenient  bool // nested call arguments: keep ill-typed values as given
	problems []Problem
	warnings diag.List
	// given records the config keys set with --config.
	given map[string]bool
	// badJSON is set when --input-json cannot be read: inputs it may hold
	// are not reported missing.
	badJSON bool
}

func (b *binder) problem(kind ProblemKind, name, format string, args ...any) {
	b.problems = append(b.problems, Problem{Kind: kind, Name: name, Msg: fmt.Sprintf(format, args...)})
}

func (b *binder) err() error {
	if len(b.problems) == 0 {
		return nil
	}
	return &UsageError{Problems: b.problems}
}

// path names a slot, config key or input for messages, with the dotted
// prefix of a nested spec ("target.max_rounds").
func (b *binder) path(name string) string { return b.env.Prefix + name }

func (b *binder) isSlot(name string) bool {
	for _, s := range b.sp.Slots {
		if s.Name == name {
			return true
		}
	}
	return false
}

func (b *binder) configEntry(name string) *spec.ConfigEntry {
	for _, c := range b.sp.Config {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// config types the --config values and applies defaults. Dotted keys
// belong to nested specs and are checked by slots. A list-typed key given
// several times gets one element per --config, in order.
func (b *binder) config(given []Assignment) map[string]delegation.Value {
	out := map[string]delegation.Value{}
	values, order := map[string][]string{}, []string{}
	for _, a := range given {
		if strings.Contains(a.Name, ".") {
			continue
		}
		if b.configEntry(a.Name) == nil {
			b.problem(UnknownConfig, b.path(a.Name), "unknown config key %q%s", b.path(a.Name), b.suggest(a.Name, b.configNames()))
			continue
		}
		if _, ok := values[a.Name]; !ok {
			order = append(order, a.Name)
		}
		values[a.Name] = append(values[a.Name], a.Value)
	}
	for _, name := range order {
		if b.given == nil {
			b.given = map[string]bool{}
		}
		b.given[name] = true
		v, err := typed.ParseValues(b.configEntry(name).Type, values[name])
		if err != nil {
			b.problem(BadValue, b.path(name), "--config %s: %v", b.path(name), err)
			continue
		}
		out[name] = v
	}
	for _, c := range b.sp.Config {
		if _, ok := out[c.Name]; !ok {
			out[c.Name] = b.defaultValue(c.Name, c.Type, c.HasDefault, c.Default)
		}
	}
	return out
}

// defaultValue is a declared default, typed; null without one.
func (b *binder) defaultValue(name, typ string, has bool, def any) delegation.Value {
	if !has {
		return nil
	}
	v, err := goValue(def)
	if err != nil {
		b.problem(BadValue, b.path(name), "default of %q: %v", b.path(name), err)
		return nil
	}
	c, err := typed.Coerce(typ, v)
	if err != nil {
		// decided: a default that does not fit its type is refused (lint
		// reports it, spec/bad-default), not given as the text it is
		b.problem(BadValue, b.path(name), "the default of %q does not fit its declared type: %v; fix the default in the spec, or give a value", b.path(name), err)
		return nil
	}
	return c
}

func (b *binder) configNames() []string {
	var out []string
	for _, c := range b.sp.Config {
		out = append(out, c.Name)
	}
	return out
}

// configRanges refuses config values that their uses in the Delegation
// would refuse at run time (a negative loop count, a timeout that is not a
// positive duration), before any service runs. Values of other types are
// checked by their declared type; this adds what a use accepts.
func (b *binder) configRanges(config map[string]delegation.Value) {
	if b.sp.Delegation == nil || b.sp.Delegation.Program == nil {
		return
	}
	uses := check.Uses(b.sp.Delegation.Program, b.configNames())
	for _, c := range b.sp.Config {
		v := config[c.Name]
		if v == nil {
			continue // unset: reported as missing, or null by design
		}
		for _, u := range uses {
			if u.Name != c.Name || fits(u, v) {
				continue
			}
			want := u.Want()
			where := b.sp.File.Position(u.Pos).String()
			if b.given[c.Name] {
				b.problem(BadValue, b.path(c.Name), "--config %s=%s: %s is %s at %s, which must be %s", b.path(c.Name), delegation.Text(v), b.path(c.Name), u.What, where, want)
			} else {
				b.problem(BadValue, b.path(c.Name), "config %q: its default %s is %s at %s, which must be %s; set --config %s=VALUE", b.path(c.Name), delegation.Text(v), u.What, where, want, b.path(c.Name))
			}
			break
		}
	}
}

// fits reports whether v is a value use accepts, as the evaluator reads it.
func fits(u check.Use, v delegation.Value) bool {
	if u.Duration {
		d, ok := delegation.ToDuration(v)
		return ok && d > 0
	}
	switch n := v.(type) {
	case int64:
		return n >= u.Least()
	case float64:
		return n >= float64(u.Least()) && n == math.Trunc(n) && !math.IsInf(n, 0)
	}
	return false
}
